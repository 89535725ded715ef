package client

import (
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestOutputSchemaCompiled: a schema the client cannot check against
// without linking something is relayed unchecked (no schema, no error);
// one that refers to another document is refused (an error, nothing
// fetched), and so is an invalid one; a valid one compiles once.
func TestOutputSchemaCompiled(t *testing.T) {
	for _, tc := range []struct {
		schema            string
		compiled, invalid bool
	}{
		{`{"type":"object"}`, true, false},
		{`{"$ref":"https://example.com/schema.json"}`, false, true},
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, false, false},
		{`{"type":5}`, false, true},
		{`{"type":"object"`, false, true},
	} {
		o := &outputSchema{raw: json.RawMessage(tc.schema)}
		s, err := o.compiled()
		if (s != nil) != tc.compiled || (err != nil) != tc.invalid {
			t.Errorf("%s: %v, %v", tc.schema, s, err)
		}
		if s2, _ := o.compiled(); s2 != s {
			t.Errorf("%s: compiled twice", tc.schema)
		}
	}
}

// TestToolCacheBounded: past its bound, the cache remembers no new tool
// until tools/list_changed makes the old ones stale.
func TestToolCacheBounded(t *testing.T) {
	c := &toolCache{max: 2}
	out := json.RawMessage(`{"type":"object"}`)
	for _, name := range []string{"a", "b", "c"} {
		c.learn(&mcp.Tool{Name: name, OutputSchema: out}, false)
	}
	if c.output("a") == nil || c.output("b") == nil || c.output("c") != nil {
		t.Fatalf("bounded to 2: %v", c.tools)
	}
	c.learn(&mcp.Tool{Name: "a", OutputSchema: out}, false) // known: replaced
	c.invalidate()
	if c.output("a") != nil {
		t.Error("a stale schema is still used")
	}
	c.learn(&mcp.Tool{Name: "c", OutputSchema: out}, false)
	if c.output("c") == nil || len(c.tools) != 1 {
		t.Errorf("after list_changed, stale tools make room: %v", c.tools)
	}
	c.learn(&mcp.Tool{Name: "c"}, false) // no schema any more
	if _, ok := c.tools["c"]; ok {
		t.Error("a tool without schemas is kept")
	}
}
