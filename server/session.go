package server

import (
	"context"
	"errors"
	"sync"

	"github.com/mcpwire/mcpwire/internal/peer"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// A Session is one client connection. In the legacy era (up to 2025-11-25)
// it holds what initialize negotiated: the revision, the client's
// capabilities and info, the log level and the resource subscriptions.
// Modern (2026-07-28) requests that arrive on the same connection never
// read or change that state: each carries its own.
type Session struct {
	server *Server
	conn   *jsonrpc.Conn
	peer   peer.Peer
	id     string
	vals   sessionContext // the parent of its handlers' contexts, for values

	mu          sync.Mutex
	out         outbox       // notifications waiting to be sent (notify.go)
	initialized bool         // initialize was answered: client is set
	shared      bool         // opened with a store: its state is shared (shared.go); set before use
	logLevel    uint8        // the Severity of the level logging/setLevel set; 0: none, everything is sent
	client      *clientState // what initialize negotiated; shared, read-only (session_client.go)
	subs        map[string]struct{}
}

// sessionContext is a session's context for values: the context it was
// opened with, without its cancellation, answering SessionFromContext.
// It lives in the Session: a legacy HTTP session makes no context.
type sessionContext struct {
	context.Context
	sess *Session
}

func (c *sessionContext) Value(key any) any {
	if key == (sessionKey{}) {
		return c.sess
	}
	return c.Context.Value(key)
}

// newSession makes a session of s, opened with ctx.
func (s *Server) newSession(ctx context.Context, id string) *Session {
	sess := &Session{server: s, id: id}
	sess.vals = sessionContext{uncancelled(ctx), sess}
	return sess
}

// onClosed takes the end of the session's connection (jsonrpc.Options.OnClosed).
func (sess *Session) onClosed(err error) { sess.server.sessionEnded(sess, err) }

// setLogLevelLocked records the level logging/setLevel set; an unknown
// one, which filters nothing, is kept as none.
func (sess *Session) setLogLevelLocked(l mcp.LoggingLevel) { sess.logLevel = uint8(l.Severity()) }

// noClient is the client state of a session not yet initialized.
var noClient = &clientState{}

// clientLocked returns what initialize negotiated (zero values before
// it); sess.mu is held.
func (sess *Session) clientLocked() *clientState {
	if sess.client == nil {
		return noClient
	}
	return sess.client
}

type sessionKey struct{}

// SessionFromContext returns the session of the request whose handler
// owns ctx, or nil (for example for a stateless request over HTTP).
func SessionFromContext(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// isLifecycle marks the messages that are barriers on a session.
func isLifecycle(r *jsonrpc.Request) bool {
	return r.Method == mcp.MethodInitialize || r.Method == mcp.NotificationInitialized
}

// serve starts a session over conn.
func (s *Server) serve(ctx context.Context, conn transport.Conn) (*Session, error) {
	var id string
	if sc, ok := conn.(transport.SessionConn); ok {
		id = sc.SessionID()
	}
	sess := s.newSession(ctx, id)
	// What ties the session to ctx and to its keepalive is undone when
	// the session ends, so that a long-lived ctx does not keep closed
	// sessions reachable.
	ties := new(sessionTies)
	base := &sess.vals
	sess.conn = jsonrpc.NewConn(conn, &jsonrpc.Options{
		Handler:         s.handler,
		Outgoing:        s.opts.Outgoing,
		Preempter:       &sess.peer,
		Barrier:         isLifecycle,
		AcceptBatch:     sess.acceptBatch,
		OnCallAbandoned: sess.peer.SendCancelled,
		MaxConcurrency:  s.opts.MaxConcurrency,
		MaxQueue:        s.opts.MaxQueue,
		DrainTimeout:    s.opts.DrainTimeout,
		Context:         base,
		Logger:          s.log,
		OnClosed: func(err error) {
			ties.undo()
			s.sessionEnded(sess, err)
		},
	})
	sess.peer.Bind(sess.conn)
	if err := s.addSession(sess); err != nil {
		sess.conn.Close()
		return nil, err
	}
	if s.opts.KeepAlive > 0 {
		kctx, stop := context.WithCancel(base)
		ties.add(func() bool { stop(); return true })
		go peer.KeepAlive(kctx, sess.conn, s.opts.KeepAlive, func(err error) {
			s.log.Info("mcp server: keepalive failed, closing the session", "session", sess.id, "error", err)
			go sess.Close()
		})
	}
	ties.add(context.AfterFunc(ctx, func() { go sess.Close() }))
	return sess, nil
}

// sessionTies holds what undoes the ties of a session made by Connect:
// the context.AfterFunc that closes it with its context, and its
// keepalive. A tie added after the session ended is undone at once.
type sessionTies struct {
	mu     sync.Mutex
	undone bool
	stops  []func() bool
}

func (t *sessionTies) add(stop func() bool) {
	t.mu.Lock()
	if t.undone {
		t.mu.Unlock()
		stop()
		return
	}
	t.stops = append(t.stops, stop)
	t.mu.Unlock()
}

func (t *sessionTies) undo() {
	t.mu.Lock()
	t.undone = true
	stops := t.stops
	t.stops = nil
	t.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
}

// addSession registers a new session, unless the server is closed. The
// session counts as live work until removeSession. A session whose
// connection ended already (removeSession ran first) is not registered.
func (s *Server) addSession(sess *Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrServerClosed
	}
	sess.mu.Lock()
	ended := sess.out.closed
	sess.mu.Unlock()
	if !ended {
		s.sessions[sess] = struct{}{}
		s.live.Add()
	}
	return nil
}

// removeSession forgets a session that ended, with what waits for it:
// its notifications and the tasks it owns.
func (s *Server) removeSession(sess *Session) {
	sess.mu.Lock()
	sess.out.close()
	sess.mu.Unlock()
	if sess.shared {
		// Another instance may serve it next: its tasks go on.
		s.shared.removeSession(sess)
	} else {
		s.tasks.sessionEnded(sess) // tasks: (tasks.go)
	}
	s.mu.Lock()
	_, ok := s.sessions[sess]
	delete(s.sessions, sess)
	s.mu.Unlock()
	if ok {
		s.live.Done()
	}
}

// uncancelled returns ctx without its cancellation: ctx itself when it
// has none, so that no context is made.
func uncancelled(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

// sessionEnded takes a session whose connection has shut down.
func (s *Server) sessionEnded(sess *Session, err error) {
	s.sessionClosed(sess, err)
	s.removeSession(sess)
}

// sessionClosed tells Options.OnSessionClosed that sess has ended.
func (s *Server) sessionClosed(sess *Session, err error) {
	if f := s.opts.OnSessionClosed; f != nil {
		f(sess, err)
	}
}

// acceptBatch allows JSON-RPC batches only on sessions that negotiated
// 2025-03-26, the one revision that has them.
func (sess *Session) acceptBatch() bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.initialized && mcp.AllowsBatch(sess.client.version)
}

// ID returns the transport's session id ("" for stdio and memory).
func (sess *Session) ID() string { return sess.id }

// ProtocolVersion returns the revision negotiated by initialize, or "".
func (sess *Session) ProtocolVersion() mcp.Version {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.clientLocked().version
}

// ClientInfo returns what the client said of itself in initialize: a
// copy, the caller's to change (the session's own is shared with other
// sessions, see session_client.go).
func (sess *Session) ClientInfo() mcp.Implementation {
	return sess.sharedClient().info.Clone()
}

// ClientCapabilities returns the capabilities the client declared in
// initialize: a copy, the caller's to change (the session's own are
// shared with other sessions, see session_client.go).
func (sess *Session) ClientCapabilities() mcp.ClientCapabilities {
	return sess.sharedClient().caps.Clone()
}

// client_ returns what initialize negotiated (zero values before it):
// shared and read-only.
func (sess *Session) sharedClient() *clientState {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.clientLocked()
}

// Close ends the session: running requests get up to the drain timeout to
// finish, then the connection closes.
func (sess *Session) Close() error { return sess.conn.Close() }

// Wait blocks until the session has ended. It returns nil when the client
// disconnected or the session was closed.
func (sess *Session) Wait() error { return sess.conn.Wait() }

// Done returns a channel closed when the session has ended.
func (sess *Session) Done() <-chan struct{} { return sess.conn.Done() }

// ErrNotSupported is returned when the client did not declare the
// capability that a server-to-client request needs.
var ErrNotSupported = errors.New("mcp server: the client does not support this request")

// Ping sends a ping to the client and waits for its answer.
func (sess *Session) Ping(ctx context.Context) error {
	return sess.conn.Call(ctx, mcp.MethodPing, nil, nil)
}

// CreateMessage asks the client to sample its language model. Within a
// tool, prompt or resource handler, prefer Request.Sample, which also
// works for stateless requests.
func (sess *Session) CreateMessage(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	if err := checkSampling(&sess.sharedClient().caps, params); err != nil {
		return nil, err
	}
	return peer.Call[mcp.CreateMessageResult](ctx, sess.conn, mcp.MethodCreateMessage, params)
}

// Elicit asks the client to ask its user. Within a handler prefer
// Request.Elicit.
func (sess *Session) Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if err := checkElicit(&sess.sharedClient().caps, params); err != nil {
		return nil, err
	}
	return peer.Call[mcp.ElicitResult](ctx, sess.conn, mcp.MethodElicit, params)
}

// ListRoots asks the client for its roots. Within a handler prefer
// Request.ListRoots.
func (sess *Session) ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	if sess.sharedClient().caps.Roots == nil {
		return nil, ErrNotSupported
	}
	return peer.Call[mcp.ListRootsResult](ctx, sess.conn, mcp.MethodListRoots, nil)
}

// Log sends a log message to the client if its level is at or above the
// level the client set (all messages when it set none).
func (sess *Session) Log(ctx context.Context, params *mcp.LoggingMessageParams) error {
	sess.mu.Lock()
	lvl := int(sess.logLevel)
	sess.mu.Unlock()
	if lvl > 0 && params.Level.Severity() < lvl {
		return nil
	}
	return sess.conn.Notify(ctx, mcp.NotificationLoggingMessage, params)
}
