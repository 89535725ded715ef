package mcp

import (
	"encoding/json"
	"testing"
)

// TestStringsWithInvalidUTF8DecodeAsEncodingJSON: the member readers
// returned the raw bytes of a string without escapes, so invalid UTF-8
// came through unchanged, while the same string with an escape (decoded by
// encoding/json) read as U+FFFD. These readers serve UnmarshalJSON
// methods, which encoding/json calls on input it does not check for
// UTF-8: they now decode as encoding/json does.
func TestStringsWithInvalidUTF8DecodeAsEncodingJSON(t *testing.T) {
	rt, err := ResultTypeOf([]byte("{\"resultType\":\"t\xffask\"}"))
	if err != nil || rt != "t\ufffdask" {
		t.Errorf("ResultTypeOf = %q, %v; want %q", rt, err, "t\ufffdask")
	}
	meta := []byte("{\"io.modelcontextprotocol/clientInfo\":{\"name\":\"\xff\",\"version\":\"1\"},\"io.modelcontextprotocol/protocolVersion\":\"2026\xc3\"}")
	var m RequestMeta
	if err := json.Unmarshal(meta, &m); err != nil {
		t.Fatal(err)
	}
	var want struct {
		Info    Implementation `json:"io.modelcontextprotocol/clientInfo"`
		Version string         `json:"io.modelcontextprotocol/protocolVersion"`
	}
	if err := json.Unmarshal(meta, &want); err != nil {
		t.Fatal(err)
	}
	if m.ClientInfo == nil || m.ClientInfo.Name != want.Info.Name || string(m.ProtocolVersion) != want.Version {
		t.Errorf("decoded %+v, %q; encoding/json %+v, %q", m.ClientInfo, m.ProtocolVersion, want.Info, want.Version)
	}
}

// TestMembersOfMalformedObjectsAreRefused: a number or literal value was
// skipped up to the next delimiter without a look at it, so {"a":tru} and
// {"a":1"b":2} read as objects with one member.
func TestMembersOfMalformedObjectsAreRefused(t *testing.T) {
	for _, in := range []string{`{"a":tru}`, `{"a":1"b":2}`, `{"a":+1}`, `{"_meta":{"progressToken":0x10}}`} {
		if _, err := DecodeRequestMeta([]byte(in)); err == nil {
			t.Errorf("DecodeRequestMeta(%s) accepted it", in)
		}
	}
}
