package streamable_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// A server that is shut down refuses new sessions and modern requests,
// and the handler says so: 503 with a JSON-RPC error whose code is not 0.
// The standalone GET stream of a legacy session ends with the session.
func TestHandlerRefusesForAClosedServer(t *testing.T) {
	e := start(t, nil)
	sid := e.initialize("2025-11-25")
	get := e.do(http.MethodGet, func() http.Header {
		h := legacy(sid)
		h["Accept"] = []string{"text/event-stream"}
		return h
	}(), "")
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	ended := make(chan error, 1)
	go func() {
		r := sse.NewReader(get.Body, 1<<20)
		for {
			if _, err := r.Next(); err != nil {
				ended <- err
				return
			}
		}
	}()
	if err := e.srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case <-ended:
		get.Body.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("the standalone GET stream did not end with its session")
	}

	resp := e.post(http.Header{}, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	msgs := readMessages(t, resp)
	if resp.StatusCode != http.StatusServiceUnavailable || len(msgs) != 1 || errCode(msgs[0]) != int(jsonrpc.CodeConnectionClosed) {
		t.Errorf("initialize on a closed server: %d %v, want 503 and code -32000", resp.StatusCode, msgs)
	}
	resp = e.post(modern(mcp.MethodListTools, ""), `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{`+validMeta+`}}`)
	msgs = readMessages(t, resp)
	if resp.StatusCode != http.StatusServiceUnavailable || len(msgs) != 1 || errCode(msgs[0]) != int(jsonrpc.CodeConnectionClosed) || msgs[0]["id"] != 5.0 {
		t.Errorf("modern request on a closed server: %d %v, want 503 and code -32000 with its id", resp.StatusCode, msgs)
	}
}

// A modern request beyond the server's MaxStatelessRequests gets 503 with
// Retry-After and CodeOverloaded.
func TestModernOverloadIs503(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "busy", Version: "1"}, &server.Options{MaxStatelessRequests: 1})
	started, release := make(chan struct{}), make(chan struct{})
	server.AddTool(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		close(started)
		<-release
		return "released", nil
	})
	e := startWith(t, srv, nil)
	first := make(chan *http.Response, 1)
	go func() {
		first <- e.post(modern(mcp.MethodCallTool, "block"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{},`+validMeta+`}}`)
	}()
	<-started
	resp := e.post(modern(mcp.MethodCallTool, "block"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{},`+validMeta+`}}`)
	msgs := readMessages(t, resp)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		len(msgs) != 1 || errCode(msgs[0]) != int(jsonrpc.CodeOverloaded) || msgs[0]["id"] != 2.0 {
		t.Errorf("a request beyond MaxStatelessRequests: %d Retry-After %q %v, want 503, Retry-After and -32005",
			resp.StatusCode, resp.Header.Get("Retry-After"), msgs)
	}
	close(release)
	r := <-first
	if msgs := readMessages(t, r); r.StatusCode != http.StatusOK || resultText(msgs[0]) != "released" {
		t.Errorf("the admitted request: %d %v", r.StatusCode, msgs)
	}
}
