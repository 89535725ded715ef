package otlphttp

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// TraceExporter exports spans over OTLP/HTTP: an
// ExportTraceServiceRequest POSTed to the traces URL. It is an
// sdk.SpanExporter.
type TraceExporter struct {
	c *client
}

var _ sdk.SpanExporter = (*TraceExporter)(nil)

// NewTraceExporter returns an exporter that sends spans as cfg says.
func NewTraceExporter(cfg *Config) (*TraceExporter, error) {
	c, err := newClient(cfg, "spans")
	if err != nil {
		return nil, err
	}
	return &TraceExporter{c: c}, nil
}

// ExportSpans sends spans in one request, retrying what the endpoint
// asks to retry within the timeout and ctx; in several, when one would
// pass MaxRequest bytes (halves, until each fits): a span that alone
// passes it is not sent, and named in the error. It sends nothing for no
// spans. After Shutdown it returns ErrShutdown.
func (x *TraceExporter) ExportSpans(ctx context.Context, spans []*sdk.SpanData) error {
	if len(spans) == 0 {
		return nil
	}
	if x.c.isShutdown() {
		return ErrShutdown
	}
	return x.export(ctx, spans)
}

func (x *TraceExporter) export(ctx context.Context, spans []*sdk.SpanData) error {
	e := encoder{b: make([]byte, 0, x.c.sizeHint())}
	e.traces(spans)
	if len(e.b) > x.c.maxRequest {
		if len(spans) == 1 {
			return fmt.Errorf("otlphttp: 1 span (%.64q) not exported: alone, its request is %d bytes, more than %d", spans[0].Name, len(e.b), x.c.maxRequest)
		}
		h := len(spans) / 2
		return errors.Join(x.export(ctx, spans[:h]), x.export(ctx, spans[h:]))
	}
	if err := x.c.send(ctx, e.b); err != nil {
		return fmt.Errorf("otlphttp: exporting %d spans: %w", len(spans), err)
	}
	return nil
}

// Shutdown stops the exporter: an export in progress is cancelled, and
// Shutdown waits, within ctx, for it to end. Later exports fail with
// ErrShutdown, and so does a second Shutdown.
func (x *TraceExporter) Shutdown(ctx context.Context) error {
	return x.c.shutdown(ctx)
}

// A spanGroup is the spans of one resource and scope, in the order of
// the batch.
type spanGroup struct {
	res   *sdk.Resource
	scope *sdk.Scope
	spans []*sdk.SpanData
}

// traces writes the ExportTraceServiceRequest of spans: resource_spans 1,
// one ResourceSpans for each resource, holding one ScopeSpans for each
// instrumentation scope, each in the order in which its first span comes
// in spans. A provider's spans share its resource and their tracer's
// scope, which are told apart by pointer.
func (e *encoder) traces(spans []*sdk.SpanData) {
	var groups []spanGroup // few: a program has a resource and a few scopes
	for _, sp := range spans {
		if sp == nil {
			continue
		}
		i := 0
		for i < len(groups) && (groups[i].res != sp.Resource || groups[i].scope != sp.Scope) {
			i++
		}
		if i == len(groups) {
			groups = append(groups, spanGroup{res: sp.Resource, scope: sp.Scope})
		}
		groups[i].spans = append(groups[i].spans, sp)
	}
	for i, g := range groups {
		if g.spans == nil {
			continue // written with an earlier group of its resource
		}
		rs := e.begin(1)
		e.resource(1, g.res)
		for j := i; j < len(groups); j++ {
			if groups[j].spans == nil || groups[j].res != g.res {
				continue
			}
			e.scopeSpans(2, &groups[j])
			groups[j].spans = nil
		}
		if g.res != nil {
			e.str(3, g.res.SchemaURL())
		}
		e.end(rs)
	}
}

// scopeSpans writes a ScopeSpans: scope 1 (left out for no scope or the
// zero one), spans 2, schema_url 3.
func (e *encoder) scopeSpans(field int, g *spanGroup) {
	s := e.begin(field)
	if g.scope != nil && *g.scope != (sdk.Scope{}) {
		e.scope(1, g.scope)
	}
	for _, sp := range g.spans {
		e.span(2, sp)
	}
	if g.scope != nil {
		e.str(3, g.scope.SchemaURL)
	}
	e.end(s)
}

// span writes a Span: trace_id 1, span_id 2, trace_state 3,
// parent_span_id 4, name 5, kind 6, start_time_unix_nano 7,
// end_time_unix_nano 8, attributes 9, dropped_attributes_count 10,
// events 11, dropped_events_count 12, links 13, dropped_links_count 14,
// status 15, flags 16.
func (e *encoder) span(field int, sp *sdk.SpanData) {
	s := e.begin(field)
	sc := sp.SpanContext
	tid, sid := sc.TraceID(), sc.SpanID()
	e.bytes(1, tid[:])
	e.bytes(2, sid[:])
	e.str(3, sc.TraceState().String())
	if psid := sp.Parent.SpanID(); psid.IsValid() {
		e.bytes(4, psid[:])
	}
	e.str(5, sp.Name)
	e.uvarint(6, spanKind(sp.Kind))
	e.fixed64(7, unixNano(sp.Start))
	e.fixed64(8, unixNano(sp.End))
	e.attrs(9, sp.Attributes)
	e.uvarint(10, uint64(clampUint32(sp.DroppedAttributes)))
	for i := range sp.Events {
		// Event: time_unix_nano 1, name 2, attributes 3,
		// dropped_attributes_count 4.
		ev := &sp.Events[i]
		es := e.begin(11)
		e.fixed64(1, unixNano(ev.Time))
		e.str(2, ev.Name)
		e.attrs(3, ev.Attributes)
		e.uvarint(4, uint64(clampUint32(ev.DroppedAttributes)))
		e.end(es)
	}
	e.uvarint(12, uint64(clampUint32(sp.DroppedEvents)))
	for i := range sp.Links {
		// Link: trace_id 1, span_id 2, trace_state 3, attributes 4,
		// dropped_attributes_count 5, flags 6.
		l := &sp.Links[i]
		ls := e.begin(13)
		tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		e.bytes(1, tid[:])
		e.bytes(2, sid[:])
		e.str(3, l.SpanContext.TraceState().String())
		e.attrs(4, l.Attributes)
		e.uvarint(5, uint64(clampUint32(l.DroppedAttributes)))
		e.fixed32(6, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		e.end(ls)
	}
	e.uvarint(14, uint64(clampUint32(sp.DroppedLinks)))
	// Status: message 2, code 3; always present.
	ss := e.begin(15)
	e.str(2, sp.StatusDescription)
	e.uvarint(3, statusCode(sp.Status))
	e.end(ss)
	e.fixed32(16, spanFlags(sc.TraceFlags(), sp.Parent))
	e.end(s)
}

// The SpanFlags bits above the W3C trace flags: whether the parent (or
// the linked span) is known to be remote or not, and whether it is.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if parent.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

// spanKind is the Span.SpanKind of k: INTERNAL 1, SERVER 2, CLIENT 3,
// PRODUCER 4, CONSUMER 5, UNSPECIFIED 0 for another.
func spanKind(k trace.SpanKind) uint64 {
	switch k {
	case trace.SpanKindInternal:
		return 1
	case trace.SpanKindServer:
		return 2
	case trace.SpanKindClient:
		return 3
	case trace.SpanKindProducer:
		return 4
	case trace.SpanKindConsumer:
		return 5
	}
	return 0
}

// statusCode is the Status.StatusCode of c: UNSET 0, OK 1, ERROR 2.
func statusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}
