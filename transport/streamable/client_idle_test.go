package streamable_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestConcurrentCallsReuseConnections: the transport's own HTTP client
// keeps enough idle connections for calls made at once. With Go's
// default of 2 idle connections per host, 8 callers opened a new
// connection for most calls (about 4,000 a second under load, each left
// in TIME_WAIT) and made half the calls per second.
func TestConcurrentCallsReuseConnections(t *testing.T) {
	const callers, calls = 8, 50
	for _, version := range []mcp.Version{"", mcp.Version20251125} {
		name := string(version)
		if name == "" {
			name = "modern"
		}
		t.Run(name, func(t *testing.T) {
			s := server.New(mcp.Implementation{Name: "idle", Version: "1"}, nil)
			if err := server.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, r *server.Request, in struct {
				Text string `json:"text"`
			}) (string, error) {
				return in.Text, nil
			}); err != nil {
				t.Fatal(err)
			}
			h := streamable.NewHandler(s, nil)
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
				ts.CloseClientConnections()
				ts.Close()
				s.Close()
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c := client.New(mcp.Implementation{Name: "idle-test", Version: "1"}, &client.Options{Version: version})
			sess, err := c.Connect(ctx, streamable.NewTransport(ts.URL, nil))
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			var wg sync.WaitGroup
			errs := make(chan error, callers)
			for range callers {
				wg.Go(func() {
					for range calls {
						if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: []byte(`{"text":"x"}`)}); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			// About one connection per caller, one for the session's own
			// requests and one for a legacy GET stream. A caller whose
			// answer reached it before net/http put that answer's
			// connection back in the pool (its reader does so after the
			// body's end, on its own time) makes net/http dial another one
			// for the next call, which it keeps: a few more on a busy
			// machine (up to 16 seen), far from one per call (159 with
			// Go's default of 2 idle connections).
			if want := int64(3 * callers); conns.Load() > want {
				t.Errorf("%d calls from %d callers opened %d connections; want at most %d", callers*calls, callers, conns.Load(), want)
			}
		})
	}
}
