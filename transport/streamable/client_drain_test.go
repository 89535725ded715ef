package streamable_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestSSEAnswersReuseConnections: the SSE answer to a legacy call (a
// handler with an event store answers every request so) is read to its
// end after the response, so that net/http keeps the connection. Closed
// before its end, the connection was closed too, and about one call in
// ten dialed a new one.
func TestSSEAnswersReuseConnections(t *testing.T) {
	const calls = 500
	srv := newTestServer(t)
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{EventStore: streamable.NewMemoryEventStore(nil)})
	ts := httptest.NewUnstartedServer(h)
	var conns atomic.Int64
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	t.Cleanup(func() {
		h.Close()
		ts.Close()
		srv.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "drain", Version: "1"}, &client.Options{Version: mcp.Version20251125})
	sess, err := c.Connect(ctx, streamable.NewTransport(ts.URL, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for range calls {
		if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); err != nil {
			t.Fatal(err)
		}
	}
	// One connection for the calls, one for the standalone GET stream,
	// and slack for a call that starts before the previous one's
	// connection is back in the pool.
	if n := conns.Load(); n > 6 {
		t.Errorf("%d sequential calls opened %d connections; want at most 6", calls, n)
	}
}
