package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzScanner feeds arbitrary bytes to everything that reads JSON with the
// package's own scanner: none may panic, and on valid objects the results
// must agree with encoding/json.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"_meta":{"progressToken":1}}`, `{"type":"text","text":"a"}`,
		`{"a":"\"}","b":[{"c":"]"}],"_meta":{"k":"v\\"}}`, `[1,2]`, `{"a":1`, `{"a" 1}`,
		`{"resultType":"task"}`, ` {"x" : [ ] , "y":null } `, `"`, `{"\u005fmeta":{}}`,
		`{"name":"c","title":"T","version":"1","description":"d","websiteUrl":"u"}`,
	} {
		f.Add([]byte(s))
	}
	const defaults = `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`
	f.Fuzz(func(t *testing.T, data []byte) {
		DecodeRequestMeta(data)
		UnmarshalContent(data)
		ResultTypeOf(data)
		if env, err := ReadResultEnvelope(data); err == nil && json.Valid(data) {
			var r CallToolResult
			if env.Decode(data, &r) == nil && r.Meta[MetaKeyServerInfo] != nil {
				t.Fatalf("%s: the server's info stays in the decoded result", data)
			}
		}
		var l ContentList
		l.UnmarshalJSON(data)
		var m RequestMeta
		m.UnmarshalJSON(data)
		if json.Valid(data) {
			// The client info codec slices one string: it must still
			// give what encoding/json gives.
			var got, want Implementation
			gerr := decodeImplementation(data, "", &got)
			werr := json.Unmarshal(data, &want)
			if (gerr == nil) != (werr == nil) || gerr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeImplementation(%s) = %+v, %v; encoding/json: %+v, %v", data, got, gerr, want, werr)
			}
		}
		out, err := AddDefaultMembers(data, []byte(defaults))
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) == nil && obj != nil {
			if err != nil {
				t.Fatalf("AddDefaultMembers(%s): %v", data, err)
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("AddDefaultMembers(%s) = invalid %s", data, out)
			}
			if _, ok := got["resultType"]; !ok {
				t.Fatalf("AddDefaultMembers(%s) = %s: no resultType", data, out)
			}
		}
	})
}
