package otel

import (
	"bytes"
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

var w3cKeys = []string{"traceparent", "tracestate", "baggage"}

const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func traceCarrier() *carrier {
	c := &carrier{keys: w3cKeys}
	c.Set("traceparent", tp)
	c.Set("baggage", "userId=alice")
	return c
}

func TestInjectMeta(t *testing.T) {
	for _, tc := range []struct{ params, want string }{
		{``, `{"_meta":{"traceparent":"` + tp + `","baggage":"userId=alice"}}`},
		{`null`, `{"_meta":{"traceparent":"` + tp + `","baggage":"userId=alice"}}`},
		{`{}`, `{"_meta":{"traceparent":"` + tp + `","baggage":"userId=alice"}}`},
		{` { } `, ` {"_meta":{"traceparent":"` + tp + `","baggage":"userId=alice"} } `},
		{`{"name":"x"}`, `{"_meta":{"traceparent":"` + tp + `","baggage":"userId=alice"},"name":"x"}`},
		{`{"name":"x","_meta":{}}`, `{"name":"x","_meta":{"traceparent":"` + tp + `","baggage":"userId=alice"}}`},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}`,
			`{"_meta":{"traceparent":"` + tp + `","baggage":"userId=alice","io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x"}`},
		// The caller's own trace context is kept, and never written twice.
		{`{"_meta":{"traceparent":"00-caller"}}`, `{"_meta":{"baggage":"userId=alice","traceparent":"00-caller"}}`},
		{`{"_meta":{"traceparent":"a","baggage":"b"}}`, `{"_meta":{"traceparent":"a","baggage":"b"}}`},
		{`{"_meta":{"trace\u0070arent":"a","baggage":"b"}}`, `{"_meta":{"trace\u0070arent":"a","baggage":"b"}}`},
		// What is not an object, or whose _meta is not one, is left alone.
		{`[1,2]`, `[1,2]`},
		{`{"_meta":null}`, `{"_meta":null}`},
		{`{"_meta":"x"}`, `{"_meta":"x"}`},
		{`{"a":`, `{"a":`},
	} {
		got := string(injectMeta([]byte(tc.params), traceCarrier()))
		if got != tc.want {
			t.Errorf("injectMeta(%s)\n got %s\nwant %s", tc.params, got, tc.want)
		}
	}
}

func TestReadParams(t *testing.T) {
	params := `{"name":"get_weather","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","trace\u0070arent":"` + tp + `","tracestate":"a=1","other":{"traceparent":"no"}},"arguments":{"name":"no","_meta":{}}}`
	var info paramsInfo
	info.carrier.keys = w3cKeys
	readParams([]byte(params), wanted("tools/call"), &info)
	if str(info.name) != "get_weather" || info.version != "2026-07-28" || info.carrier.Get("traceparent") != tp || info.carrier.Get("tracestate") != "a=1" || info.carrier.Get("baggage") != "" {
		t.Errorf("readParams: %+v", info)
	}
	info = paramsInfo{}
	readParams([]byte(`{"uri":"file:///a%20b","name":"n"}`), wanted("resources/read"), &info)
	if info.uri != "file:///a%20b" || info.name != nil {
		t.Errorf("readParams of resources/read: %+v", info)
	}
}

// FuzzInjectMeta checks injectMeta against encoding/json: on valid JSON
// params its result is valid JSON, with no key written twice, that holds
// the params' members and, in an object _meta, the trace context where
// the params had none of their own.
func FuzzInjectMeta(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"name":"x"}`, `{"_meta":{}}`, `{"_meta":{"traceparent":"y"}}`,
		`{"a":[1,{"_meta":2}],"_meta":{"k":"\u00e9"}}`, `[]`, `{"_meta":null}`, ` {"b" : true , "_meta" : { "x":1 } } `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		got := injectMeta(params, traceCarrier())
		trimmed := bytes.Trim(params, " \t\r\n") // JSON whitespace
		absent := len(trimmed) == 0 || string(trimmed) == "null"
		if !absent && jsonrpc.Valid(params, nil) != nil {
			return // never reaches a middleware: the decoder refuses it
		}
		if err := jsonrpc.Valid(got, nil); err != nil {
			t.Fatalf("injectMeta(%q) = %q: %v", params, got, err)
		}
		var before, after map[string]json.RawMessage
		if !absent && (json.Unmarshal(params, &before) != nil || before == nil) {
			if !bytes.Equal(got, params) {
				t.Fatalf("injectMeta changed params that are not an object: %q → %q", params, got)
			}
			return
		}
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatalf("injectMeta(%q) = %q: %v", params, got, err)
		}
		var metaBefore map[string]json.RawMessage
		if m, ok := before["_meta"]; ok && (json.Unmarshal(m, &metaBefore) != nil || metaBefore == nil) {
			if !bytes.Equal(got, params) {
				t.Fatalf("injectMeta changed params whose _meta is not an object: %q → %q", params, got)
			}
			return
		}
		var metaAfter map[string]json.RawMessage
		json.Unmarshal(after["_meta"], &metaAfter)
		delete(before, "_meta")
		delete(after, "_meta")
		if !maps.EqualFunc(before, after, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
			t.Fatalf("injectMeta(%q) = %q: the other members changed", params, got)
		}
		for k, v := range metaBefore {
			if !bytes.Equal(metaAfter[k], v) {
				t.Fatalf("injectMeta(%q) = %q: _meta[%q] changed", params, got, k)
			}
		}
		for _, k := range []string{"traceparent", "baggage"} {
			if _, had := metaBefore[k]; !had && len(metaAfter[k]) == 0 {
				t.Fatalf("injectMeta(%q) = %q: no %s", params, got, k)
			}
		}
	})
}

