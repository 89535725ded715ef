package sdk

import (
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
)

// SpanData is a span as it is exported: what was recorded, within the
// limits. A span's SpanData does not change once the span has ended,
// which is when exporters see it.
type SpanData struct {
	Resource *Resource
	Scope    *Scope

	Name        string
	SpanContext trace.SpanContext
	// Parent is the parent's span context, the zero one for a root span.
	Parent     trace.SpanContext
	Kind       trace.SpanKind
	Start, End time.Time

	Attributes        []attribute.KeyValue
	DroppedAttributes int
	// Events are the newest events within the limit, oldest first;
	// DroppedEvents counts the older ones left out.
	Events        []Event
	DroppedEvents int
	Links         []Link
	DroppedLinks  int

	Status            codes.Code
	StatusDescription string // for codes.Error only
}

// An Event is something that happened during a span.
type Event struct {
	Name              string
	Time              time.Time
	Attributes        []attribute.KeyValue
	DroppedAttributes int
}

// A Link is a span a span relates to, other than its parent.
type Link struct {
	SpanContext       trace.SpanContext
	Attributes        []attribute.KeyValue
	DroppedAttributes int
}

// span is a recording span: a trace.Span that keeps what it is told,
// until End hands it to the batch span processor.
type span struct {
	embedded.Span
	t *tracer

	mu    sync.Mutex
	ended bool
	dirty bool // the attributes may hold a key more than once
	data  SpanData
}

var _ trace.Span = (*span)(nil)

// SpanContext returns the span's identity.
func (s *span) SpanContext() trace.SpanContext { return s.data.SpanContext }

// IsRecording reports whether the span has not ended yet.
func (s *span) IsRecording() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.ended
}

// TracerProvider returns the provider of the span's tracer.
func (s *span) TracerProvider() trace.TracerProvider { return s.t.p }

// SetName renames the span.
func (s *span) SetName(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.data.Name = name
	}
}

// SetStatus sets the status by the specification's rules: Ok is final,
// Error replaces Unset or an earlier Error, Unset changes nothing; the
// description is kept for Error only.
func (s *span) SetStatus(code codes.Code, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || code < s.data.Status || code > codes.Ok {
		return // codes orders Unset < Error < Ok
	}
	s.data.Status, s.data.StatusDescription = code, ""
	if code == codes.Error {
		s.data.StatusDescription = description
	}
}

// SetAttributes sets attributes, a key set again keeping its first place
// and its last value. Past the attribute count limit, attributes with a
// new key are dropped, and counted.
func (s *span) SetAttributes(attrs ...attribute.KeyValue) {
	if len(attrs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.setAttributes(attrs, false)
	}
}

// setAttributes adds attrs, which the span may keep (and write over)
// when owned.
func (s *span) setAttributes(attrs []attribute.KeyValue, owned bool) {
	lim := &s.t.p.limits
	d := &s.data
	if lim.AttributeCount == 0 {
		d.DroppedAttributes += len(attrs)
		return
	}
	if lim.AttributeCount < 0 || len(d.Attributes)+len(attrs) <= lim.AttributeCount {
		// Everything fits, even should no key repeat: append, and drop
		// the repeated keys once, at the end.
		if len(d.Attributes) == 0 && owned {
			d.Attributes = attrs[:0] // filtered in place
		}
		for _, kv := range attrs {
			if !kv.Valid() {
				d.DroppedAttributes++
				continue
			}
			if v, changed := normalize(kv.Value, lim.AttributeValueLength); changed {
				kv.Value = v
			}
			d.Attributes = append(d.Attributes, kv)
		}
		s.dirty = len(d.Attributes) > 1
		return
	}
	s.dedup()
	for _, kv := range attrs {
		if !kv.Valid() {
			d.DroppedAttributes++
			continue
		}
		i := indexOf(d.Attributes, kv.Key)
		if i < 0 && len(d.Attributes) >= lim.AttributeCount {
			d.DroppedAttributes++
			continue
		}
		if v, changed := normalize(kv.Value, lim.AttributeValueLength); changed {
			kv.Value = v
		}
		if i < 0 {
			d.Attributes = append(d.Attributes, kv)
		} else {
			d.Attributes[i] = kv
		}
	}
}

