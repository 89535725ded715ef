package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// Regression (issue 18): the resource middleware answered a valid
// JSON-RPC tools/call whose params it could not read for its scope
// decision ({"name":42}, no params, params an array) with HTTP 400 and an
// OAuth error body, so that the MCP server never answered it (mcpwire
// check failed jsonrpc.invalid-params on examples/oauth in both eras).
// Such a call names no tool: it needs the base scopes only, and the
// server answers it, in JSON-RPC (-32602 Invalid params).
func TestResourceMiddlewarePassesJSONRPCWhateverItsParams(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	if err := server.AddTool(srv, &mcp.Tool{Name: "delete"}, func(context.Context, *server.Request, struct{}) (string, error) { return "deleted", nil }); err != nil {
		t.Fatal(err)
	}
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	rs, err := auth.NewResourceServer(&auth.ResourceOptions{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://as.example.com"},
		Verifier: auth.TokenVerifierFunc(func(_ context.Context, tok string) (*auth.TokenInfo, error) {
			if tok != "basic" {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{Subject: "alice", Scopes: []string{"mcp:basic"}}, nil
		}),
		Scopes:     []string{"mcp:basic"},
		ToolScopes: map[string][]string{"delete": {"mcp:write"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	protected := rs.Middleware(h)
	envelope := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	post := func(body string) (int, string) {
		r := httptest.NewRequest(http.MethodPost, "https://mcp.example.com/mcp", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer basic")
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", "tools/call")
		w := httptest.NewRecorder()
		protected.ServeHTTP(w, r)
		b, _ := io.ReadAll(w.Result().Body)
		return w.Code, string(b)
	}
	for _, params := range []string{
		`,"params":{` + envelope + `,"name":42}`,
		`,"params":{` + envelope + `,"name":["delete"]}`,
		`,"params":{` + envelope + `,"name":null}`,
		`,"params":{` + envelope + `}`,
		`,"params":["delete"]`,
		``,
	} {
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call"` + params + `}`
		status, got := post(body)
		m, err := jsonrpc.Decode([]byte(got), nil)
		resp, ok := m.(*jsonrpc.Response)
		var je *jsonrpc.Error
		if err != nil || !ok || resp.ID != jsonrpc.Int64ID(7) || !errors.As(resp.Error, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("params %s: HTTP %d %s; want the server's JSON-RPC answer, -32602", params, status, got)
		}
	}
	// A call that names the tool still needs the tool's scope, whatever
	// the way its name is written.
	for _, name := range []string{`"delete"`, `"dele\u0074e"`} {
		body := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{` + envelope + `,"name":` + name + `}}`
		if status, got := post(body); status != http.StatusForbidden {
			t.Errorf("name %s: HTTP %d %s; want 403 insufficient_scope", name, status, got)
		}
	}
	// A body the middleware cannot read is still refused: it cannot tell
	// which tool the server would call.
	for _, body := range []string{`hello`, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a","name":"delete"}}`} {
		if status, got := post(body); status != http.StatusBadRequest || !json.Valid([]byte(got)) || !strings.Contains(got, `"invalid_request"`) {
			t.Errorf("body %s: HTTP %d %s; want 400 invalid_request", body, status, got)
		}
	}
}
