package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNewCallToolParams(t *testing.T) {
	for _, tc := range []struct {
		name string
		args any
		want string // the arguments as encoded, "" for none
	}{
		{"nil", nil, ""},
		{"raw kept as it is", json.RawMessage(`{ "a" : 1 }`), `{ "a" : 1 }`},
		{"map", map[string]int{"a": 1}, `{"a":1}`},
		{"struct", struct {
			City string `json:"city"`
		}{"Paris"}, `{"city":"Paris"}`},
	} {
		p, err := NewCallToolParams("t", tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.Name != "t" || string(p.Arguments) != tc.want {
			t.Errorf("%s: got name %q arguments %q, want %q", tc.name, p.Name, p.Arguments, tc.want)
		}
	}
	_, err := NewCallToolParams("greet", func() {})
	if err == nil || !strings.Contains(err.Error(), `encoding the arguments of tool "greet"`) {
		t.Errorf("arguments that do not encode: %v", err)
	}
}
