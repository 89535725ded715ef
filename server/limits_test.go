package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// Regression tests of issue 9, defect 6: modern requests bypassed every
// bound of the engine, and some limits were constants without an option.

// blockingServer returns a server whose tool "block" runs until release is
// closed; started gets a value as each call starts.
func blockingServer(opts *server.Options) (srv *server.Server, started chan struct{}, release chan struct{}) {
	srv = server.New(mcp.Implementation{Name: "limits", Version: "1"}, opts)
	started, release = make(chan struct{}, 100), make(chan struct{})
	server.AddTool(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		started <- struct{}{}
		<-release
		return "released", nil
	})
	return srv, started, release
}

func callBlock(id int64) *jsonrpc.Request {
	return modernRequest(id, mcp.MethodCallTool, map[string]any{"name": "block", "arguments": map[string]any{}})
}

// TestStatelessRequestsAreBounded: ServeStateless ran every modern request
// it was given at once, whatever Options.MaxConcurrency said. Now at most
// MaxStatelessRequests run; one more is refused at once with
// CodeOverloaded, and served again once there is room.
func TestStatelessRequestsAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const limit = 3
		srv, started, release := blockingServer(&server.Options{MaxStatelessRequests: limit})
		defer srv.Close()
		answers := make(chan *jsonrpc.Response, limit)
		for i := range limit {
			go func() { answers <- srv.ServeStateless(context.Background(), callBlock(int64(i)), nopWriter{}) }()
			<-started
		}
		resp := srv.ServeStateless(context.Background(), callBlock(99), nopWriter{})
		if resp == nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeOverloaded {
			t.Fatalf("request %d beyond MaxStatelessRequests %d: %+v, want CodeOverloaded", limit+1, limit, resp)
		}
		close(release)
		for range limit {
			if r := <-answers; r.Error != nil {
				t.Errorf("an admitted request failed: %v", r.Error)
			}
		}
		go func() { <-started }()
		if r := srv.ServeStateless(context.Background(), callBlock(100), nopWriter{}); r.Error != nil {
			t.Errorf("a request once there is room again: %v", r.Error)
		}
	})
}

// Open listens count against MaxListeners, not MaxStatelessRequests: a
// server that allows one stateless request still serves one while a
// listen is open; the listen beyond MaxListeners is refused.
func TestListenersAreBoundedByTheirOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, started, release := blockingServer(&server.Options{MaxStatelessRequests: 1, MaxListeners: 1})
		close(release)
		defer srv.Close()
		listen := modernRequest(1, mcp.MethodSubscriptionsListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
		ended := make(chan *jsonrpc.Response, 1)
		go func() { ended <- srv.ServeStateless(context.Background(), listen, nopWriter{}) }()
		synctest.Wait()
		go func() { <-started }()
		if r := srv.ServeStateless(context.Background(), callBlock(2), nopWriter{}); r.Error != nil {
			t.Errorf("a call while a listen is open and MaxStatelessRequests is 1: %v", r.Error)
		}
		r := srv.ServeStateless(context.Background(), modernRequest(3, listen.Method, map[string]any{"notifications": map[string]any{}}), nopWriter{})
		if r.Error == nil || r.Error.Code != jsonrpc.CodeOverloaded {
			t.Errorf("a listen beyond MaxListeners 1: %+v, want CodeOverloaded", r)
		}
		srv.Close()
		if r := <-ended; r.Error != nil {
			t.Errorf("the open listen ended with %v", r.Error)
		}
	})
}

// MaxSubscriptions bounds the subscriptions of a legacy session and the
// resources a listen names.
func TestSubscriptionsAreBoundedByTheirOption(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "subs", Version: "1"}, &server.Options{MaxSubscriptions: 2})
	defer srv.Close()
	srv.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	p := dialNotes(t, srv, nil)
	ctx := context.Background()
	for i := range 2 {
		if err := p.conn.Call(ctx, mcp.MethodSubscribe, map[string]any{"uri": fmt.Sprint("test://", i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.conn.Call(ctx, mcp.MethodSubscribe, map[string]any{"uri": "test://0"}, nil); err != nil {
		t.Errorf("subscribing again to the same resource: %v", err)
	}
	err := p.conn.Call(ctx, mcp.MethodSubscribe, map[string]any{"uri": "test://3"}, nil)
	if jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidRequest {
		t.Errorf("a subscription beyond MaxSubscriptions: %v, want CodeInvalidRequest", err)
	}
	listen := modernRequest(1, mcp.MethodSubscriptionsListen, map[string]any{"notifications": map[string]any{
		"resourceSubscriptions": []string{"test://a", "test://b", "test://c"},
	}})
	if r := srv.ServeStateless(ctx, listen, nopWriter{}); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a listen naming more resources than MaxSubscriptions: %+v, want CodeInvalidParams", r)
	}
}

// A requestState larger than MaxRequestStateBytes is refused with a
// clear error, before any work on it.
func TestRequestStateIsBoundedByItsOption(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "state", Version: "1"}, &server.Options{MaxRequestStateBytes: 64})
	defer srv.Close()
	addTool(t, srv, "t")
	state := strings.Repeat("x", 65)
	r := srv.ServeStateless(context.Background(), modernRequest(1, mcp.MethodCallTool, map[string]any{"name": "t", "arguments": map[string]any{}, "requestState": state}), nopWriter{})
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "at most 64") {
		t.Errorf("a requestState of 65 bytes with MaxRequestStateBytes 64: %+v", r.Error)
	}
}
