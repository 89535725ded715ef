package mcp

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// TestEnvelopeCacheSharesOnlyTheSameEnvelope decodes envelopes through a
// cache: the same bytes share the values decoded first, any difference
// (capabilities, info, one of them absent) decodes afresh, and what is
// decoded is what decoding without the cache gives.
func TestEnvelopeCacheSharesOnlyTheSameEnvelope(t *testing.T) {
	c := NewEnvelopeCache()
	decode := func(raw string, cache *EnvelopeCache) RequestMeta {
		t.Helper()
		var m RequestMeta
		m.UseCache(cache)
		if err := m.UnmarshalJSON([]byte(raw)); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if m.link != nil {
			t.Errorf("%s: the cache is still set after decoding", raw)
		}
		return m
	}
	env := func(caps, info string) string {
		s := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
		if caps != "" {
			s += `,"io.modelcontextprotocol/clientCapabilities":` + caps
		}
		if info != "" {
			s += `,"io.modelcontextprotocol/clientInfo":` + info
		}
		return s + `}`
	}
	a := env(`{}`, `{"name":"a","version":"1"}`)
	first, again := decode(a, c), decode(a, c)
	if first.ClientInfo != again.ClientInfo || first.ClientCapabilities != again.ClientCapabilities {
		t.Error("the same envelope twice: decoded twice")
	}
	for _, raw := range []string{
		env(`{}`, `{"name":"b","version":"1"}`),
		env(`{"roots":{}}`, `{"name":"a","version":"1"}`),
		env(`{}`, ``),
		env(``, `{"name":"a","version":"1"}`),
		env(`{"sampling":{}}`, `{"name":"a\u00e9","title":"T","version":"1"}`),
		a,
	} {
		got, want := decode(raw, c), decode(raw, nil)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: through the cache %+v, without %+v", raw, got, want)
		}
		if raw != a && (got.ClientInfo != nil && got.ClientInfo == first.ClientInfo || got.ClientCapabilities != nil && got.ClientCapabilities == first.ClientCapabilities) {
			t.Errorf("%s: shares the values of another envelope", raw)
		}
	}
	ab := []byte(a)
	var m RequestMeta
	if n := testing.AllocsPerRun(100, func() { m.UseCache(c); m.UnmarshalJSON(ab) }); n != 0 {
		t.Errorf("a cached envelope: %v allocations, want 0", n)
	}
}

// TestEnvelopeCacheConcurrent decodes different envelopes through one
// cache at once (run with -race): each gets its own values.
func TestEnvelopeCacheConcurrent(t *testing.T) {
	c := NewEnvelopeCache()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			name := fmt.Sprint("client-", i%3)
			raw := []byte(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"` + name + `","version":"1"}}`)
			for range 200 {
				var m RequestMeta
				m.UseCache(c)
				if err := m.UnmarshalJSON(raw); err != nil || m.ClientInfo.Name != name {
					t.Errorf("decoded %+v, %v; want the client info of %s", m.ClientInfo, err, name)
					return
				}
			}
		})
	}
	wg.Wait()
}
