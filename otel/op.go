package otel

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/internal/jsonscan"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// An op is one message being instrumented, on either side: what is known
// of it, and how it ended.
type op struct {
	start  time.Time
	method string
	id     jsonrpc.ID
	info   paramsInfo
	span   string // the span name
	name   string // the tool or prompt name

	version   string // mcp.protocol.version
	session   string // mcp.session.id
	transport string // network.transport
	http      bool   // network.protocol.name is http
	addr      string // server.address (the client's side)
	port      int    // server.port

	sess *client.Session // the client's session, whose id the answer to initialize may give

	// The peer chose the method and the names: what reaches the metrics
	// is bounded (see metricKey).
	received bool

	// How it ended.
	errType string // error.type
	code    string // rpc.response.status_code
	desc    string // the span status description
}

// begin fills in what the request says: its params (the trace context
// included) and the span name.
func (t *Instrumentation) begin(o *op, req *jsonrpc.Request) {
	o.start = time.Now()
	o.method, o.id = bounded(req.Method), req.ID
	o.info.carrier.keys = t.keys
	readParams(req.Params, wanted(req.Method), &o.info)
	o.version = o.info.version
	o.span = o.method
	if o.info.name != nil {
		o.span, o.name = t.names.get(o.method, o.info.name)
	}
}

// Span start options, made once.
var (
	kindServer = trace.WithSpanKind(trace.SpanKindServer)
	kindClient = trace.WithSpanKind(trace.SpanKindClient)
)

// attrBufs recycles the buffers of span start attributes: the SDK copies
// them at Start.
var attrBufs = sync.Pool{New: func() any { return new([16]attribute.KeyValue) }}

// startAttrs appends the span attributes known when the message starts.
func (o *op) startAttrs(a []attribute.KeyValue) []attribute.KeyValue {
	a = append(a, keyMethod.String(o.method))
	if o.method == mcp.MethodCallTool {
		a = append(a, keyOperationName.String(operationExecuteTool))
	}
	if o.name != "" {
		switch o.method {
		case mcp.MethodCallTool:
			a = append(a, keyToolName.String(o.name))
		case mcp.MethodGetPrompt:
			a = append(a, keyPromptName.String(o.name))
		}
	}
	if o.info.uri != "" {
		a = append(a, keyResourceURI.String(bounded(o.info.uri)))
	}
	if o.id.IsValid() {
		a = append(a, keyRequestID.String(bounded(idString(o.id))))
	}
	if o.version != "" {
		a = append(a, keyProtocolVersion.String(o.version))
	}
	if o.session != "" {
		a = append(a, keySessionID.String(bounded(o.session)))
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
	return a
}

// startSpan starts the span of o, of the kind given, as a child of ctx.
func (t *Instrumentation) startSpan(ctx context.Context, o *op, kind trace.SpanStartOption, links ...trace.Link) (context.Context, trace.Span) {
	buf := attrBufs.Get().(*[16]attribute.KeyValue)
	defer attrBufs.Put(buf)
	attrs := trace.WithAttributes(o.startAttrs(buf[:0])...)
	if len(links) > 0 {
		return t.tracer.Start(ctx, o.span, kind, attrs, trace.WithLinks(links...))
	}
	return t.tracer.Start(ctx, o.span, kind, attrs)
}

// metricKey returns the series of o's operation duration: the span's
// attributes but the request id, session id and resource URI (high
// cardinality; the URI is opt-in in the conventions). What the peer
// chose is bounded, for a peer must not be able to grow the number of
// series without limit: a method MCP does not define is recorded as
// _OTHER, a tool or prompt name that the receiver refused as invalid
// params (an unknown tool or prompt) is left out, a protocol revision is
// one mcpwire speaks, and an error code in the peer's answer that
// neither JSON-RPC nor MCP defines is _OTHER.
func (o *op) metricKey() metricKey {
	k := metricKey{method: o.method, version: o.version,
		transport: o.transport, http: o.http, addr: o.addr, port: o.port,
		errType: o.errType, code: o.code}
	if o.received && !knownMethods[o.method] {
		k.method = methodOther
	}
	if !o.received && o.code != "" && !knownCodes[o.code] {
		k.code = errOther
		if k.errType == o.code {
			k.errType = errOther
		}
	}
	if !o.received || o.code != invalidParams {
		switch o.method {
		case mcp.MethodCallTool:
			k.tool = o.name
		case mcp.MethodGetPrompt:
			k.prompt = o.name
		}
	}
	return k
}

var invalidParams = strconv.Itoa(int(jsonrpc.CodeInvalidParams))

// knownMethods are the methods and notifications MCP defines.
var knownMethods = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range mcp.KnownMethods() {
		m[name] = true
	}
	return m
}()

