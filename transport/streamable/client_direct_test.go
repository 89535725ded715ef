package streamable_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// The transport's own HTTP client sends calls to its http.Transport
// directly (sendCall); these tests hold it to what http.Client.Do did.

// TestDirectCallFollowsRedirect: a call to an endpoint that redirects
// (307, 308) is sent again to the new location, as Client.Do does.
func TestDirectCallFollowsRedirect(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		srv := newTestServer(t)
		h := streamable.NewHandler(srv, nil)
		var redirected atomic.Int64
		mux := http.NewServeMux()
		mux.Handle("/mcp", h)
		mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
			redirected.Add(1)
			http.Redirect(w, r, "/mcp", status)
		})
		ts := httptest.NewServer(mux)
		t.Cleanup(func() {
			h.Close()
			ts.Close()
			srv.Close()
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, version := range []mcp.Version{"", mcp.Version20251125} {
			c := client.New(mcp.Implementation{Name: "redirect", Version: "1"}, &client.Options{Version: version})
			sess, err := c.Connect(ctx, streamable.NewTransport(ts.URL+"/old", nil))
			if err != nil {
				t.Fatalf("%d %q: %v", status, version, err)
			}
			res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"moved"}`)})
			if err != nil || res.Content[0].(*mcp.TextContent).Text != "moved" {
				t.Fatalf("%d %q: %v %v", status, version, res, err)
			}
			sess.Close()
		}
		if redirected.Load() == 0 {
			t.Fatalf("%d: no request reached the redirecting handler", status)
		}
	}
}

// TestDirectCallNetworkError: a call that cannot be sent fails with a
// *url.Error (Op "Post", the endpoint URL), as Client.Do made it.
func TestDirectCallNetworkError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nothing listens there any more
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := streamable.NewTransport(endpoint, nil).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	msg, err := jsonrpc.NewCall(jsonrpc.Int64ID(1), "tools/call", json.RawMessage(`{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = conn.Write(ctx, msg)
	var ue *url.Error
	if !errors.As(err, &ue) || ue.Op != "Post" || ue.URL != endpoint {
		t.Fatalf("Write: %v, want a *url.Error for Post %s", err, endpoint)
	}
	var ne net.Error
	if !errors.As(err, &ne) {
		t.Errorf("errors.As(net.Error) failed for %v", err)
	}
}

// TestDirectCallBasicAuth: a URL with user information still sends it
// as basic authentication (Client.Do does, so those calls go through it).
func TestDirectCallBasicAuth(t *testing.T) {
	srv := newTestServer(t)
	h := streamable.NewHandler(srv, nil)
	var authorized atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "ada" || p != "secret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		authorized.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		h.Close()
		ts.Close()
		srv.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "auth", Version: "1"}, nil)
	sess, err := c.Connect(ctx, streamable.NewTransport(strings.Replace(ts.URL, "http://", "http://ada:secret@", 1), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
		t.Fatal(err)
	}
	if authorized.Load() == 0 {
		t.Fatal("no authorized request")
	}
}
