//go:build !race

package streamable_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/internal/cannedhttp"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestClientCallAllocs: a tools/call over Streamable HTTP with default
// options costs the client (the MCP client, the engine and the
// transport, with net/http's part) at most 50 allocations, against a
// server that answers at once (cannedhttp.Server). Through net/http's
// Transport it cost 86 (issue 23).
func TestClientCallAllocs(t *testing.T) {
	for _, era := range cannedEras {
		t.Run(era.name, func(t *testing.T) {
			call := cannedCall(t, context.Background(), era.version, era.sse, nil)
			if allocs := testing.AllocsPerRun(300, call); allocs > 50 {
				t.Errorf("%.0f allocations per tools/call, want at most 50", allocs)
			}
		})
	}
}

// cannedEras are the eras and answer forms the allocation tests run in.
var cannedEras = []struct {
	name    string
	version mcp.Version
	sse     bool
}{
	{"modern/json", "", false},
	{"legacy/json", mcp.Version20251125, false},
	{"legacy/sse", mcp.Version20251125, true},
}

// cannedCall connects a client with options o, which calls within ctx, to a cannedhttp.Server answering
// as sse says, in era version, and returns a tools/call of its echo tool;
// all is closed when the test ends.
func cannedCall(t *testing.T, ctx context.Context, version mcp.Version, sse bool, o *streamable.ClientOptions) func() {
	t.Helper()
	srv := cannedhttp.New(t, sse)
	t.Cleanup(srv.Close)
	c := client.New(mcp.Implementation{Name: "allocs", Version: "1"}, &client.Options{Version: version})
	sess, err := c.Connect(ctx, streamable.NewTransport(srv.URL, o))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	args := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(echoArgs)}
	return func() {
		if _, err := sess.CallTool(ctx, args); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClientCallBytes: a tools/call over Streamable HTTP with default
// options costs the client at most half the bytes it cost when issue 23
// began (8b2e914: 6,824 legacy and 7,440 in the 2026-07-28 era, against
// the floor's server in bench/inprocess). Measured against cannedhttp.Server
// (whose own share, in the same process, is under 50 bytes): 3,828 and
// 4,219 bytes before POSTs shared their header maps, the call's record
// lost its http trace and the encoder sized its frame once; about 3,020
// and 3,430 after. A caller's context with a deadline costs about 145 B
// more (3 allocations), the watch a waited call keeps on it
// (runWaited's context.AfterFunc): the cases with a deadline hold that
// path, which most callers take, to the same bound.
func TestClientCallBytes(t *testing.T) {
	for _, era := range []struct {
		name    string
		version mcp.Version
		limit   uint64
		timed   bool // the caller's context has a deadline, which a waited call watches
	}{
		{"modern/json", "", 7440 / 2, false},
		{"legacy/json", mcp.Version20251125, 6824 / 2, false},
		{"modern/json/deadline", "", 7440 / 2, true},
		{"legacy/json/deadline", mcp.Version20251125, 6824 / 2, true},
	} {
		t.Run(era.name, func(t *testing.T) {
			ctx := context.Background()
			if era.timed {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, time.Hour)
				t.Cleanup(cancel)
			}
			call := cannedCall(t, ctx, era.version, false, nil)
			for range 50 {
				call() // runners, connections and pools warm
			}
			const calls = 500
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range calls {
				call()
			}
			runtime.ReadMemStats(&after)
			per := (after.TotalAlloc - before.TotalAlloc) / calls
			t.Logf("%d bytes per tools/call", per)
			if per > era.limit {
				t.Errorf("%d bytes per tools/call, want at most %d", per, era.limit)
			}
		})
	}
}

// TestClientCallAllocsThroughLayers: with layers of the caller over the
// transport's own HTTP client (ClientOptions.WrapTransport; here one
// that passes each request on), a tools/call still goes through the
// HTTP/1.1 client, at most 6 allocations above the bound without them
// (the request that the layers see, and its context).
func TestClientCallAllocsThroughLayers(t *testing.T) {
	for _, era := range cannedEras {
		t.Run(era.name, func(t *testing.T) {
			var through atomic.Int64
			wrap := func(next http.RoundTripper) http.RoundTripper {
				return layerFunc(func(r *http.Request) (*http.Response, error) {
					through.Add(1)
					return next.RoundTrip(r)
				})
			}
			call := cannedCall(t, context.Background(), era.version, era.sse, &streamable.ClientOptions{WrapTransport: wrap})
			before := through.Load()
			allocs := testing.AllocsPerRun(300, call)
			if n := through.Load() - before; n < 301 {
				t.Errorf("%d requests through the layer for 301 calls", n)
			}
			t.Logf("%.0f allocations per tools/call", allocs)
			if allocs > 56 {
				t.Errorf("%.0f allocations per tools/call, want at most 56", allocs)
			}
		})
	}
}
