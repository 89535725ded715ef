package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// TestImplementationFastCodec checks that the hand-written Implementation
// codec of the _meta envelope gives what encoding/json gives.
func TestImplementationFastCodec(t *testing.T) {
	for _, impl := range []Implementation{
		{},
		{Name: "c", Version: "1"},
		{Name: "c", Title: "The <C> & \"co\"", Version: "1.0", Description: "é\n\t", WebsiteURL: "https://x.example/?a=1&b=2"},
		{Name: "c", Version: "1", Icons: []Icon{{Src: "https://x.example/i.png", Sizes: []string{"48x48"}}}},
	} {
		got, err := appendImplementation(nil, impl)
		if err != nil {
			t.Fatal(err)
		}
		var back Implementation
		if err := json.Unmarshal(got, &back); err != nil || !reflect.DeepEqual(back, impl) {
			t.Errorf("appendImplementation(%+v) = %s: decodes to %+v, %v", impl, got, back, err)
		}
		want, _ := json.Marshal(impl)
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("appendImplementation(%+v) = %s, encoding/json writes %s", impl, got, want)
		}
	}
	for _, in := range []string{
		`{"name":"c","version":"1"}`,
		`{ "name" : "c" , "title":"T","version":"1","description":"d","websiteUrl":"u" }`,
		`{"name":"c\u00e9","version":"1"}`,
		`{"name":null,"version":"1"}`,
		`{"Name":"c","version":"1"}`, // another case: encoding/json matches it
		`{"name":"c","version":"1","icons":[{"src":"s"}]}`,
		`{"name":"c","version":"1","extra":true}`,
		`{"na\u006de":"c","version":"1"}`,
		`{"name":1,"version":"1"}`,
		`{}`,
		`null`,
		`[]`,
	} {
		var got, want Implementation
		gerr := decodeImplementation([]byte(in), "", &got)
		werr := json.Unmarshal([]byte(in), &want)
		if (gerr != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("decodeImplementation(%s) = %+v, %v; encoding/json: %+v, %v", in, got, gerr, want, werr)
		}
	}
}

