package server

import (
	"context"
	"errors"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// ErrServerClosed is returned by Connect and Open once Shutdown or Close
// has begun; a stateless request then gets jsonrpc.CodeConnectionClosed,
// whose cause (errors.Is) is ErrServerClosed.
var ErrServerClosed = errors.New("mcp server: the server is closed")

// Shutdown shuts the server down gracefully, as http.Server.Shutdown
// does: at once it refuses new sessions (Connect, Open) and new stateless
// requests (ServeStateless), and ends every open subscriptions/listen
// with its result; then it lets the work in hand finish — the requests of
// every session, stateless requests and running tasks, all in parallel —
// until ctx ends. What is still running then is forced to end: sessions
// are closed with their handlers' contexts cancelled, tasks are cancelled
// (and failed). Shutdown returns nil if everything finished in time, else
// ctx.Err().
//
// A stateless request's context is its HTTP request's, which only the
// HTTP server can end: Shutdown waits for stateless requests within ctx
// but cannot cancel them. Shut the MCP server down before the
// http.Server, whose own Shutdown would otherwise wait for the SSE
// streams that the MCP server is about to end.
//
// Shutdown and Close may be called concurrently and more than once; a
// closed server stays closed.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.closing) // open listens end now (listen.go)
	}
	s.mu.Unlock()
	s.stateless.Close()
	s.shared.stop() // scale-out: (shared.go)

	var wg sync.WaitGroup
	wg.Go(func() { s.tasks.shutdown(ctx) }) // tasks: (tasks.go)
	for sess := range s.Sessions() {
		wg.Go(func() { sess.conn.Shutdown(ctx) })
	}
	wg.Wait()
	// Every session's connection is down now, and its removal follows
	// from the connection's OnClosed (Options.OnSessionClosed, then the
	// bookkeeping). Wait for it even when ctx has ended, so that a forced
	// Shutdown too returns with no session left, within DrainTimeout for
	// an OnSessionClosed that takes its time.
	if ctx.Err() != nil {
		grace, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.DrainTimeout)
		s.live.Wait(grace)
		cancel()
	}
	// Once their connections are down, sessions are removed quickly, and
	// their notification senders see them closed.
	for _, g := range []interface{ Wait(context.Context) error }{&s.live, &s.stateless, &s.listening, &s.senders} {
		if err := g.Wait(ctx); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Close closes the server at once: it is Shutdown without a grace period.
// Running handlers have their contexts cancelled right away, and Close
// waits only for them to return (at most Options.DrainTimeout for those
// that ignore their context). It always returns nil.
func (s *Server) Close() error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.Shutdown(ctx)
	return nil
}

// isClosed reports whether Shutdown or Close has begun.
func (s *Server) isClosed() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// Errors of a stateless request that is refused.
var (
	errStatelessClosed = jsonrpc.NewError(jsonrpc.CodeConnectionClosed,
		"Server closed: it takes no new requests").WithCause(ErrServerClosed)
	errStatelessOverloaded = jsonrpc.NewError(jsonrpc.CodeOverloaded,
		"Too many requests: the server is serving as many as it allows; retry later")
)

// admitStateless counts a stateless request in, or says why it is
// refused.
func (s *Server) admitStateless() *jsonrpc.Error {
	if s.stateless.TryAdd(s.opts.MaxStatelessRequests) {
		return nil
	}
	if s.isClosed() {
		return errStatelessClosed
	}
	s.log.Debug("mcp server: stateless request refused: too many in progress", "limit", s.opts.MaxStatelessRequests)
	return errStatelessOverloaded
}

// leaveStateless counts a stateless request out, from the group it is in
// now (it may have become a listen).
func (s *Server) leaveStateless(out *statelessOut) {
	if out.listening {
		s.listening.Done()
		return
	}
	s.stateless.Done()
}
