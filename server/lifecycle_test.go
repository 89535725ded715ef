package server_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// Regression tests of issue 9: what a session leaves behind, and what one
// slow client costs the others.

// liveHeap returns the bytes of live heap after collecting twice (the
// second collection frees what the first one's finalizers and pools
// released).
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestClosedSessionsAreReleased: Connect tied each session to its context
// with context.AfterFunc and never undid it, so a long-lived cancellable
// context kept every closed session reachable, about 8 KB each. 10,000
// sessions are opened and closed under one such context; the heap must be
// back to where it was, within 100 bytes a session (a leak of a few
// hundred bytes a session fails).
func TestClosedSessionsAreReleased(t *testing.T) {
	const n, perSession = 10000, 100
	for _, c := range []struct {
		name string
		open func(ctx context.Context, srv *server.Server) (close func())
	}{
		{"Connect", func(ctx context.Context, srv *server.Server) func() {
			_, st := memory.NewPair(nil)
			sess, err := srv.Connect(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			return func() { sess.Close() }
		}},
		{"Open", func(ctx context.Context, srv *server.Server) func() {
			ss, err := srv.Open(ctx, "s", nopWriter{})
			if err != nil {
				t.Fatal(err)
			}
			return func() { ss.Close() }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv := server.New(mcp.Implementation{Name: "leak", Version: "1"}, nil)
			cycle := func(count int) {
				for range count {
					c.open(ctx, srv)()
				}
			}
			cycle(100) // warm the pools and the server's maps
			before := liveHeap()
			cycle(n)
			after := liveHeap()
			runtime.KeepAlive(ctx)
			runtime.KeepAlive(srv)
			if grew := after - before; grew > n*perSession {
				t.Errorf("%d sessions opened and closed: the heap grew by %d bytes, %d a session (tolerance %d)",
					n, grew, grew/n, perSession)
			} else {
				t.Logf("%d sessions opened and closed: the heap grew by %d bytes", n, grew)
			}
		})
	}
}

// TestOpenSessionEnded: what Open returns says it has ended as Done
// does, without a channel: the HTTP handler asks it of every session it
// looks up or sweeps.
func TestOpenSessionEnded(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "ended", Version: "1"}, nil)
	defer srv.Close()
	ss, err := srv.Open(context.Background(), "s", nopWriter{})
	if err != nil {
		t.Fatal(err)
	}
	ender, ok := ss.(interface{ Ended() bool })
	if !ok {
		t.Fatalf("%T has no Ended method", ss)
	}
	if ender.Ended() {
		t.Fatal("an open session has ended")
	}
	ss.Close()
	if !ender.Ended() {
		t.Error("a closed session has not ended")
	}
	select {
	case <-ss.Done():
	default:
		t.Error("the session has ended, but Done is open")
	}
}

type nopWriter struct{}

func (nopWriter) Write(context.Context, jsonrpc.Message) error { return nil }

// stallTransport is the server's end of a memory pair whose writes, once
// stall is called, block until release, ignoring their context: a client
// that stopped reading its stdout pipe.
type stallTransport struct {
	end *memory.Transport

	mu       sync.Mutex
	gate     chan struct{} // non-nil while stalled; closed by release
	honorCtx bool          // a stalled write returns when its context ends
	failNext int           // that many writes fail at once
	blocked  chan struct{} // receives once when a write blocks
}

func newStallTransport(end *memory.Transport) *stallTransport {
	return &stallTransport{end: end, blocked: make(chan struct{}, 1)}
}

func (t *stallTransport) Connect(ctx context.Context) (transport.Conn, error) {
	c, err := t.end.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return stallConn{c, t}, nil
}

func (t *stallTransport) stall() {
	t.mu.Lock()
	t.gate = make(chan struct{})
	t.mu.Unlock()
}

func (t *stallTransport) release() {
	t.mu.Lock()
	close(t.gate)
	t.gate = nil
	t.mu.Unlock()
}

