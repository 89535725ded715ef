package otel

import (
	"context"
	"encoding/json"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The server's side: a SERVER span for each request and notification of
// a client, whose parent is the trace context in its _meta; a CLIENT span
// for each request and notification the server sends, whose context goes
// in their _meta.

// serverIncoming is the server's Middleware.
func (t *Instrumentation) serverIncoming(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var o op
		t.begin(&o, req)
		o.received = true
		sess := server.SessionFromContext(ctx)
		t.fromServerSession(&o, sess)
		if sess != nil {
			t.serverSessionSeen(sess, o.start)
		}
		ctx, span := t.receive(ctx, &o)
		return t.handle(ctx, &o, span, req, next)
	})
}

// receive starts the SERVER span of a received message o: its parent is
// the trace context of the message's _meta when there is one, linked to
// the context the message arrived in (an HTTP server span) if that is
// another; otherwise the context it arrived in.
func (t *Instrumentation) receive(ctx context.Context, o *op) (context.Context, trace.Span) {
	if o.info.carrier.empty() {
		return t.startSpan(ctx, o, kindServer)
	}
	ambient := trace.SpanContextFromContext(ctx)
	c := carriers.Get().(*carrier)
	*c = o.info.carrier
	ctx = t.prop.Extract(ctx, c)
	*c = carrier{}
	carriers.Put(c)
	if remote := trace.SpanContextFromContext(ctx); ambient.IsValid() && !remote.Equal(ambient) {
		return t.startSpan(ctx, o, kindServer, trace.Link{SpanContext: ambient})
	}
	return t.startSpan(ctx, o, kindServer)
}

// handle runs the handler of a received message under its span, and ends
// the span with the outcome.
func (t *Instrumentation) handle(ctx context.Context, o *op, span trace.Span, req *jsonrpc.Request, next jsonrpc.Handler) (res any, err error) {
	done := false
	defer func() {
		if !done { // the handler panicked: the engine answers -32603
			o.answered(jsonrpc.NewError(jsonrpc.CodeInternalError, "the handler panicked"))
			t.end(ctx, o, span, t.serverOp)
		}
	}()
	res, err = next.Handle(ctx, req)
	done = true
	switch {
	case err != nil:
		o.answered(err)
	case req.Method == mcp.MethodCallTool && resultIsError(res):
		o.toolFailed()
	case req.Method == mcp.MethodInitialize && o.version == "":
		if r, ok := res.(*mcp.InitializeResult); ok && mcp.IsSupported(r.ProtocolVersion) {
			o.version = string(r.ProtocolVersion)
			span.SetAttributes(keyProtocolVersion.String(o.version))
		}
	}
	t.end(ctx, o, span, t.serverOp)
	return res, err
}

// resultIsError reports whether a tools/call result, as a handler
// returned it, has isError.
func resultIsError(res any) bool {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return r != nil && r.IsError
	case mcp.CallToolResult:
		return r.IsError
	case json.RawMessage:
		return rawIsError(r)
	}
	return false
}

// serverOutgoing is the server's Outgoing middleware.
func (t *Instrumentation) serverOutgoing(next jsonrpc.Handler) jsonrpc.Handler {
	return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var o op
		t.begin(&o, req)
		t.fromServerSession(&o, server.SessionFromContext(ctx))
		return t.send(ctx, &o, req, next)
	})
}

// fromServerSession fills in what the server knows of the session: its
// revision (legacy era; a modern request names its own), its id, and the
// transport. A session with an id is an HTTP session and no session at
// all a stateless HTTP request; a session without an id is a connection
// over a stream (stdio).
func (t *Instrumentation) fromServerSession(o *op, sess *server.Session) {
	if sess == nil {
		o.transport, o.http = transportTCP, true
		return
	}
	if o.version == "" {
		if v := sess.ProtocolVersion(); mcp.IsSupported(v) && !mcp.IsModern(v) {
			o.version = string(v)
		}
	}
	if o.session = sess.ID(); o.session != "" {
		o.transport, o.http = transportTCP, true
	} else {
		o.transport = t.stream
	}
}

// send starts the CLIENT span of an outgoing message o, writes its trace
// context into the params, sends it and ends the span with the outcome.
func (t *Instrumentation) send(ctx context.Context, o *op, req *jsonrpc.Request, next jsonrpc.Handler) (any, error) {
	ctx, span := t.startSpan(ctx, o, kindClient)
	c := carriers.Get().(*carrier)
	c.keys = t.keys
	t.prop.Inject(ctx, c)
	req.Params = injectMeta(req.Params, c)
	*c = carrier{}
	carriers.Put(c)
	res, err := next.Handle(ctx, req)
	if o.session == "" && o.sess != nil {
		// A legacy HTTP session's id comes with the answer to initialize.
		if o.session = o.sess.ID(); o.session != "" {
			span.SetAttributes(keySessionID.String(bounded(o.session)))
		}
	}
	if err != nil {
		o.failed(err)
	} else if raw, ok := res.(json.RawMessage); ok {
		switch req.Method {
		case mcp.MethodCallTool:
			if rawIsError(raw) {
				o.toolFailed()
			}
		case mcp.MethodInitialize:
			if o.version == "" {
				if o.version = supportedVersion(jsonscan.Member(raw, "protocolVersion")); o.version != "" {
					span.SetAttributes(keyProtocolVersion.String(o.version))
				}
			}
		}
	}
	t.end(ctx, o, span, t.clientOp)
	return res, err
}

// serverSessionSeen notes when a server's session began: its first
// message.
func (t *Instrumentation) serverSessionSeen(sess *server.Session, at time.Time) {
	if _, ok := t.serverSessions.Load(sess); !ok {
		t.serverSessions.LoadOrStore(sess, at)
	}
}

// serverSessionClosed records the duration of a server's session.
func (t *Instrumentation) serverSessionClosed(sess *server.Session, err error) {
	v, ok := t.serverSessions.LoadAndDelete(sess)
	if !ok {
		return // it never received a message
	}
	var o op
	t.fromServerSession(&o, sess)
	if err != nil {
		o.errType = sessionErrorType(err)
	}
	t.serverSession.Record(context.Background(), time.Since(v.(time.Time)).Seconds(), metric.WithAttributes(o.sessionAttrs()...))
}

// sessionAttrs are the attributes of a session duration.
func (o *op) sessionAttrs() []attribute.KeyValue {
	var a []attribute.KeyValue
	if o.version != "" {
		a = append(a, keyProtocolVersion.String(o.version))
	}
	if o.transport != "" {
		a = append(a, keyNetTransport.String(o.transport))
	}
	if o.http {
		a = append(a, keyNetProtocolName.String(protocolHTTP))
	}
	if o.addr != "" {
		a = append(a, keyServerAddress.String(o.addr))
		if o.port > 0 {
			a = append(a, keyServerPort.Int(o.port))
		}
	}
	if o.errType != "" {
		a = append(a, keyErrorType.String(o.errType))
	}
	return a
}
