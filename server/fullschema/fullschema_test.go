package fullschema_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	_ "github.com/mcpwire/mcpwire/server/fullschema"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// With the import, the schemas server's TestAddToolRefusesSchemasThatNeedTheFullEngine
// sees refused are accepted, and arguments are validated against them.
func TestTheImportEnablesEveryKeyword(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	handler := func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}
	strict := `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`
	if err := s.AddTool(&mcp.Tool{Name: "strict", InputSchema: json.RawMessage(strict)}, handler); err != nil {
		t.Fatal(err)
	}
	if err := s.AddTool(&mcp.Tool{Name: "anchored", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"$defs":{"a":{"$anchor":"a"}},"$ref":"#a"}`)}, handler); err != nil {
		t.Fatal(err)
	}

	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.New(mcp.Implementation{Name: "test-client", Version: "0.1"}, nil).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close(); ss.Wait() })

	for _, tc := range []struct {
		args    string
		wantErr string
	}{
		{`{"a":"x"}`, ""},
		{`{"a":"x","b":1}`, `unexpected property "b"`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "strict", Arguments: json.RawMessage(tc.args)})
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		if len(res.Content) > 0 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		if res.IsError != (tc.wantErr != "") || !strings.Contains(text, tc.wantErr) {
			t.Errorf("strict(%s) = isError %v, %q; want an error containing %q", tc.args, res.IsError, text, tc.wantErr)
		}
	}
}