// FuzzReadParams checks readParams against encoding/json on valid params.
func FuzzReadParams(f *testing.F) {
	for _, s := range []string{`{"name":"a","uri":"b","_meta":{"traceparent":"c","io.modelcontextprotocol/protocolVersion":"d"}}`,
		`{"n\u0061me":"\ud83d\ude00","_meta":{"baggage":"x\"y"}}`, `{"name":1}`, `[]`, `{"_meta":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		var info paramsInfo
		info.carrier.keys = w3cKeys
		readParams(params, wantName|wantURI|wantMeta, &info)
		if jsonrpc.Valid(params, nil) != nil {
			return
		}
		var exact map[string]json.RawMessage
		if json.Unmarshal(params, &exact) != nil {
			return
		}
		str := func(raw []byte) string {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return ""
			}
			return s
		}
		var meta map[string]json.RawMessage
		json.Unmarshal(exact["_meta"], &meta)
		version := str(meta["io.modelcontextprotocol/protocolVersion"])
		if !mcp.IsSupported(mcp.Version(version)) {
			version = ""
		}
		if str(info.name) != str(exact["name"]) || info.uri != str(exact["uri"]) || info.version != version ||
			info.carrier.Get("traceparent") != str(meta["traceparent"]) || info.carrier.Get("baggage") != str(meta["baggage"]) {
			t.Fatalf("readParams(%q) = %+v", params, info)
		}
	})
}

// TestSpanNameCacheIsBounded has a peer call 2,000 tools of 10 kB names
// (unknown ones: the names are cached before the server looks): the
// cache of span names kept 1,024 of them whole, 20 MB, for as long as
// the instrumentation lives. It keeps only names within the bound.
func TestSpanNameCacheIsBounded(t *testing.T) {
	var c spanNames
	for i := range 2000 {
		name := `"` + strings.Repeat("x", 10_000) + strconv.Itoa(i) + `"`
		c.get(mcp.MethodCallTool, []byte(name))
	}
	total := 0
	for k, v := range c.tools {
		total += len(k) + len(v)
	}
	if total > maxCached*(2*1024+len(mcp.MethodCallTool)+1) {
		t.Errorf("the cache holds %d bytes of names", total)
	}
}
