package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestResultEnvelope reads the envelope of modern results and decodes
// them without the server's info, by the hand-written codec and by
// encoding/json.
func TestResultEnvelope(t *testing.T) {
	const info = `{"name":"s","version":"1"}`
	for _, tc := range []struct {
		name, in string
		typ      ResultType
		info     string
		meta     Meta // of the decoded CallToolResult and ListToolsResult
	}{
		{"legacy", `{"content":[],"tools":[]}`, ResultTypeComplete, "", nil},
		{"info alone", `{"content":[],"tools":[],"_meta":{"io.modelcontextprotocol/serverInfo":` + info + `},"resultType":"complete"}`, ResultTypeComplete, info, nil},
		{"info and more", `{"resultType":"complete","content":[],"tools":[],"_meta":{"a":"b","io.modelcontextprotocol/serverInfo":` + info + `}}`, ResultTypeComplete, info, Meta{"a": "b"}},
		{"no info", `{"content":[],"tools":[],"_meta":{"a":1}}`, ResultTypeComplete, "", Meta{"a": 1.0}},
		{"null info", `{"content":[],"tools":[],"_meta":{"io.modelcontextprotocol/serverInfo":null}}`, ResultTypeComplete, "", Meta{MetaKeyServerInfo: nil}},
		{"input required", `{"resultType":"input_required","inputRequests":{}}`, ResultTypeInputRequired, "", nil},
	} {
		env, err := ReadResultEnvelope([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if env.Type != tc.typ || string(env.ServerInfo) != tc.info {
			t.Errorf("%s: envelope %q, %s; want %q, %s", tc.name, env.Type, env.ServerInfo, tc.typ, tc.info)
		}
		if tc.typ != ResultTypeComplete {
			continue
		}
		var ct CallToolResult
		if err := env.Decode([]byte(tc.in), &ct); err != nil || !reflect.DeepEqual(ct.Meta, tc.meta) {
			t.Errorf("%s: CallToolResult Meta %#v, %v; want %#v", tc.name, ct.Meta, err, tc.meta)
		}
		var lt ListToolsResult
		if err := env.Decode([]byte(tc.in), &lt); err != nil || !reflect.DeepEqual(lt.Meta, tc.meta) {
			t.Errorf("%s: ListToolsResult Meta %#v, %v; want %#v", tc.name, lt.Meta, err, tc.meta)
		}
		// A type without a Meta field decodes as it is.
		var other struct{ ResultType ResultType }
		if err := env.Decode([]byte(tc.in), &other); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	for _, bad := range []string{`{"resultType":1}`, `{"_meta":[]}`, `[]`} {
		if _, err := ReadResultEnvelope([]byte(bad)); err == nil {
			t.Errorf("ReadResultEnvelope(%s): no error", bad)
		}
	}
}

// TestResultEnvelopeKeepsTheRestOfTheResult checks that a result decoded
// through its envelope equals the one encoding/json gives, but for the
// server's info.
func TestResultEnvelopeKeepsTheRestOfTheResult(t *testing.T) {
	in := []byte(`{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":1},"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"resultType":"complete"}`)
	env, err := ReadResultEnvelope(in)
	if err != nil {
		t.Fatal(err)
	}
	var got, want CallToolResult
	if err := env.Decode(in, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(in, &want); err != nil {
		t.Fatal(err)
	}
	want.Meta = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
}
