package streamable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// ClientOptions.WrapTransport puts the caller's layers over the
// transport's own HTTP client; the POSTs of calls that reach the bottom
// unchanged go through the HTTP/1.1 client, the others through net/http.

// layerFunc is an http.RoundTripper made of a function.
type layerFunc func(*http.Request) (*http.Response, error)

func (f layerFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// wrapServer serves MCP at /mcp and at /moved, recording the
// X-Layer header and the path of every request.
type wrapServer struct {
	url string

	mu    sync.Mutex
	seen  []string // X-Layer of each request
	paths map[string]int
}

func newWrapServer(t *testing.T) *wrapServer {
	srv := newTestServer(t)
	h := streamable.NewHandler(srv, nil)
	ws := &wrapServer{paths: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws.mu.Lock()
		ws.seen = append(ws.seen, r.Header.Get("X-Layer"))
		ws.paths[r.Method+" "+r.URL.Path]++
		ws.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	ws.url = ts.URL + "/mcp"
	t.Cleanup(func() {
		h.Close()
		ts.Close()
		srv.Close()
	})
	return ws
}

func wrapCall(t *testing.T, url string, version mcp.Version, wrap func(http.RoundTripper) http.RoundTripper) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "wrap", Version: "1"}, &client.Options{Version: version})
	sess, err := c.Connect(ctx, streamable.NewTransport(url, &streamable.ClientOptions{WrapTransport: wrap}))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, text := range []string{"one", "two", "three"} {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"` + text + `"}`)})
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != text {
			t.Fatalf("%q: %v %v", version, res, err)
		}
	}
}

// TestWrapTransportSeesEveryRequest: every request, calls included,
// goes through the layers, and what they add reaches the server.
func TestWrapTransportSeesEveryRequest(t *testing.T) {
	for _, version := range []mcp.Version{"", mcp.Version20251125} {
		ws := newWrapServer(t)
		var through atomic.Int64
		wrapCall(t, ws.url, version, func(next http.RoundTripper) http.RoundTripper {
			return layerFunc(func(r *http.Request) (*http.Response, error) {
				through.Add(1)
				r2 := r.Clone(r.Context())
				r2.Header.Set("X-Layer", "yes")
				return next.RoundTrip(r2)
			})
		})
		ws.mu.Lock()
		seen := ws.seen
		ws.mu.Unlock()
		if len(seen) < 4 || int(through.Load()) < len(seen) {
			t.Fatalf("%q: %d requests served, %d through the layer", version, len(seen), through.Load())
		}
		for i, v := range seen {
			if v != "yes" {
				t.Errorf("%q: request %d came without the layer's header", version, i)
			}
		}
	}
}

// TestWrapTransportHonoursChanges: a layer that sends a call elsewhere
// (another URL), with its body or with one of its own, has its way: such
// a request does not go through the HTTP/1.1 client, which would send it
// to the conn's URL.
func TestWrapTransportHonoursChanges(t *testing.T) {
	for _, version := range []mcp.Version{"", mcp.Version20251125} {
		for _, ownBody := range []bool{false, true} {
			ws := newWrapServer(t)
			wrapCall(t, ws.url, version, func(next http.RoundTripper) http.RoundTripper {
				return layerFunc(func(r *http.Request) (*http.Response, error) {
					r2 := r.Clone(r.Context())
					r2.URL.Path = "/moved"
					if ownBody && r.Body != nil && r.Body != http.NoBody {
						b, err := io.ReadAll(r.Body)
						if err != nil {
							return nil, err
						}
						r2.Body = io.NopCloser(bytes.NewReader(b))
					}
					return next.RoundTrip(r2)
				})
			})
			ws.mu.Lock()
			paths := ws.paths
			ws.mu.Unlock()
			if paths["POST /mcp"] != 0 || paths["POST /moved"] < 4 {
				t.Errorf("%q, body of its own %v: requests by path %v, want every POST at /moved", version, ownBody, paths)
			}
		}
	}
}
