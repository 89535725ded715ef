package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestReinitializeAfterSessionExpiry: the server loses a legacy HTTP
// session; the client's next request meets a 404, initializes again,
// restores its log level and subscriptions, and succeeds.
func TestReinitializeAfterSessionExpiry(t *testing.T) {
	var inits atomic.Int32
	count := func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == mcp.MethodInitialize {
				inits.Add(1)
			}
			return next.Handle(ctx, req)
		})
	}
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Middleware: []jsonrpc.Middleware{count}})
	server.AddTool(srv, &mcp.Tool{Name: "log", Description: "logs at two levels"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		r.Log(ctx, mcp.LevelDebug, "t", "debug")
		r.Log(ctx, mcp.LevelError, "t", "error")
		return "ok", nil
	})
	srv.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, Text: "r"}}}, nil
	})
	h := streamable.NewHandler(srv, nil)
	hs := httptest.NewServer(h)
	defer hs.Close()
	defer h.Close()

	logs := make(chan mcp.LoggingLevel, 16)
	updated := make(chan string, 4)
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
		Version:           mcp.LatestLegacy,
		OnLog:             func(ctx context.Context, p *mcp.LoggingMessageParams) { logs <- p.Level },
		OnResourceUpdated: func(ctx context.Context, uri string) { updated <- uri },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := c.Connect(ctx, streamable.NewTransport(hs.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if err := sess.SetLogLevel(ctx, mcp.LevelError); err != nil {
		t.Fatal(err)
	}
	if err := sess.Subscribe(ctx, "test://r"); err != nil {
		t.Fatal(err)
	}

	// The server forgets every session.
	for s := range srv.Sessions() {
		s.Close()
		s.Wait()
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "log"}); err != nil {
		t.Fatalf("the call after the server lost the session: %v", err)
	}
	if n := inits.Load(); n != 2 {
		t.Errorf("%d initialize requests, want 2 (the second after the 404)", n)
	}
	if got := <-logs; got != mcp.LevelError {
		t.Errorf("log level not restored: got a %s message first", got)
	}
	srv.ResourceUpdated("test://r")
	select {
	case uri := <-updated:
		if uri != "test://r" {
			t.Errorf("updated %s", uri)
		}
	case <-time.After(5 * time.Second):
		t.Error("the subscription was not restored")
	}
}

// TestReinitializeFailureKeepsBothCauses: when the server lost the
// session and the new handshake fails too, the error wraps both causes
// (reinit.go wrapped the second with %v, so that errors.Is and errors.As
// could not reach it).
func TestReinitializeFailureKeepsBothCauses(t *testing.T) {
	const codeRefused jsonrpc.Code = -32050
	var inits atomic.Int32
	refuseSecond := func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == mcp.MethodInitialize && inits.Add(1) > 1 {
				return nil, jsonrpc.NewError(codeRefused, "no second session")
			}
			return next.Handle(ctx, req)
		})
	}
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Middleware: []jsonrpc.Middleware{refuseSecond}})
	h := streamable.NewHandler(srv, nil)
	hs := httptest.NewServer(h)
	defer hs.Close()
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{Version: mcp.LatestLegacy}).Connect(ctx, streamable.NewTransport(hs.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for s := range srv.Sessions() {
		s.Close()
		s.Wait()
	}
	_, err = sess.ListTools(ctx, nil)
	if err == nil {
		t.Fatal("tools/list succeeded, with the session lost and a new one refused")
	}
	if !errors.Is(err, jsonrpc.NewError(codeRefused, "")) {
		t.Errorf("errors.Is does not reach the refused initialize through %v", err)
	}
	var hs404 *transport.HTTPStatusError
	if !errors.As(err, &hs404) || hs404.StatusCode != http.StatusNotFound {
		t.Errorf("errors.As does not reach the 404 through %v", err)
	}
}

// TestEraRemembered: a client that found a server legacy-only does not
// probe it for the modern era again.
func TestEraRemembered(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Versions: []mcp.Version{mcp.Version20251125, mcp.Version20250618}})
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	var probes atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(mcp.HeaderMethod) == mcp.MethodDiscover {
			probes.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil)
	ctx := context.Background()
	for i := range 3 {
		sess, err := c.Connect(ctx, streamable.NewTransport(hs.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		if sess.ProtocolVersion() != mcp.Version20251125 {
			t.Errorf("connection %d: %s", i, sess.ProtocolVersion())
		}
		sess.Close()
	}
	if n := probes.Load(); n != 1 {
		t.Errorf("%d modern probes, want 1", n)
	}
}
