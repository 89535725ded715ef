package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// TestPostHeadersShared: every POST made a header map of its own (about
// 480 bytes of a call's 3.8 KB on the HTTP/1.1 client). POSTs whose
// headers are the same now share the last one's map when nothing but
// the transport's own clients sees it, and get a map of their own when
// anything differs, or when a caller's HTTPClient or layers could keep
// or change it.
func TestPostHeadersShared(t *testing.T) {
	connect := func(t *testing.T, o *ClientOptions) *ClientConn {
		t.Helper()
		c, err := NewTransport("http://127.0.0.1:1/mcp", o).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c.(*ClientConn)
	}
	call := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: mcp.MethodCallTool, Params: json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`)}
	other := &jsonrpc.Request{ID: jsonrpc.Int64ID(2), Method: mcp.MethodCallTool, Params: json.RawMessage(`{"name":"other","arguments":{}}`)}
	headers := func(c *ClientConn, req *jsonrpc.Request, modern string) http.Header {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.postHeaderLocked(req, modern)
	}
	t.Run("own clients", func(t *testing.T) {
		c := connect(t, &ClientOptions{Header: http.Header{"X-User": {"u"}}})
		c.mu.Lock()
		c.version, c.session = "2025-11-25", "s1"
		c.mu.Unlock()
		a, b := headers(c, call, ""), headers(c, call, "")
		if !sameMap(a, b) {
			t.Errorf("two legacy POSTs with the same headers made two maps")
		}
		if a.Get("X-User") != "u" || a.Get(mcp.HeaderSessionID) != "s1" || a.Get(mcp.HeaderProtocolVersion) != "2025-11-25" {
			t.Errorf("legacy headers: %v", a)
		}
		c.mu.Lock()
		c.session = "s2"
		c.mu.Unlock()
		if d := headers(c, call, ""); sameMap(a, d) || d.Get(mcp.HeaderSessionID) != "s2" || a.Get(mcp.HeaderSessionID) != "s1" {
			t.Errorf("a new session: shared map %v, new %v", a, d)
		}
		m1, m2 := headers(c, call, "2026-07-28"), headers(c, call, "2026-07-28")
		if !sameMap(m1, m2) || m1.Get(mcp.HeaderName) != "echo" {
			t.Errorf("two modern calls of one tool: shared %v, headers %v", sameMap(m1, m2), m1)
		}
		if m3 := headers(c, other, "2026-07-28"); sameMap(m1, m3) || m3.Get(mcp.HeaderName) != "other" || m1.Get(mcp.HeaderName) != "echo" {
			t.Errorf("a call of another tool: %v, the last one's %v", m3, m1)
		}
	})
	t.Run("layers", func(t *testing.T) {
		c := connect(t, &ClientOptions{WrapTransport: func(next http.RoundTripper) http.RoundTripper { return next }})
		if a, b := headers(c, call, "2026-07-28"), headers(c, call, "2026-07-28"); sameMap(a, b) {
			t.Errorf("with the caller's layers, two POSTs shared a header map")
		}
	})
	t.Run("caller's client", func(t *testing.T) {
		c := connect(t, &ClientOptions{HTTPClient: &http.Client{}})
		if a, b := headers(c, call, "2026-07-28"), headers(c, call, "2026-07-28"); sameMap(a, b) {
			t.Errorf("with the caller's HTTPClient, two POSTs shared a header map")
		}
	})
}

// sameMap reports whether a and b are the same map.
func sameMap(a, b http.Header) bool {
	if a == nil || b == nil {
		return false
	}
	a["X-Same-Map-Probe"] = nil
	defer delete(a, "X-Same-Map-Probe")
	_, ok := b["X-Same-Map-Probe"]
	return ok
}