func indexOf(attrs []attribute.KeyValue, k attribute.Key) int {
	for i := range attrs {
		if attrs[i].Key == k {
			return i
		}
	}
	return -1
}

// dedup keeps one attribute of each key: its first place, its last
// value.
func (s *span) dedup() {
	if !s.dirty {
		return
	}
	s.dirty = false
	attrs := s.data.Attributes
	out := attrs[:0]
	if len(attrs) <= 16 {
		for _, kv := range attrs {
			if i := indexOf(out, kv.Key); i >= 0 {
				out[i] = kv
			} else {
				out = append(out, kv)
			}
		}
	} else {
		seen := make(map[attribute.Key]int, len(attrs))
		for _, kv := range attrs {
			if i, ok := seen[kv.Key]; ok {
				out[i] = kv
			} else {
				seen[kv.Key] = len(out)
				out = append(out, kv)
			}
		}
	}
	clear(attrs[len(out):])
	s.data.Attributes = out
}

// AddEvent adds an event; past the event count limit, the oldest event
// is dropped, and counted.
func (s *span) AddEvent(name string, opts ...trace.EventOption) {
	cfg := trace.NewEventConfig(opts...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.addEvent(name, cfg.Timestamp(), cfg.Attributes())
	}
}

func (s *span) addEvent(name string, at time.Time, attrs []attribute.KeyValue) {
	lim := &s.t.p.limits
	e := Event{Name: name, Time: at}
	e.Attributes, e.DroppedAttributes = limitAttrs(attrs, lim.AttributePerEvent, lim.AttributeValueLength)
	s.data.Events, s.data.DroppedEvents = evict(s.data.Events, s.data.DroppedEvents, lim.EventCount, e)
}

// limitAttrs keeps the first limit attributes (all for -1), normalized;
// it returns them and how many it dropped.
func limitAttrs(attrs []attribute.KeyValue, limit, valueLength int) ([]attribute.KeyValue, int) {
	dropped := 0
	if limit >= 0 && len(attrs) > limit {
		attrs, dropped = attrs[:limit:limit], len(attrs)-limit
	}
	if len(attrs) == 0 {
		return nil, dropped
	}
	attrs, _ = normalizeAll(attrs, valueLength)
	return attrs, dropped
}

// evict appends x to q, dropping the oldest when q holds limit (-1 for
// no limit); it returns q and the count of dropped.
func evict[T any](q []T, dropped, limit int, x T) ([]T, int) {
	switch {
	case limit == 0:
		return q, dropped + 1
	case limit > 0 && len(q) >= limit:
		copy(q, q[1:])
		q[len(q)-1] = x
		return q, dropped + 1
	}
	return append(q, x), dropped
}

// AddLink adds a link; past the link count limit, the oldest link is
// dropped, and counted. A link to nothing (no span context, attributes or
// trace state) is ignored.
func (s *span) AddLink(l trace.Link) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.addLink(l)
	}
}

func (s *span) addLink(l trace.Link) {
	if !l.SpanContext.IsValid() && len(l.Attributes) == 0 && l.SpanContext.TraceState().Len() == 0 {
		return
	}
	lim := &s.t.p.limits
	k := Link{SpanContext: l.SpanContext}
	// The attributes are the caller's: the span keeps a copy.
	k.Attributes, k.DroppedAttributes = limitAttrs(slices.Clone(l.Attributes), lim.AttributePerLink, lim.AttributeValueLength)
	s.data.Links, s.data.DroppedLinks = evict(s.data.Links, s.data.DroppedLinks, lim.LinkCount, k)
}

