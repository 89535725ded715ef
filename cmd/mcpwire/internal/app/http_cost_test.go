//go:build !race

package app

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/cannedhttp"
	"github.com/mcpwire/mcpwire/mcp"
)

// TestHTTPCallCost bounds what a tools/call over --url costs mcpwire
// (bench, call, bridge --url and the inspector open their sessions so):
// the MCP client, the layers of http.go (the watches and auth.Transport,
// with no token here) and the streamable transport, against a server
// that answers at once with canned bytes (cannedhttp.Server), so that the
// allocations counted are the client's. On 6ebbd51 the layers went over
// a net/http client, and auth.Transport fetched, read and parsed every
// body and cloned every request: 192 allocations for a legacy call, 95
// for a modern one.
func TestHTTPCallCost(t *testing.T) {
	for _, tc := range []struct {
		era     string
		version mcp.Version
	}{{"legacy", mcp.Version20251125}, {"modern", ""}} {
		t.Run(tc.era, func(t *testing.T) {
			srv := cannedhttp.New(t, false)
			defer srv.Close()
			a := New(strings.NewReader(""), io.Discard, io.Discard)
			a.Global.Protocol = tc.version
			ctx := context.Background()
			sess, end, err := a.OpenSession(ctx, &Target{URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			defer end()
			args := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)}
			allocs := testing.AllocsPerRun(300, func() {
				if _, err := sess.CallTool(ctx, args); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%.0f allocations per call", allocs)
			if allocs > 50 {
				t.Errorf("%.0f allocations per call, want at most 50", allocs)
			}
		})
	}
}
