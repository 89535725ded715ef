package client_test

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// TestModernResultsLeaveServerInfoToTheSession: a modern client takes the
// server's info out of each result's _meta (as the server takes the
// client's envelope out of each request's) and keeps it for the session;
// the other _meta keys stay, and a result that describes the server
// differently updates ServerInfo.
func TestModernResultsLeaveServerInfoToTheSession(t *testing.T) {
	var renamed atomic.Bool
	rename := func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			res, err := next.Handle(ctx, req)
			if r, ok := res.(*mcp.CallToolResult); ok && renamed.Load() {
				c := *r
				c.Meta = mcp.Meta{mcp.MetaKeyServerInfo: mcp.Implementation{Name: "s", Version: "2"}}
				return &c, err
			}
			return res, err
		})
	}
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Middleware: []jsonrpc.Middleware{rename}})
	t.Cleanup(func() { srv.Close() })
	err := errors.Join(
		server.AddTool(srv, &mcp.Tool{Name: "plain"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
			return "ok", nil
		}),
		srv.AddTool(&mcp.Tool{Name: "meta", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: mcp.ContentList{&mcp.TextContent{Text: "ok"}}, Meta: mcp.Meta{"x": "y"}}, nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	cs := dialTasks(t, srv, nil)
	ctx := context.Background()
	if !cs.IsModern() {
		t.Fatal("the session is not modern")
	}
	want := mcp.Implementation{Name: "s", Version: "1"}
	if got := cs.ServerInfo(); !reflect.DeepEqual(got, want) {
		t.Fatalf("ServerInfo after connecting = %+v, want %+v", got, want)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Meta != nil || res.ResultType != mcp.ResultTypeComplete {
		t.Errorf("plain result: Meta %v, resultType %q; want no Meta, complete", res.Meta, res.ResultType)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "meta"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Meta, mcp.Meta{"x": "y"}) {
		t.Errorf("result with its own _meta: Meta %v, want only x", res.Meta)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if list.Meta != nil {
		t.Errorf("tools/list result: Meta %v, want none", list.Meta)
	}
	renamed.Store(true)
	if res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "plain"}); err != nil || res.Meta != nil {
		t.Fatalf("renamed: Meta %v, %v", res.Meta, err)
	}
	want.Version = "2"
	if got := cs.ServerInfo(); !reflect.DeepEqual(got, want) {
		t.Errorf("ServerInfo after a result that says otherwise = %+v, want %+v", got, want)
	}
}