// The exception event's name and attributes (semantic conventions,
// exceptions on spans).
const (
	exceptionEvent      = "exception"
	exceptionType       = attribute.Key("exception.type")
	exceptionMessage    = attribute.Key("exception.message")
	exceptionStacktrace = attribute.Key("exception.stacktrace")
)

// RecordError adds an exception event for err: its attributes are
// opts', then exception.type (the error's Go type) and
// exception.message (its text), and exception.stacktrace with
// trace.WithStackTrace(true). A nil err records nothing. The span's
// status is not changed.
func (s *span) RecordError(err error, opts ...trace.EventOption) {
	if err == nil {
		return
	}
	cfg := trace.NewEventConfig(opts...)
	attrs := append(cfg.Attributes(), exceptionType.String(typeName(err)), exceptionMessage.String(err.Error()))
	if cfg.StackTrace() {
		attrs = append(attrs, exceptionStacktrace.String(stack()))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.addEvent(exceptionEvent, cfg.Timestamp(), attrs)
	}
}

// typeName is the exception.type of v: the package path and name of its
// type, or how Go writes an unnamed type (*errors.errorString).
func typeName(v any) string {
	t := reflect.TypeOf(v)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// stack is the calling goroutine's stack, up to 2 KiB.
func stack() string {
	b := make([]byte, 2048)
	return string(b[:runtime.Stack(b, false)])
}

// End ends the span: its end time is opts' (trace.WithTimestamp) or
// now, and a sampled span goes to the batch span processor. Later calls,
// and every change after it, do nothing. Called by a deferred call while
// the goroutine panics, End records the panic as an exception event
// (with the stack on trace.WithStackTrace(true)) and panics on.
func (s *span) End(opts ...trace.SpanEndOption) {
	// A reading of the monotonic clock: the duration is right even if
	// the wall clock moves meanwhile.
	end := s.data.Start.Add(time.Since(s.data.Start))
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	cfg := trace.NewSpanEndConfig(opts...)
	if r := recover(); r != nil {
		defer panic(r)
		attrs := []attribute.KeyValue{exceptionType.String(typeName(r)), exceptionMessage.String(fmt.Sprint(r))}
		if cfg.StackTrace() {
			attrs = append(attrs, exceptionStacktrace.String(stack()))
		}
		s.addEvent(exceptionEvent, time.Now(), attrs)
	}
	if t := cfg.Timestamp(); !t.IsZero() {
		end = t
	}
	s.data.End = end
	s.dedup()
	s.ended = true
	s.mu.Unlock()
	if s.data.SpanContext.IsSampled() {
		s.t.p.bsp.enqueue(&s.data)
	}
}

// nonRecording is a span that is not recorded: its context propagates,
// nothing else is kept.
type nonRecording struct {
	embedded.Span
	sc trace.SpanContext
	p  *TracerProvider
}

var _ trace.Span = nonRecording{}

// SpanContext returns the span's identity.
func (s nonRecording) SpanContext() trace.SpanContext { return s.sc }

// TracerProvider returns the provider of the span's tracer.
func (s nonRecording) TracerProvider() trace.TracerProvider { return s.p }

// IsRecording reports false.
func (nonRecording) IsRecording() bool { return false }

// End does nothing.
func (nonRecording) End(...trace.SpanEndOption) {}

// AddEvent does nothing.
func (nonRecording) AddEvent(string, ...trace.EventOption) {}

// AddLink does nothing.
func (nonRecording) AddLink(trace.Link) {}

// RecordError does nothing.
func (nonRecording) RecordError(error, ...trace.EventOption) {}

// SetStatus does nothing.
func (nonRecording) SetStatus(codes.Code, string) {}

// SetName does nothing.
func (nonRecording) SetName(string) {}

// SetAttributes does nothing.
func (nonRecording) SetAttributes(...attribute.KeyValue) {}