type stallConn struct {
	transport.Conn
	t *stallTransport
}

func (c stallConn) Write(ctx context.Context, m jsonrpc.Message) error {
	c.t.mu.Lock()
	gate, honor, fail := c.t.gate, c.t.honorCtx, c.t.failNext > 0
	if fail {
		c.t.failNext--
	}
	c.t.mu.Unlock()
	if fail {
		return errors.New("write: broken pipe")
	}
	if gate != nil {
		select {
		case c.t.blocked <- struct{}{}:
		default:
		}
		var done <-chan struct{}
		if honor {
			done = ctx.Done()
		}
		select {
		case <-gate:
		case <-done:
			return ctx.Err()
		}
	}
	return c.Conn.Write(ctx, m)
}

// notePeer is a raw legacy client that counts the notifications it gets.
type notePeer struct {
	conn *jsonrpc.Conn
	sess *server.Session // the server's end
	mu   sync.Mutex
	got  map[string]int
	note chan string // every notification's method, as it arrives
}

func dialNotes(t *testing.T, srv *server.Server, wrap func(*memory.Transport) transport.Transport) *notePeer {
	t.Helper()
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	var tr transport.Transport = st
	if wrap != nil {
		tr = wrap(st)
	}
	ss, err := srv.Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := &notePeer{sess: ss, got: make(map[string]int), note: make(chan string, 1000)}
	p.conn = jsonrpc.NewConn(c, &jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if !req.IsCall() {
			p.mu.Lock()
			p.got[req.Method]++
			p.mu.Unlock()
			p.note <- req.Method
		}
		return nil, nil
	})})
	t.Cleanup(func() { p.conn.Close(); ss.Close() })
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.conn.Call(cctx, mcp.MethodInitialize, map[string]any{
		"protocolVersion": mcp.LatestLegacy,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "notes", "version": "1"},
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Notify(cctx, mcp.NotificationInitialized, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *notePeer) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.got[method]
}

// waitNote waits for the next notification method, within a deadline
// that only a failure reaches.
func (p *notePeer) waitNote(t *testing.T, method string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-p.note:
			if m == method {
				return
			}
		case <-deadline:
			t.Fatalf("no %s within 10s", method)
		}
	}
}

func addTool(t *testing.T, srv *server.Server, name string) {
	t.Helper()
	err := server.AddTool(srv, &mcp.Tool{Name: name}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		return "", nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestListChangedDoesNotWaitForAStuckClient: list_changed notifications
// went to every session in turn, in the goroutine of AddTool, so one
// client that stopped reading stalled every registration (for ever over a
// pipe, whose writes ignore contexts). Now AddTool returns at once, the
// other sessions are told, and the stuck session is told once more when
// it reads again, however many changes it missed.
func TestListChangedDoesNotWaitForAStuckClient(t *testing.T) {
	synctest.Test(t, testListChangedStuckClient)
}

func testListChangedStuckClient(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "stuck", Version: "1"}, nil)
	addTool(t, srv, "t0")
	var stuck *stallTransport
	slow := dialNotes(t, srv, func(end *memory.Transport) transport.Transport {
		stuck = newStallTransport(end)
		return stuck
	})
	fast := dialNotes(t, srv, nil)
	stuck.stall()

	// The first change finds the client stuck, the nine others come
	// while its notification is blocked.
	const changes = 10
	added := make(chan struct{})
	go func() {
		defer close(added)
		addTool(t, srv, "t1")
		<-stuck.blocked
		for i := 2; i <= changes; i++ {
			addTool(t, srv, fmt.Sprint("t", i))
		}
	}()
	select {
	case <-added:
	case <-time.After(10 * time.Second):
		stuck.release()
		<-added
		t.Fatalf("%d AddTool calls did not return within 10s while one client was stuck", changes)
	}
	fast.waitNote(t, mcp.NotificationToolListChanged)
	stuck.release()
	// The notification that was being written when the client stuck, then
	// one for the changes made meanwhile.
	slow.waitNote(t, mcp.NotificationToolListChanged)
	slow.waitNote(t, mcp.NotificationToolListChanged)
	synctest.Wait() // every goroutine is idle: nothing more is on its way
	if got := slow.count(mcp.NotificationToolListChanged); got != 2 {
		t.Errorf("the stuck session got %d tools/list_changed for %d changes, want 2 (the one in flight, then one for the rest)", got, changes)
	}
	if got := fast.count(mcp.NotificationToolListChanged); got < 1 || got > changes {
		t.Errorf("the other session got %d tools/list_changed, want 1 to %d", got, changes)
	}
}