// TestRequestMetaEnvelopeRoundTrip checks the envelope of modern requests
// through the fast paths: empty capabilities, client info, result _meta.
func TestRequestMetaEnvelopeRoundTrip(t *testing.T) {
	m := RequestMeta{ProtocolVersion: Latest, ClientCapabilities: &ClientCapabilities{}, ClientInfo: &Implementation{Name: "c", Version: "1"}}
	b, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	if string(b) != want {
		t.Errorf("MarshalJSON = %s, want %s", b, want)
	}
	var back RequestMeta
	if err := back.UnmarshalJSON([]byte(` { "io.modelcontextprotocol/clientCapabilities" : { } ,"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("UnmarshalJSON = %+v, want %+v", back, m)
	}
	for _, meta := range []Meta{
		{MetaKeyServerInfo: Implementation{Name: "s", Version: "2"}},
		{MetaKeyServerInfo: &Implementation{Name: "s", Version: "2"}},
		{MetaKeyServerInfo: (*Implementation)(nil)},
		{MetaKeyServerInfo: "x", "other": 1},
	} {
		got, err := appendMeta(nil, meta)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(meta)
		var g, w any
		json.Unmarshal(got, &g)
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("appendMeta(%v) = %s, encoding/json writes %s", meta, got, want)
		}
	}
}

// TestEnvelopeSplicesTheSameBytes checks that a stamped RequestMeta
// encodes exactly as the same fields written one by one, with or without
// the members around the envelope, and that a field changed after Stamp
// is written as it now is.
func TestEnvelopeSplicesTheSameBytes(t *testing.T) {
	caps := &ClientCapabilities{Roots: &RootsCapability{}}
	info := &Implementation{Name: "c", Title: "The \"C\"", Version: "1"}
	env, err := NewEnvelope(Latest, caps, info)
	if err != nil {
		t.Fatal(err)
	}
	other := &ClientCapabilities{}
	for _, tc := range []struct {
		name  string
		setup func(m *RequestMeta) // before Stamp
		after func(m *RequestMeta) // after Stamp
	}{
		{name: "alone"},
		{name: "progress token", setup: func(m *RequestMeta) { m.ProgressToken = jsonrpc.StringID("p1") }},
		{name: "log level and other keys", setup: func(m *RequestMeta) {
			m.LogLevel = LevelInfo
			m.Other = map[string]json.RawMessage{"traceparent": json.RawMessage(`"00-x"`), "a/b": json.RawMessage(`{}`)}
		}},
		{name: "caller's capabilities", setup: func(m *RequestMeta) { m.ClientCapabilities = other }},
		{name: "version changed after", after: func(m *RequestMeta) { m.ProtocolVersion = "2099-01-01" }},
		{name: "info dropped after", after: func(m *RequestMeta) { m.ClientInfo = nil }},
	} {
		var m RequestMeta
		if tc.setup != nil {
			tc.setup(&m)
		}
		env.Stamp(&m)
		if tc.after != nil {
			tc.after(&m)
		}
		got, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		plain := m
		plain.link = nil
		want, err := plain.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: stamped meta encodes as %s, field by field as %s", tc.name, got, want)
		}
		var back RequestMeta
		if err := back.UnmarshalJSON(got); err != nil {
			t.Errorf("%s: %s does not decode: %v", tc.name, got, err)
		}
	}
	if _, err := NewEnvelope(Latest, nil, info); err == nil {
		t.Error("NewEnvelope without capabilities: no error")
	}
}

// TestEnvelopeCodecAllocations holds the envelope's codec to its cost: a
// stamped request's _meta is appended without allocating, and the
// envelope a server reads costs two allocations.
func TestEnvelopeCodecAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	env, err := NewEnvelope(Latest, &ClientCapabilities{}, &Implementation{Name: "bench-client", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	var m RequestMeta
	env.Stamp(&m)
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() { m.appendJSON(buf[:0]) }); n != 0 {
		t.Errorf("appending a stamped _meta: %v allocations, want 0", n)
	}
	raw, _ := m.MarshalJSON()
	var back RequestMeta
	if n := testing.AllocsPerRun(100, func() { back.UnmarshalJSON(raw) }); n > 2 {
		t.Errorf("decoding the envelope: %v allocations, want at most 2", n)
	}
	if back.ProtocolVersion != Latest || !reflect.DeepEqual(*back.ClientInfo, Implementation{Name: "bench-client", Version: "1"}) || back.ClientCapabilities == nil {
		t.Errorf("decoded %+v", back)
	}
}

// TestBufferSizeHints checks that the tools/call codecs size their buffer
// for the common shapes closely (the size class of that buffer is a cost
// of every call) and never too small.
func TestBufferSizeHints(t *testing.T) {
	env, _ := NewEnvelope(Latest, &ClientCapabilities{}, &Implementation{Name: "bench-client", Version: "1"})
	text := strings.Repeat("x", 100)
	p := &CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"` + text + `"}`)}
	legacy := *p
	env.Stamp(&p.Meta)
	withState := *p
	withState.RequestState = "abc.def"
	info := Implementation{Name: "bench", Version: "1"}
	for name, a := range map[string]interface {
		AppendJSON([]byte) ([]byte, error)
	}{
		"legacy params":     &legacy,
		"modern params":     p,
		"params with state": &withState,
		"legacy result":     &CallToolResult{Content: ContentList{&TextContent{Text: text}}},
		"modern result":     &CallToolResult{Content: ContentList{&TextContent{Text: text}}, ResultType: ResultTypeComplete, Meta: Meta{MetaKeyServerInfo: info}},
		"structured result": &CallToolResult{Content: ContentList{&TextContent{Text: text}}, StructuredContent: json.RawMessage(`{"a":1}`), IsError: true, Meta: Meta{MetaKeyServerInfo: &info}},
	} {
		b, err := a.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if slack := cap(b) - len(b); slack < 0 || slack > 16 {
			t.Errorf("%s: %d bytes in a buffer of %d", name, len(b), cap(b))
		}
	}
}
