package sdk

import (
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// SpanLimits bound what a span keeps. -1 is no limit; 0 keeps nothing of
// that kind (and counts it dropped).
type SpanLimits struct {
	// AttributeValueLength bounds string values, in characters, and
	// byte slices, in bytes, those in arrays and maps included: longer
	// ones are cut. Span, event and link attributes.
	AttributeValueLength int
	// AttributeCount bounds the attributes of a span (distinct keys).
	AttributeCount int
	// EventCount and LinkCount bound the events and links of a span:
	// past them, the oldest is dropped.
	EventCount, LinkCount int
	// AttributePerEvent and AttributePerLink bound the attributes of an
	// event and of a link: the first ones are kept.
	AttributePerEvent, AttributePerLink int
}

// DefaultSpanLimits are the specification's: 128 of each, and no length
// limit.
var DefaultSpanLimits = SpanLimits{
	AttributeValueLength: -1,
	AttributeCount:       128,
	EventCount:           128,
	LinkCount:            128,
	AttributePerEvent:    128,
	AttributePerLink:     128,
}

// TraceConfig configures a TracerProvider. TraceConfigFromEnv reads one
// from the environment.
type TraceConfig struct {
	Resource *Resource
	Sampler  Sampler
	Limits   SpanLimits
	Batch    BatchConfig
}

// A SpanExporter sends spans somewhere. The batch span processor calls
// it from one goroutine at a time, and never after Shutdown.
type SpanExporter interface {
	// ExportSpans sends spans, within ctx. The spans are the
	// processor's again once it returns: it must not keep them.
	ExportSpans(ctx context.Context, spans []*SpanData) error
	// Shutdown stops the exporter, ending within ctx an export in
	// progress.
	Shutdown(ctx context.Context) error
}

// ErrShutdown is what ForceFlush returns after Shutdown.
var ErrShutdown = errors.New("sdk: shut down")

// A TracerProvider makes tracers whose sampled spans go, once ended,
// through a batch span processor to an exporter. It is a
// go.opentelemetry.io/otel/trace.TracerProvider, safe for concurrent use.
type TracerProvider struct {
	embedded.TracerProvider

	resource *Resource
	sampler  Sampler
	limits   SpanLimits
	bsp      *batcher

	mu      sync.Mutex
	tracers map[Scope]*tracer

	shutdown atomic.Bool
}

var _ trace.TracerProvider = (*TracerProvider)(nil)

// NewTracerProvider returns a provider exporting with exp as cfg says; a
// nil cfg.Resource is the empty resource. It starts the batch span
// processor's goroutine, which Shutdown ends.
func NewTracerProvider(exp SpanExporter, cfg TraceConfig) *TracerProvider {
	if cfg.Resource == nil {
		cfg.Resource = NewResource("")
	}
	return &TracerProvider{
		resource: cfg.Resource,
		sampler:  cfg.Sampler,
		limits:   cfg.Limits,
		bsp:      newBatcher(exp, cfg.Batch),
		tracers:  make(map[Scope]*tracer),
	}
}

// Tracer returns the tracer of an instrumentation scope: its name (""
// stays "", as the specification asks), and the version, schema URL and
// attributes of opts. The same scope is the same tracer.
func (p *TracerProvider) Tracer(name string, opts ...trace.TracerOption) trace.Tracer {
	c := trace.NewTracerConfig(opts...)
	sc := Scope{Name: name, Version: c.InstrumentationVersion(), SchemaURL: c.SchemaURL(), Attributes: scopeAttributes(c.InstrumentationAttributes())}
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.tracers[sc]
	if !ok {
		t = &tracer{p: p}
		t.scope = sc
		p.tracers[sc] = t
	}
	return t
}

// scopeAttributes returns the attributes of a scope normalized as span
// attributes are, without length limit.
func scopeAttributes(set attribute.Set) attribute.Set {
	if set.Len() == 0 {
		return set
	}
	if kvs, changed := normalizeAll(set.ToSlice(), -1); changed {
		return attribute.NewSet(kvs...)
	}
	return set
}

// ForceFlush exports the spans ended so far, within ctx. After Shutdown
// it returns ErrShutdown.
func (p *TracerProvider) ForceFlush(ctx context.Context) error {
	return p.bsp.forceFlush(ctx)
}

// Shutdown exports the spans ended so far, within ctx, and stops the
// processor and the exporter; spans started later are not recorded, and
// spans ended later not exported. A span dropped for want of time is
// counted in Dropped. Later calls wait for the first one's end, within
// their ctx, and return nil.
func (p *TracerProvider) Shutdown(ctx context.Context) error {
	p.shutdown.Store(true)
	return p.bsp.shutdown(ctx)
}

// Dropped returns how many sampled spans ended were never handed to the
// exporter: the queue was full, or Shutdown ran out of time. (An export
// that fails is an error, handed to otel.Handle, or returned by
// ForceFlush and Shutdown.)
func (p *TracerProvider) Dropped() int64 { return p.bsp.droppedTotal() }

// tracer starts the spans of one scope.
type tracer struct {
	embedded.Tracer
	p     *TracerProvider
	scope Scope
}

var _ trace.Tracer = (*tracer)(nil)

// Start starts a span, a child of the span in ctx (remote or local)
// unless trace.WithNewRoot is among opts. The sampler decides whether
// it is recorded; a span that is not still carries a new span id, the
// trace id and trace state of its parent, and propagates. After the
// provider's Shutdown, no span is recorded.
func (t *tracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg := trace.NewSpanStartConfig(opts...)
	var parent trace.SpanContext
	if !cfg.NewRoot() {
		parent = trace.SpanContextFromContext(ctx)
	}
	scc := trace.SpanContextConfig{TraceID: parent.TraceID(), SpanID: newSpanID(), TraceState: parent.TraceState()}
	if !scc.TraceID.IsValid() {
		scc.TraceID = newTraceID()
	}
	sampled := !t.p.shutdown.Load() && t.p.sampler.sample(parent, scc.TraceID)
	scc.TraceFlags = parent.TraceFlags() &^ trace.FlagsSampled
	if sampled {
		scc.TraceFlags |= trace.FlagsSampled
	}
	sc := trace.NewSpanContext(scc)
	if !sampled {
		var nr trace.Span = nonRecording{sc: sc, p: t.p}
		return trace.ContextWithSpan(ctx, nr), nr
	}
	start := cfg.Timestamp()
	if start.IsZero() {
		start = time.Now()
	}
	s := &span{t: t}
	s.data = SpanData{
		Resource:    t.p.resource,
		Scope:       &t.scope,
		Name:        name,
		SpanContext: sc,
		Parent:      parent,
		Kind:        trace.ValidateSpanKind(cfg.SpanKind()),
		Start:       start,
	}
	for _, l := range cfg.Links() {
		s.addLink(l)
	}
	if attrs := cfg.Attributes(); len(attrs) > 0 {
		s.setAttributes(attrs, true)
	}
	return trace.ContextWithSpan(ctx, s), s
}

// The ids come from math/rand/v2's global generator: ChaCha8, seeded by
// the runtime from the system's entropy, with no lock. An id is never
// all zeros (which would be invalid).

func newTraceID() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:8], rand.Uint64())
		binary.NativeEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}
