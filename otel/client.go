package otel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// The client's side: a CLIENT span for each request and notification the
// client sends, whose context goes in their _meta; a SERVER span for each
// request and notification of the server, whose parent is the trace
// context in its _meta.

// clientState is what the instrumentation keeps of a client session
// while it lasts.
type clientState struct {
	start time.Time
	peer  peer
}

// clientOutgoing is the client's Outgoing middleware.
func (t *Instrumentation) clientOutgoing(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var o op
		t.begin(&o, req)
		t.fromClientSession(&o, client.SessionFromContext(ctx))
		return t.send(ctx, &o, req, next)
	})
}

// clientIncoming is the client's Middleware.
func (t *Instrumentation) clientIncoming(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var o op
		t.begin(&o, req)
		o.received = true
		t.fromClientSession(&o, client.SessionFromContext(ctx))
		ctx, span := t.receive(ctx, &o)
		return t.handle(ctx, &o, span, req, next)
	})
}

// fromClientSession fills in what the client knows of the session: the
// revision (legacy era; a modern request names its own), the transport
// session's id, and the server's address.
func (t *Instrumentation) fromClientSession(o *op, sess *client.Session) {
	if sess == nil {
		return
	}
	st := t.clientSeen(sess, o.start)
	if o.version == "" {
		if v := sess.ProtocolVersion(); mcp.IsSupported(v) && !mcp.IsModern(v) {
			o.version = string(v)
		}
	}
	o.sess = sess
	o.session = sess.ID()
	o.transport, o.http, o.addr, o.port = st.peer.transport, st.peer.http, st.peer.addr, st.peer.port
}

// clientSeen returns the state of a client session, noting when it began
// (its first message).
func (t *Instrumentation) clientSeen(sess *client.Session, at time.Time) *clientState {
	if v, ok := t.clientSessions.Load(sess); ok {
		return v.(*clientState)
	}
	v, _ := t.clientSessions.LoadOrStore(sess, &clientState{start: at, peer: peerOf(sess.Address())})
	return v.(*clientState)
}

// clientSessionClosed records the duration of a client's session.
func (t *Instrumentation) clientSessionClosed(sess *client.Session, err error) {
	v, ok := t.clientSessions.LoadAndDelete(sess)
	if !ok {
		return
	}
	st := v.(*clientState)
	o := op{transport: st.peer.transport, http: st.peer.http, addr: st.peer.addr, port: st.peer.port}
	if v := sess.ProtocolVersion(); mcp.IsSupported(v) {
		o.version = string(v)
	}
	if err != nil {
		o.errType = sessionErrorType(err)
	}
	t.clientSession.Record(context.Background(), time.Since(st.start).Seconds(), metric.WithAttributes(o.sessionAttrs()...))
}
