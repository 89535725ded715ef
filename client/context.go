package client

import (
	"context"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// What middleware can learn of the session a message belongs to. A
// Client's middleware (Options.Middleware and Options.Outgoing) serves
// every session of the client; SessionFromContext tells which one a
// message is for, so that instrumentation (the otel module) can name the
// protocol revision, the transport's session and the server's address.

type sessionKey struct{}

// SessionFromContext returns the session of the message a client
// middleware is handling: in Options.Outgoing, the session sending it; in
// Options.Middleware, the session that received it. It returns nil
// elsewhere.
func SessionFromContext(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// ID returns the transport's session id: the Mcp-Session-Id of a legacy
// Streamable HTTP session, once the server gave one; "" for transports
// without sessions (stdio, a subprocess, an in-memory pair) and for
// modern (stateless) sessions.
func (s *Session) ID() string {
	if sc, ok := s.tconn.(transport.SessionConn); ok {
		return sc.SessionID()
	}
	return ""
}

// Address returns the name the transport gave its peer (see
// transport.Addresser): the URL of an HTTP endpoint, the command line of
// a subprocess; "" when the transport names none, as in-memory pairs.
func (s *Session) Address() string { return s.addr }

// outgoing returns the outgoing middleware of the session's connection:
// the client's, behind one that puts the session in the context for
// SessionFromContext. Without client middleware there is none, and
// nothing to pay.
func (s *Session) outgoing(mw []jsonrpc.Middleware) []jsonrpc.Middleware {
	if len(mw) == 0 {
		return nil
	}
	withSession := func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return next.Handle(context.WithValue(ctx, sessionKey{}, s), req)
		})
	}
	return append([]jsonrpc.Middleware{withSession}, mw...)
}

// closed is told when the session's connection has ended, with the error
// it ended with (nil for an orderly close).
func (s *Session) closed(err error) {
	defer close(s.ended)
	if f := s.client.opts.OnSessionClosed; f != nil {
		f(s, err)
	}
}
