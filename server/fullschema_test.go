package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// strictSchema needs the full JSON Schema engine: unevaluatedProperties
// sees through allOf, which the built-in engine does not implement.
const strictSchema = `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`

func noop(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{}, nil
}

// This test binary does not link the full engine (nothing in it imports
// server/fullschema), as a server that does not ask for it. The tests of
// server/fullschema check that importing it makes the same schemas work.
func TestAddToolRefusesSchemasThatNeedTheFullEngine(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	err := s.AddTool(&mcp.Tool{Name: "strict", InputSchema: json.RawMessage(strictSchema)}, noop)
	want := `mcp server: tool "strict": input schema: jsonschema: "unevaluatedProperties" needs the full JSON Schema engine: import _ "github.com/mcpwire/mcpwire/server/fullschema"`
	if err == nil || err.Error() != want {
		t.Errorf("AddTool error =\n%v\nwant\n%s", err, want)
	}
	if !errors.Is(err, server.ErrNeedsFullSchemaEngine) {
		t.Errorf("%v does not wrap ErrNeedsFullSchemaEngine", err)
	}
	err = s.AddTool(&mcp.Tool{Name: "dynamic", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"$dynamicAnchor":"a","items":{"$dynamicRef":"#a"}}`)}, noop)
	if !errors.Is(err, server.ErrNeedsFullSchemaEngine) || !strings.Contains(err.Error(), `output schema: jsonschema: "$dynamicAnchor" needs the full JSON Schema engine`) {
		t.Errorf("output schema with a dynamic anchor: %v", err)
	}
	// $anchor is the built-in engine's.
	if err := s.AddTool(&mcp.Tool{Name: "anchored", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"$defs":{"a":{"$anchor":"a"}},"$ref":"#a"}`)}, noop); err != nil {
		t.Errorf("output schema with an anchor: %v", err)
	}
}

// Without the full engine, schemas are still checked against their
// meta-schema at registration.
func TestAddToolChecksSchemasWithoutTheFullEngine(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"n":{"type":"int"}}}`, `not a valid schema: #/properties/n/type:`},
		{`{"type":"object","properties":{"n":{"pattern":"("}}}`, `#/properties/n/pattern: string "(" is not a valid regex`},
		{`{"type":"object","required":"n"}`, `#/required: expected array, got string "n"`},
	} {
		err := s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(tc.schema)}, noop)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, server.ErrNeedsFullSchemaEngine) {
			t.Errorf("AddTool(%s) error = %v, want %q", tc.schema, err, tc.want)
		}
	}
	if err := s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"]}`)}, noop); err != nil {
		t.Errorf("a valid schema: %v", err)
	}
}
