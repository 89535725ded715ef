package otel

import (
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/server"
)

// ScopeName is the instrumentation scope of the tracer and meter.
const ScopeName = "github.com/mcpwire/mcpwire/otel"

// SchemaURL is the schema of the semantic conventions followed, release
// 1.41 (the MCP conventions of v1.41.1; see the package overview).
const SchemaURL = "https://opentelemetry.io/schemas/1.41.0"

// Options configure the instrumentation. A nil *Options, and every zero
// field, mean the defaults.
type Options struct {
	// TracerProvider makes the tracer. Default: the global one
	// (go.opentelemetry.io/otel.GetTracerProvider), as it is when New
	// runs.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter. Default: the global one.
	MeterProvider metric.MeterProvider
	// Propagator writes the trace context into params._meta of what is
	// sent and reads it from what is received. Default: W3C Trace
	// Context and Baggage, whose keys (traceparent, tracestate, baggage)
	// are the ones MCP reserves in _meta (SEP-414). A program that
	// configures its propagators (OTEL_PROPAGATORS) passes
	// otel.GetTextMapPropagator(). Only the propagator's Fields are
	// carried, at most 8.
	Propagator propagation.TextMapPropagator
	// StreamTransport is the network.transport recorded for a server's
	// sessions over a byte stream, which the server cannot tell apart:
	// "pipe" (stdio, the default), or "unix", "tcp" for a stream over a
	// socket. HTTP sessions and stateless HTTP requests are "tcp".
	StreamTransport string
}

// An Instrumentation records the traces and metrics of MCP servers and
// clients, and carries trace context between them. Server and Client add
// it to their options. One Instrumentation serves any number of servers,
// clients and sessions, concurrently.
type Instrumentation struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
	keys   []string // the propagator's fields: the _meta keys carried
	stream string

	clientOp, serverOp           metric.Float64Histogram
	clientSession, serverSession metric.Float64Histogram

	names spanNames  // span names of tool and prompt calls (cache.go)
	sets  metricSets // attribute sets of the operation durations

	// When each session began (its first message), until it ends.
	serverSessions sync.Map // *server.Session → time.Time
	clientSessions sync.Map // *client.Session → time.Time
}

// New returns an instrumentation. Errors making the instruments go to
// the global error handler (otel.Handle); the instrumentation then
// records what it can.
func New(opts *Options) *Instrumentation {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.TracerProvider == nil {
		o.TracerProvider = otel.GetTracerProvider()
	}
	if o.MeterProvider == nil {
		o.MeterProvider = otel.GetMeterProvider()
	}
	if o.Propagator == nil {
		o.Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	if o.StreamTransport == "" {
		o.StreamTransport = "pipe"
	}
	t := &Instrumentation{
		tracer: o.TracerProvider.Tracer(ScopeName, trace.WithSchemaURL(SchemaURL)),
		prop:   o.Propagator,
		stream: o.StreamTransport,
	}
	t.keys = o.Propagator.Fields()
	if len(t.keys) > maxFields {
		t.keys = t.keys[:maxFields]
	}
	t.makeInstruments(o.MeterProvider.Meter(ScopeName, metric.WithSchemaURL(SchemaURL)))
	return t
}

// Server returns a copy of o (nil for the defaults) instrumented: spans
// and the operation duration of what the clients ask (Middleware) and of
// what the server sends on its own (Outgoing), outermost, with the trace
// context read from and written to params._meta; the session duration
// when a session ends (OnSessionClosed, before o's own). A nil t
// returns a copy of o as it is.
func (t *Instrumentation) Server(o *server.Options) *server.Options {
	var c server.Options
	if o != nil {
		c = *o
	}
	if t == nil {
		return &c
	}
	c.Middleware = prepend(t.serverIncoming, c.Middleware)
	c.Outgoing = prepend(t.serverOutgoing, c.Outgoing)
	own := c.OnSessionClosed
	c.OnSessionClosed = func(sess *server.Session, err error) {
		t.serverSessionClosed(sess, err)
		if own != nil {
			own(sess, err)
		}
	}
	return &c
}

// Client returns a copy of o (nil for the defaults) instrumented: spans
// and the operation duration of the requests and notifications the
// client sends (Outgoing), with the trace context written to
// params._meta, and of the server's requests and notifications
// (Middleware), read from it, outermost; the session duration when a
// session ends (OnSessionClosed, before o's own). A nil t returns a
// copy of o as it is.
func (t *Instrumentation) Client(o *client.Options) *client.Options {
	var c client.Options
	if o != nil {
		c = *o
	}
	if t == nil {
		return &c
	}
	c.Outgoing = prepend(t.clientOutgoing, c.Outgoing)
	c.Middleware = prepend(t.clientIncoming, c.Middleware)
	own := c.OnSessionClosed
	c.OnSessionClosed = func(s *client.Session, err error) {
		t.clientSessionClosed(s, err)
		if own != nil {
			own(s, err)
		}
	}
	return &c
}

// prepend returns mw with first before it, in a new slice.
func prepend(first jsonrpc.Middleware, mw []jsonrpc.Middleware) []jsonrpc.Middleware {
	return append([]jsonrpc.Middleware{first}, mw...)
}
