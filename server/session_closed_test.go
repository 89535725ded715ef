package server_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/memory"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestOnSessionClosed checks that Options.OnSessionClosed is told of the
// end of each session, a connection or a legacy HTTP session, once, and
// that Shutdown waits for it; a stateless (2026-07-28) HTTP exchange has
// no session to end.
func TestOnSessionClosed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		http    bool
		version mcp.Version
		want    int
	}{
		{"memory/legacy", false, mcp.LatestLegacy, 1},
		{"memory/modern", false, mcp.Latest, 1},
		{"http/legacy", true, mcp.LatestLegacy, 1},
		{"http/modern", true, mcp.Latest, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var ended []*server.Session
			var errs []error
			srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{
				OnSessionClosed: func(sess *server.Session, err error) {
					mu.Lock()
					ended = append(ended, sess)
					errs = append(errs, err)
					mu.Unlock()
				},
			})
			ctx := context.Background()
			var tr transport.Transport
			var h *streamable.Handler
			var seen *server.Session
			if tc.http {
				h = streamable.NewHandler(srv, nil)
				hs := httptest.NewServer(h)
				defer hs.Close()
				tr = streamable.NewTransport(hs.URL, nil)
			} else {
				ct, st := memory.NewPair(nil)
				sess, err := srv.Connect(ctx, st)
				if err != nil {
					t.Fatal(err)
				}
				seen, tr = sess, ct
			}
			c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{Version: tc.version})
			cs, err := c.Connect(ctx, tr)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			if tc.http && tc.want == 1 {
				for sess := range srv.Sessions() {
					seen = sess
				}
			}
			cs.Close()
			if h != nil {
				h.Close()
			}
			if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(ended) != tc.want {
				t.Fatalf("OnSessionClosed ran %d times by the end of Shutdown, want %d", len(ended), tc.want)
			}
			if tc.want == 1 && (ended[0] != seen || errs[0] != nil) {
				t.Errorf("OnSessionClosed(%p, %v), want the session %p and no error", ended[0], errs[0], seen)
			}
		})
	}
}