// knownCodes are the error codes JSON-RPC and MCP define, as recorded.
var knownCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, c := range []jsonrpc.Code{
		jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound, jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError,
		jsonrpc.CodeConnectionClosed, jsonrpc.CodeRequestTimeout, jsonrpc.CodeOverloaded, jsonrpc.CodeCancelled,
		mcp.CodeResourceNotFound, mcp.CodeURLElicitationRequired, mcp.CodeHeaderMismatch,
		mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion, mcp.CodeUserRejected,
	} {
		m[strconv.Itoa(int(c))] = true
	}
	return m
}()

// idString is the jsonrpc.request.id of id: an integer in decimal, a
// string as it is.
func idString(id jsonrpc.ID) string {
	if n, ok := id.Int64(); ok {
		return strconv.FormatInt(n, 10)
	}
	if s, ok := id.Raw().(string); ok {
		return s
	}
	return id.String()
}

// end ends the span with the outcome and records the duration in h.
func (t *Instrumentation) end(ctx context.Context, o *op, span trace.Span, h metric.Float64Histogram) {
	if o.errType != "" {
		a := []attribute.KeyValue{keyErrorType.String(o.errType)}
		if o.code != "" {
			a = append(a, keyStatusCode.String(o.code))
		}
		span.SetAttributes(a...)
		span.SetStatus(codes.Error, bounded(o.desc))
	}
	span.End()
	h.Record(ctx, time.Since(o.start).Seconds(), t.sets.get(o.metricKey())...)
}

// failed records err, the error a request ended with, as the side that
// sent it saw it: a JSON-RPC error is its code, an HTTP refusal its
// status; local failures have the classes of the errXxx constants.
func (o *op) failed(err error) {
	var se *transport.HTTPStatusError
	var je *jsonrpc.Error
	var fe *jsonrpc.FrameError
	o.desc = err.Error()
	switch {
	case errors.As(err, &se):
		o.errType = strconv.Itoa(se.StatusCode)
	case errors.As(err, &je):
		o.code = strconv.Itoa(int(je.Code))
		o.errType, o.desc = o.code, je.Message
	case errors.Is(err, context.DeadlineExceeded):
		o.errType = errTimeout
	case errors.Is(err, context.Canceled):
		o.errType = errCanceled
	case errors.Is(err, jsonrpc.ErrClosed):
		o.errType = errConnectionClosed
	case errors.As(err, &fe):
		o.errType = errInvalidResponse
	default:
		o.errType = errOther
	}
}

// answered records err, the error a handler returned, as the side that
// answers it: the code it goes out with (jsonrpc.ErrorCode).
func (o *op) answered(err error) {
	code := jsonrpc.ErrorCode(err)
	o.code = strconv.Itoa(int(code))
	o.errType = o.code
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		o.desc = je.Message
	} else {
		o.desc = err.Error()
	}
}

// toolFailed marks a tool result with isError.
func (o *op) toolFailed() { o.errType = errToolError }

// rawIsError reports whether the raw result of a tools/call has isError
// true.
func rawIsError(raw []byte) bool {
	return string(jsonscan.Member(raw, "isError")) == "true"
}

// sessionErrorType is the error.type of a session that ended with err.
func sessionErrorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errTimeout
	case errors.Is(err, context.Canceled):
		return errCanceled
	case errors.Is(err, jsonrpc.ErrTooManyNotifications):
		return "too_many_notifications"
	}
	var se *transport.HTTPStatusError
	if errors.As(err, &se) {
		return strconv.Itoa(se.StatusCode)
	}
	return errOther
}

// peer is what a client knows of the server from the transport's name
// for it (client.Session.Address).
type peer struct {
	transport string
	http      bool
	addr      string
	port      int
}

// peerOf reads the address of a client session: an http(s) URL is a
// server over TCP, any other name (a command line) a subprocess over
// pipes; "" (an in-memory pair) is nothing.
func peerOf(address string) peer {
	if address == "" {
		return peer{}
	}
	if !strings.HasPrefix(address, "http://") && !strings.HasPrefix(address, "https://") {
		return peer{transport: transportPipe}
	}
	p := peer{transport: transportTCP, http: true}
	u, err := url.Parse(address)
	if err != nil {
		return p
	}
	p.addr = u.Hostname()
	switch port := u.Port(); {
	case port != "":
		p.port, _ = strconv.Atoi(port)
	case u.Scheme == "https":
		p.port = 443
	default:
		p.port = 80
	}
	return p
}

// carriers recycles the carriers that the propagator reads and writes.
var carriers = sync.Pool{New: func() any { return new(carrier) }}
