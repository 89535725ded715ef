package server_test

import (
	"context"
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

type nopWriter struct{}

func (nopWriter) Write(context.Context, jsonrpc.Message) error { return nil }

// stallTransport is the server's end of a memory pair whose writes, once
// stall is called, block until release, ignoring their context: a client
// that stopped reading its stdout pipe.
type stallTransport struct {
	end *memory.Transport

	mu      sync.Mutex
	gate    chan struct{} // non-nil while stalled; closed by release
	blocked chan struct{} // receives once when a write blocks
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
	gate := c.t.gate
	c.t.mu.Unlock()
	if gate != nil {
		select {
		case c.t.blocked <- struct{}{}:
		default:
		}
		<-gate
	}
	return c.Conn.Write(ctx, m)
}

// notePeer is a raw legacy client that counts the notifications it gets.
type notePeer struct {
	conn *jsonrpc.Conn
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
	p := &notePeer{got: make(map[string]int), note: make(chan string, 1000)}
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
