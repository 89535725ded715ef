package talk

import (
	"encoding/json"
	"testing"
)

func TestSchemaArguments(t *testing.T) {
	schema := `{
	  "type": "object",
	  "properties": {
	    "z": {"type": "string", "description": "comes first\n  as written"},
	    "a": {"type": ["integer", "null"]},
	    "list": {"type": "array", "items": {"type": ["string", "number"]}},
	    "point": {"$ref": "#/$defs/Point"},
	    "either": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "string"}]},
	    "color": {"enum": ["red", "green"], "default": "red"},
	    "kind": {"const": "fixed", "title": "Kind"},
	    "anything": true,
	    "html": {"type": "string", "default": "<b>"}
	  },
	  "required": ["a", "kind"]
	}`
	want := []argument{
		{"z", "string", false, "comes first as written"},
		{"a", "integer|null", true, ""},
		{"list", "(string|number)[]", false, ""},
		{"point", "Point", false, ""},
		{"either", "string|integer", false, ""},
		{"color", "string", false, `(one of: "red", "green"; default: "red")`},
		{"kind", "string", true, `Kind (always "fixed")`},
		{"anything", "any", false, ""},
		{"html", "string", false, `(default: "<b>")`},
	}
	got := schemaArguments(json.RawMessage(schema))
	if len(got) != len(want) {
		t.Fatalf("got %d arguments, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("argument %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestSchemaArgumentsNone(t *testing.T) {
	for _, s := range []string{``, `{"type":"object"}`, `{"type":"object","properties":{}}`, `not json`, `{"properties":[1]}`} {
		if got := schemaArguments(json.RawMessage(s)); len(got) != 0 {
			t.Errorf("%s: got %+v", s, got)
		}
	}
}