// A client whose deliveries keep failing is given up after three of them
// (here each times out after NotifyTimeout): its session is closed, and
// nothing is retried for ever. The changes meanwhile return at once.
func TestNotificationsToAFailingClientAreNotRetriedForever(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := server.New(mcp.Implementation{Name: "failing", Version: "1"}, &server.Options{NotifyTimeout: 5 * time.Second})
		var stuck *stallTransport
		p := dialNotes(t, srv, func(end *memory.Transport) transport.Transport {
			stuck = newStallTransport(end)
			return stuck
		})
		stuck.mu.Lock()
		stuck.honorCtx = true
		stuck.mu.Unlock()
		stuck.stall()
		t0 := time.Now()
		for i := range 5 {
			addTool(t, srv, fmt.Sprint("t", i))
		}
		if d := time.Since(t0); d != 0 {
			t.Errorf("AddTool waited %v for a client that does not read", d)
		}
		time.Sleep(15*time.Second - time.Millisecond)
		synctest.Wait()
		select {
		case <-p.sess.Done():
			t.Fatal("the session was given up before its third failed delivery")
		default:
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		select {
		case <-p.sess.Done():
		default:
			t.Fatal("the session is still open after three failed deliveries")
		}
		stuck.release()
	})
}

// A delivery that fails once is tried again: the notification is not
// lost.
func TestNotificationFailingOnceIsDeliveredLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := server.New(mcp.Implementation{Name: "flaky", Version: "1"}, nil)
		var flaky *stallTransport
		p := dialNotes(t, srv, func(end *memory.Transport) transport.Transport {
			flaky = newStallTransport(end)
			return flaky
		})
		flaky.mu.Lock()
		flaky.failNext = 1
		flaky.mu.Unlock()
		srv.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, r *server.Request, _ *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		p.waitNote(t, mcp.NotificationResourceListChanged)
		synctest.Wait()
		if got := p.count(mcp.NotificationResourceListChanged); got != 1 {
			t.Errorf("%d resources/list_changed, want 1", got)
		}
		select {
		case <-p.sess.Done():
			t.Error("one failed delivery closed the session")
		default:
		}
	})
}

// Resource updates are coalesced per URI while a client is stuck.
func TestResourceUpdatesAreCoalescedPerURI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := server.New(mcp.Implementation{Name: "updates", Version: "1"}, nil)
		srv.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(ctx context.Context, r *server.Request, _ *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
		var stuck *stallTransport
		p := dialNotes(t, srv, func(end *memory.Transport) transport.Transport {
			stuck = newStallTransport(end)
			return stuck
		})
		for _, uri := range []string{"test://a", "test://b"} {
			if err := p.conn.Call(context.Background(), mcp.MethodSubscribe, map[string]any{"uri": uri}, nil); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		stuck.stall()
		srv.ResourceUpdated("test://a") // in flight when the client stuck
		<-stuck.blocked
		for range 5 {
			srv.ResourceUpdated("test://a")
			srv.ResourceUpdated("test://b")
			srv.ResourceUpdated("test://not-subscribed")
		}
		stuck.release()
		synctest.Wait()
		if got := p.count(mcp.NotificationResourceUpdated); got != 3 {
			t.Errorf("%d resources/updated, want 3: a in flight, then a and b once each", got)
		}
	})
}
