package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// Regression tests of issue 9, defect 5: Close drained the sessions one by
// one (N busy sessions took N × the drain timeout), then reset its state
// so that the server went on serving, and raced with concurrent Closes.

// busyServer returns a server whose tool "work" runs until its context
// ends or d passes (d = 0: only its context), and a channel that gets a
// value when a call starts and another when it returns.
func busyServer(opts *server.Options, d time.Duration) (srv *server.Server, started, ended chan error) {
	srv = server.New(mcp.Implementation{Name: "busy", Version: "1"}, opts)
	started, ended = make(chan error, 100), make(chan error, 100)
	server.AddTool(srv, &mcp.Tool{Name: "work"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		started <- nil
		var wait <-chan time.Time
		if d > 0 {
			wait = time.After(d)
		}
		select {
		case <-wait:
			ended <- nil
			return "done", nil
		case <-ctx.Done():
			ended <- ctx.Err()
			return "", ctx.Err()
		}
	})
	return srv, started, ended
}

// startCalls opens n sessions to srv and starts a call of "work" on each;
// it returns when every call runs. The calls' outcomes go to results.
func startCalls(t *testing.T, srv *server.Server, n int, started chan error) (results chan error) {
	t.Helper()
	results = make(chan error, n)
	for range n {
		p := dialNotes(t, srv, nil)
		go func() {
			results <- p.conn.Call(context.Background(), mcp.MethodCallTool, map[string]any{"name": "work", "arguments": map[string]any{}}, nil)
		}()
		<-started
	}
	return results
}

// TestCloseIsImmediateWithBusySessions: Close waited for each busy
// session's drain timeout in turn, 8 × 5s here. Close has no grace period
// now: the calls are cancelled at once, all together.
func TestCloseIsImmediateWithBusySessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 8
		srv, started, ended := busyServer(nil, 0)
		startCalls(t, srv, n, started)
		t0 := time.Now()
		srv.Close()
		if d := time.Since(t0); d != 0 {
			t.Errorf("Close with %d busy sessions took %v, want no wait", n, d)
		}
		for range n {
			if err := <-ended; !errors.Is(err, context.Canceled) {
				t.Errorf("a call ended with %v, want its context cancelled", err)
			}
		}
	})
}

// Shutdown lets the calls of every session finish in parallel, for as
// long as its context allows (not the sessions' DrainTimeout), and their
// answers reach the clients.
func TestShutdownDrainsSessionsInParallel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 8
		srv, started, _ := busyServer(&server.Options{DrainTimeout: time.Second}, 3*time.Second)
		results := startCalls(t, srv, n, started)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		t0 := time.Now()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if d := time.Since(t0); d != 3*time.Second {
			t.Errorf("Shutdown of %d sessions busy for 3s took %v, want 3s", n, d)
		}
		for range n {
			if err := <-results; err != nil {
				t.Errorf("a call drained by Shutdown failed: %v", err)
			}
		}
		if got := len(sessionsOf(srv)); got != 0 {
			t.Errorf("%d sessions left after Shutdown", got)
		}
	})
}

// When its context ends first, Shutdown forces what is left: the calls are
// cancelled, the sessions closed, and it reports the context's error.
func TestShutdownForcesWhatIsLeftWhenItsContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 8
		srv, started, ended := busyServer(nil, 0)
		startCalls(t, srv, n, started)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		t0 := time.Now()
		if err := srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown: %v, want the deadline", err)
		}
		if d := time.Since(t0); d != 2*time.Second {
			t.Errorf("Shutdown took %v, want its 2s", d)
		}
		for range n {
			if err := <-ended; !errors.Is(err, context.Canceled) {
				t.Errorf("a call ended with %v, want its context cancelled", err)
			}
		}
		if got := len(sessionsOf(srv)); got != 0 {
			t.Errorf("%d sessions left after Shutdown", got)
		}
	})
}

func sessionsOf(srv *server.Server) []*server.Session {
	var out []*server.Session
	for s := range srv.Sessions() {
		out = append(out, s)
	}
	return out
}

