package streamable_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestNotificationsBeforeDirectResponse: a response goes from the
// goroutine that read it straight to its caller (SetResolver) only once
// the engine has taken what came before it, so the log messages and
// progress notifications a tool sends before its result have all been
// handled when the call returns, with and without an event store (SSE
// answers with a priming event, or plain ones).
func TestNotificationsBeforeDirectResponse(t *testing.T) {
	for _, opts := range []*streamable.HandlerOptions{nil, {EventStore: streamable.NewMemoryEventStore(nil)}} {
		srv := newTestServer(t)
		h := streamable.NewHandler(srv, opts)
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			h.Close()
			ts.Close()
			srv.Close()
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var (
			mu   sync.Mutex
			logs int
		)
		c := client.New(mcp.Implementation{Name: "order", Version: "1"}, &client.Options{
			Version: mcp.Version20251125,
			OnLog: func(ctx context.Context, p *mcp.LoggingMessageParams) {
				mu.Lock()
				logs++
				mu.Unlock()
			},
		})
		sess, err := c.Connect(ctx, streamable.NewTransport(ts.URL, nil))
		if err != nil {
			t.Fatal(err)
		}
		if err := sess.SetLogLevel(ctx, mcp.LevelInfo); err != nil {
			t.Fatal(err)
		}
		const n = 5
		for i := range 20 {
			var progress int
			pctx := client.WithProgress(ctx, func(mcp.ProgressParams) { progress++ })
			mu.Lock()
			logs = 0
			mu.Unlock()
			if _, err := sess.CallTool(pctx, &mcp.CallToolParams{Name: "chatty", Arguments: json.RawMessage(`{"tag":"t","n":5}`)}); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			got := logs
			mu.Unlock()
			if got != n || progress != n {
				t.Fatalf("call %d returned after %d of %d log messages and %d of %d progress notifications", i, got, n, progress, n)
			}
		}
		sess.Close()
	}
}
