package jsonschema

import (
	"encoding/json"
	"testing"
)

func TestApplyDefaults(t *testing.T) {
	s := MustCompile(`{"type":"object","properties":{"a":{"type":"string","default":"x"},"b":{"type":"integer","default":3},"c":{"type":"boolean"},"d":{"type":"object","properties":{"e":{"default":1}}}}}`)
	for _, tc := range []struct{ in, want string }{
		{`{}`, `{"a":"x","b":3}`},
		{`{"a":"y"}`, `{"a":"y","b":3}`},
		{`{ "c" : true }`, `{ "c" : true ,"a":"x","b":3}`},
		{`{"\u0061":"z"}`, `{"\u0061":"z","b":3}`},
		{`{"a":null,"b":1}`, `{"a":null,"b":1}`},
		{`{"d":{}}`, `{"d":{},"a":"x","b":3}`},
		{`[1]`, `[1]`},
		{` "s" `, ` "s" `},
	} {
		got, err := s.ApplyDefaults(json.RawMessage(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("ApplyDefaults(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
		if json.Valid([]byte(tc.in)) && !json.Valid(got) {
			t.Errorf("ApplyDefaults(%s) made invalid JSON %s", tc.in, got)
		}
	}
	if _, err := s.ApplyDefaults(json.RawMessage(`{"a":`)); err == nil {
		t.Error("malformed instance: no error")
	}
	plain := MustCompile(`{"type":"object"}`)
	in := json.RawMessage(`{"x":1}`)
	if out, err := plain.ApplyDefaults(in); err != nil || &out[0] != &in[0] {
		t.Error("a schema without defaults should return the instance itself")
	}
}
