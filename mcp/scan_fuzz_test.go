package mcp

import (
	"encoding/json"
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
	} {
		f.Add([]byte(s))
	}
	const defaults = `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`
	f.Fuzz(func(t *testing.T, data []byte) {
		DecodeRequestMeta(data)
		UnmarshalContent(data)
		ResultTypeOf(data)
		var l ContentList
		l.UnmarshalJSON(data)
		var m RequestMeta
		m.UnmarshalJSON(data)
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
