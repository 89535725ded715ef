package server

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// The server is what message-per-request transports (HTTP) drive.
var _ transport.MessageServer = (*Server)(nil)

// Open starts a legacy session whose messages to the client go to w; see
// transport.MessageServer. The session has no read loop: the transport
// hands it each message (Serve, Resolve), and it holds no goroutine while
// idle. A server that is shut down refuses with ErrServerClosed.
func (s *Server) Open(ctx context.Context, sessionID string, w jsonrpc.Writer) (transport.ServerSession, error) {
	if s.isClosed() {
		return nil, ErrServerClosed
	}
	sess := s.newSession(ctx, sessionID)
	var idBase int64
	if s.shared != nil { // scale-out: the session is shared (shared.go)
		inst, err := s.shared.join(ctx)
		if err != nil {
			return nil, err
		}
		sess.shared, idBase = true, inst<<32
	}
	sess.conn = jsonrpc.NewDirectConn(w, &jsonrpc.Options{
		IDBase:          idBase,
		Handler:         s.handler,
		Outgoing:        s.opts.Outgoing,
		Preempter:       &sess.peer,
		OnCallAbandoned: sess.peer.SendCancelled,
		MaxConcurrency:  s.opts.MaxConcurrency,
		DrainTimeout:    s.opts.DrainTimeout,
		Context:         &sess.vals,
		Logger:          s.log,
		OnClosed:        sess.onClosed,
	})
	sess.peer.Bind(sess.conn)
	if err := s.addSession(sess); err != nil {
		sess.conn.Close()
		return nil, err
	}
	if sess.shared {
		s.shared.addSession(sess)
	}
	return messageSession{sess}, nil
}

// messageSession adapts a Session to transport.ServerSession.
type messageSession struct{ *Session }

func (m messageSession) Serve(ctx context.Context, req *jsonrpc.Request) *jsonrpc.Response {
	if m.shared && req.Method == mcp.NotificationCancelled {
		// The request may run on another instance (shared.go).
		m.server.shared.publish(controlTopic, &busMsg{Kind: busCancel, Session: m.id, Data: req.Params})
	}
	return m.conn.Serve(ctx, req)
}

func (m messageSession) Resolve(resp *jsonrpc.Response) bool {
	if m.conn.Resolve(resp) {
		return true
	}
	return m.shared && m.server.shared.forward(m.id, resp) // sent by another instance (shared.go)
}

func (m messageSession) ProtocolVersion() string { return string(m.Session.ProtocolVersion()) }

// Ended reports whether the session has ended, as a receive from Done
// would, without making Done's channel: the HTTP handler asks it of every
// session it looks up or sweeps, and an idle session keeps no channel.
func (m messageSession) Ended() bool { return m.conn.Finished() }

// ServeStateless answers one modern request without a session; see
// transport.MessageServer. At most Options.MaxStatelessRequests are
// served at once; one more is refused with jsonrpc.CodeOverloaded, and
// every request once the server is shut down with
// jsonrpc.CodeConnectionClosed (whose cause is ErrServerClosed).
func (s *Server) ServeStateless(ctx context.Context, req *jsonrpc.Request, w jsonrpc.Writer) (resp *jsonrpc.Response) {
	if e := s.admitStateless(); e != nil {
		if !req.IsCall() {
			return nil
		}
		return &jsonrpc.Response{ID: req.ID, Error: e}
	}
	out := &statelessOut{w: w, out: s.opts.Outgoing}
	defer s.leaveStateless(out)
	if req.IsCall() {
		ctx = jsonrpc.WithIncomingID(ctx, req.ID)
	}
	ctx = withOutbound(ctx, out)
	res, err := s.handleRecovered(ctx, req)
	if !req.IsCall() {
		return nil
	}
	resp, merr := jsonrpc.NewResponse(req.ID, res, err)
	if merr != nil {
		s.log.Error("mcp server: result cannot be encoded", "method", req.Method, "error", merr)
		resp = &jsonrpc.Response{ID: req.ID, Error: jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the result cannot be encoded: %v", merr)}
	}
	return resp
}

// handleRecovered runs the server's handler, turning a panic into an
// internal error.
func (s *Server) handleRecovered(ctx context.Context, req *jsonrpc.Request) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("mcp server: handler panicked", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			err = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the handler for %q failed", req.Method)
		}
	}()
	return s.handler.Handle(ctx, req)
}

// statelessOut sends a stateless request's notifications to the writer
// of its response stream, through the outgoing middleware. A stateless
// request cannot send requests. It also records whether the request
// became an open listen, which counts against MaxListeners rather than
// MaxStatelessRequests (listen.go).
type statelessOut struct {
	w         jsonrpc.Writer
	out       []jsonrpc.Middleware
	listening bool // moved from Server.stateless to Server.listening
}

func (o *statelessOut) Notify(ctx context.Context, method string, params any) error {
	n, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		return err
	}
	if len(o.out) > 0 {
		send := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) { return nil, o.w.Write(ctx, req) })
		_, err := jsonrpc.Chain(send, o.out...).Handle(ctx, n)
		return err
	}
	return o.w.Write(ctx, n)
}

func (o *statelessOut) Call(ctx context.Context, method string, params, result any) error {
	return fmt.Errorf("mcp server: a stateless request cannot send %s to the client", method)
}

// ProtocolVersions lists the revisions the server serves (see
// transport.VersionLister).
func (s *Server) ProtocolVersions() []string {
	out := make([]string, len(s.versions))
	for i, v := range s.versions {
		out[i] = string(v)
	}
	return out
}

// ToolInputSchema returns the input schema of a tool as listed (see
// transport.ToolSchemaLister).
func (s *Server) ToolInputSchema(name string) (json.RawMessage, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.tools.get(name)
	if !ok {
		return nil, false
	}
	return e.tool.InputSchema, true
}
