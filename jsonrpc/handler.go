package jsonrpc

import (
	"context"
)

// A Handler answers incoming requests. For a call, the engine sends the
// returned result (marshaled to JSON unless it is a json.RawMessage), or
// the error as an error response; the handler never writes the response
// itself, so no call goes unanswered. For a notification the result is
// discarded and an error is only logged.
//
// The context is cancelled when the peer cancels the request or the
// connection closes. Handlers may call back into the connection that
// delivered the request (see ConnFromContext).
type Handler interface {
	Handle(ctx context.Context, req *Request) (result any, err error)
}

// HandlerFunc adapts a function to the Handler interface.
type HandlerFunc func(ctx context.Context, req *Request) (any, error)

// Handle calls f(ctx, req).
func (f HandlerFunc) Handle(ctx context.Context, req *Request) (any, error) { return f(ctx, req) }

// A Middleware wraps a Handler to add behaviour around it.
type Middleware func(Handler) Handler

// Chain returns h wrapped by the middleware, the first one outermost.
func Chain(h Handler, mw ...Middleware) Handler {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// A Preempter sees each incoming notification on the read path, before it
// joins the ordered queue. It handles out-of-band traffic such as
// cancellation and progress, which must not wait behind the calls it is
// about. Preempt returns true when it has dealt with the notification; it
// must be quick and must not block.
type Preempter interface {
	Preempt(ctx context.Context, req *Request) bool
}

// PreempterFunc adapts a function to the Preempter interface.
type PreempterFunc func(ctx context.Context, req *Request) bool

// Preempt calls f(ctx, req).
func (f PreempterFunc) Preempt(ctx context.Context, req *Request) bool { return f(ctx, req) }

// methodNotFound answers every call with CodeMethodNotFound.
var methodNotFound = HandlerFunc(func(_ context.Context, req *Request) (any, error) {
	return nil, Errorf(CodeMethodNotFound, "Method not found: %s", quoteForMessage(req.Method))
})

type ctxKey int

const (
	connKey ctxKey = iota
	incomingKey
)

// ConnFromContext returns the connection that delivered the request a
// handler is serving, or nil.
func ConnFromContext(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey).(*Conn)
	return c
}

// IncomingID returns the id of the call whose handler owns ctx. Transports
// use it to send a handler's notifications and requests on the stream of
// the call they relate to.
func IncomingID(ctx context.Context) (ID, bool) {
	if ic, ok := ctx.Value(incomingKey).(*incoming); ok {
		return ic.req.ID, ic.req.ID.IsValid()
	}
	return ID{}, false
}

// WithIncomingID returns a context that IncomingID reports id for, for
// code that handles a request outside a Conn.
func WithIncomingID(ctx context.Context, id ID) context.Context {
	return context.WithValue(ctx, incomingKey, &incoming{req: &Request{ID: id}})
}