// modernRequest returns a 2026-07-28 request of method with params.
func modernRequest(id int64, method string, params map[string]any) *jsonrpc.Request {
	p := map[string]any{"_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientCapabilities: map[string]any{},
	}}
	for k, v := range params {
		p[k] = v
	}
	raw, _ := json.Marshal(p)
	return &jsonrpc.Request{ID: jsonrpc.Int64ID(id), Method: method, Params: raw}
}

// TestClosedServerRefusesNewWork: after Close the server went on taking
// sessions and requests. Now it refuses them, with ErrServerClosed, and
// on the wire with a JSON-RPC error whose code is not 0.
func TestClosedServerRefusesNewWork(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "closed", Version: "1"}, nil)
	addTool(t, srv, "t")
	srv.Close()

	_, st := memory.NewPair(nil)
	if sess, err := srv.Connect(context.Background(), st); !errors.Is(err, server.ErrServerClosed) {
		if sess != nil {
			sess.Close()
		}
		t.Errorf("Connect after Close: %v, want ErrServerClosed", err)
	}
	if ss, err := srv.Open(context.Background(), "s", nopWriter{}); !errors.Is(err, server.ErrServerClosed) {
		if ss != nil {
			ss.Close()
		}
		t.Errorf("Open after Close: %v, want ErrServerClosed", err)
	}
	resp := srv.ServeStateless(context.Background(), modernRequest(1, mcp.MethodListTools, nil), nopWriter{})
	if resp == nil || resp.Error == nil || resp.Error.Code != jsonrpc.CodeConnectionClosed || !errors.Is(resp.Error, server.ErrServerClosed) {
		t.Errorf("ServeStateless after Close: %+v, want CodeConnectionClosed caused by ErrServerClosed", resp)
	}
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown after Close: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close again: %v", err)
	}
}

// Shutdown ends the open listens at once, with their result, in both
// kinds of connection, and waits for them.
func TestShutdownEndsListens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := server.New(mcp.Implementation{Name: "listen", Version: "1"}, nil)
		addTool(t, srv, "t")
		listen := modernRequest(7, mcp.MethodSubscriptionsListen, map[string]any{"notifications": map[string]any{"toolsListChanged": true}})
		stateless := make(chan *jsonrpc.Response, 1)
		go func() { stateless <- srv.ServeStateless(context.Background(), listen, nopWriter{}) }()
		p := dialNotes(t, srv, nil)
		onSession := make(chan error, 1)
		go func() {
			onSession <- p.conn.Call(context.Background(), listen.Method, json.RawMessage(listen.Params), nil)
		}()
		synctest.Wait() // both listens are open
		t0 := time.Now()
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if d := time.Since(t0); d != 0 {
			t.Errorf("Shutdown with open listens took %v", d)
		}
		if resp := <-stateless; resp == nil || resp.Error != nil {
			t.Errorf("stateless listen ended with %+v, want a result", resp)
		}
		if err := <-onSession; err != nil {
			t.Errorf("listen on a session ended with %v, want a result", err)
		}
	})
}

// Close and Shutdown may be called concurrently, and while sessions and
// listens come and go; every one returns, and nothing is left running.
func TestConcurrentCloseAndShutdown(t *testing.T) {
	srv, started, _ := busyServer(nil, 0)
	startCalls(t, srv, 4, started)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			switch i % 4 {
			case 0:
				srv.Close()
			case 1:
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
				defer cancel()
				srv.Shutdown(ctx)
			case 2:
				_, st := memory.NewPair(nil)
				if sess, err := srv.Connect(context.Background(), st); err == nil {
					sess.Close()
				} else if !errors.Is(err, server.ErrServerClosed) {
					t.Errorf("Connect: %v", err)
				}
			case 3:
				listen := modernRequest(1, mcp.MethodSubscriptionsListen, map[string]any{"notifications": map[string]any{}})
				srv.ServeStateless(context.Background(), listen, nopWriter{})
			}
		})
	}
	wg.Wait()
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Errorf("a last Shutdown: %v", err)
	}
	if got := len(sessionsOf(srv)); got != 0 {
		t.Errorf("%d sessions left", got)
	}
}
