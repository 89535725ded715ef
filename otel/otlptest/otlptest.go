// Package otlptest is an OTLP/HTTP receiver for tests: an endpoint, as a
// collector offers one, to which programs under test export their traces
// and metrics with their OTLP exporters (in process, or in processes
// of their own pointed at it by OTEL_EXPORTER_OTLP_ENDPOINT). It decodes
// the protobuf requests POSTed to /v1/traces and /v1/metrics with the
// OTLP proto types, and keeps the spans and the histogram data points
// they carry, flattened for assertions (TraceRequests and MetricRequests
// return the requests as decoded):
//
//	r := otlptest.NewReceiver(t)
//	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+r.URL)
//	... // run the program
//	r.WaitFor(t, "the server's span", func(spans []otlptest.Span, _ []otlptest.Metric) bool {
//		return otlptest.Find(spans, "my-server", "tools/call get_weather", trace.SpanKindServer) != nil
//	})
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// DefaultWait bounds WaitFor: only an export that never comes reaches it.
const DefaultWait = 30 * time.Second

// MaxBody bounds the body of one export request.
const MaxBody = 64 << 20

// A Receiver is an OTLP/HTTP endpoint that keeps what it receives. Its
// methods are safe for concurrent use.
type Receiver struct {
	// URL is the endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporters
	// add /v1/traces and /v1/metrics).
	URL string

	srv     *httptest.Server
	tb      testing.TB
	mu      sync.Mutex
	spans   []Span
	metrics []Metric
	// The requests as decoded.
	traceReqs  []*coltracepb.ExportTraceServiceRequest
	metricReqs []*colmetricpb.ExportMetricsServiceRequest
	arrived    chan struct{} // signalled (not closed) after each export
}

// A Span is a span as received.
type Span struct {
	Service string // service.name of its resource
	Scope   string // its instrumentation scope
	TraceID string // hex, as trace.TraceID.String writes it
	SpanID  string
	Parent  string // the parent's span id; "" for a root span
	Name    string
	Kind    trace.SpanKind
	// Attrs are the attributes, each written as a string: "x" for a
	// string, 7 for an integer, true for a boolean.
	Attrs         map[string]string
	Status        codes.Code
	StatusMessage string
	Links         []string // the span ids linked to
	Start, End    time.Time
}

// A Metric is one histogram data point as received.
type Metric struct {
	Service string
	Name    string
	Unit    string
	Bounds  []float64 // the explicit bucket boundaries
	Count   uint64
	Attrs   map[string]string
}

// NewReceiver starts a receiver, closed when the test ends. A request it
// cannot decode fails the test.
func NewReceiver(tb testing.TB) *Receiver {
	r := &Receiver{tb: tb, arrived: make(chan struct{}, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, req *http.Request) {
		var m coltracepb.ExportTraceServiceRequest
		if r.decode(w, req, &m) {
			r.addSpans(&m)
			r.reply(w, &coltracepb.ExportTraceServiceResponse{})
		}
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, req *http.Request) {
		var m colmetricpb.ExportMetricsServiceRequest
		if r.decode(w, req, &m) {
			r.addMetrics(&m)
			r.reply(w, &colmetricpb.ExportMetricsServiceResponse{})
		}
	})
	r.srv = httptest.NewServer(mux)
	r.URL = r.srv.URL
	tb.Cleanup(r.srv.Close)
	return r
}

func (r *Receiver) decode(w http.ResponseWriter, req *http.Request, m proto.Message) bool {
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		r.tb.Errorf("otlptest: %s: Content-Type %q, want application/x-protobuf", req.URL.Path, ct)
		http.Error(w, "protobuf only", http.StatusUnsupportedMediaType)
		return false
	}
	var body io.Reader = http.MaxBytesReader(w, req.Body, MaxBody)
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return false
		}
		body = io.LimitReader(z, MaxBody)
	}
	b, err := io.ReadAll(body)
	if err == nil {
		err = proto.Unmarshal(b, m)
	}
	if err != nil {
		r.tb.Errorf("otlptest: %s: %v", req.URL.Path, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func (r *Receiver) reply(w http.ResponseWriter, m proto.Message) {
	b, _ := proto.Marshal(m)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
	select {
	case r.arrived <- struct{}{}:
	default:
	}
}

func (r *Receiver) addSpans(m *coltracepb.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.traceReqs = append(r.traceReqs, m)
	for _, rs := range m.ResourceSpans {
		service := attrs(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{
					Service: service,
					Scope:   ss.GetScope().GetName(),
					TraceID: hex.EncodeToString(s.TraceId),
					SpanID:  hex.EncodeToString(s.SpanId),
					Parent:  hex.EncodeToString(s.ParentSpanId),
					Name:    s.Name,
					Kind:    kinds[s.Kind],
					Attrs:   attrs(s.Attributes),
					Start:   time.Unix(0, int64(s.StartTimeUnixNano)),
					End:     time.Unix(0, int64(s.EndTimeUnixNano)),
				}
				switch s.GetStatus().GetCode() {
				case tracepb.Status_STATUS_CODE_ERROR:
					sp.Status = codes.Error
				case tracepb.Status_STATUS_CODE_OK:
					sp.Status = codes.Ok
				}
				sp.StatusMessage = s.GetStatus().GetMessage()
				for _, l := range s.Links {
					sp.Links = append(sp.Links, hex.EncodeToString(l.SpanId))
				}
				r.spans = append(r.spans, sp)
			}
		}
	}
}

var kinds = map[tracepb.Span_SpanKind]trace.SpanKind{
	tracepb.Span_SPAN_KIND_INTERNAL: trace.SpanKindInternal,
	tracepb.Span_SPAN_KIND_SERVER:   trace.SpanKindServer,
	tracepb.Span_SPAN_KIND_CLIENT:   trace.SpanKindClient,
	tracepb.Span_SPAN_KIND_PRODUCER: trace.SpanKindProducer,
	tracepb.Span_SPAN_KIND_CONSUMER: trace.SpanKindConsumer,
}

func (r *Receiver) addMetrics(m *colmetricpb.ExportMetricsServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.metricReqs = append(r.metricReqs, m)
	for _, rm := range m.ResourceMetrics {
		service := attrs(rm.GetResource().GetAttributes())["service.name"]
		for _, sm := range rm.ScopeMetrics {
			for _, mt := range sm.Metrics {
				h, ok := mt.Data.(*metricpb.Metric_Histogram)
				if !ok {
					continue
				}
				for _, dp := range h.Histogram.DataPoints {
					r.metrics = append(r.metrics, Metric{
						Service: service, Name: mt.Name, Unit: mt.Unit,
						Bounds: dp.ExplicitBounds, Count: dp.Count, Attrs: attrs(dp.Attributes),
					})
				}
			}
		}
	}
}

// attrs renders attributes as strings.
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.GetValue().GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.Key] = fmt.Sprint(v.IntValue)
		case *commonpb.AnyValue_BoolValue:
			m[kv.Key] = fmt.Sprint(v.BoolValue)
		case *commonpb.AnyValue_DoubleValue:
			m[kv.Key] = fmt.Sprint(v.DoubleValue)
		default:
			m[kv.Key] = kv.GetValue().String()
		}
	}
	return m
}

// Spans returns the spans received so far, in the order they arrived.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Metrics returns the histogram data points received so far.
func (r *Receiver) Metrics() []Metric {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.metrics)
}

// TraceRequests returns the export requests of traces received so far,
// as the OTLP proto types decoded them, in the order they arrived. They
// are the receiver's: the caller must not change them.
func (r *Receiver) TraceRequests() []*coltracepb.ExportTraceServiceRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.traceReqs)
}

// MetricRequests returns the export requests of metrics received so far,
// as decoded, in the order they arrived; the caller must not change them.
func (r *Receiver) MetricRequests() []*colmetricpb.ExportMetricsServiceRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.metricReqs)
}

// WaitFor waits until ok holds of what was received, checking after each
// export, and fails the test, with what did arrive, if it does not hold
// within DefaultWait.
func (r *Receiver) WaitFor(tb testing.TB, what string, ok func(spans []Span, metrics []Metric) bool) {
	tb.Helper()
	deadline := time.After(DefaultWait)
	for {
		if ok(r.Spans(), r.Metrics()) {
			return
		}
		select {
		case <-r.arrived:
		case <-deadline:
			tb.Fatalf("otlptest: %s did not arrive within %v; spans received:\n%s", what, DefaultWait, r.Dump())
		}
	}
}

// Dump lists the spans received, one a line, for failure messages.
func (r *Receiver) Dump() string {
	var b strings.Builder
	for _, s := range r.Spans() {
		fmt.Fprintf(&b, "  %s %s %q trace=%s id=%s parent=%s %v\n", s.Service, s.Kind, s.Name, s.TraceID, s.SpanID, s.Parent, s.Attrs)
	}
	return b.String()
}

// Find returns the first span of spans from service with that name and
// kind, or nil.
func Find(spans []Span, service, name string, kind trace.SpanKind) *Span {
	for i := range spans {
		if s := &spans[i]; s.Service == service && s.Name == name && s.Kind == kind {
			return s
		}
	}
	return nil
}

// Tree renders spans as a tree, children under their parent in the
// order they started: each line the span's name, kind and service, its
// duration, and the attributes keys names (all of them when keys is
// empty). Spans whose parent is not among spans are roots.
func Tree(spans []Span, keys ...string) string {
	ids := map[string]bool{}
	children := map[string][]Span{}
	for _, s := range spans {
		ids[s.SpanID] = true
	}
	for _, s := range spans {
		p := s.Parent
		if !ids[p] {
			p = ""
		}
		children[p] = append(children[p], s)
	}
	for _, c := range children {
		slices.SortStableFunc(c, func(a, b Span) int { return a.Start.Compare(b.Start) })
	}
	var b strings.Builder
	var walk func(parent, indent string)
	walk = func(parent, indent string) {
		c := children[parent]
		for i, s := range c {
			branch, next := "├─ ", "│  "
			if i == len(c)-1 {
				branch, next = "└─ ", "   "
			}
			if parent == "" {
				branch, next = "", ""
			}
			fmt.Fprintf(&b, "%s%s%s  %s · %s · %s", indent, branch, s.Name, strings.ToUpper(s.Kind.String()), s.Service, s.End.Sub(s.Start).Round(time.Microsecond))
			if s.Status == codes.Error {
				b.WriteString(" · ERROR")
				if s.StatusMessage != "" {
					fmt.Fprintf(&b, " %q", s.StatusMessage)
				}
			}
			b.WriteByte('\n')
			names := keys
			if len(names) == 0 {
				for k := range s.Attrs {
					names = append(names, k)
				}
				slices.Sort(names)
			}
			for _, k := range names {
				if v, ok := s.Attrs[k]; ok {
					fmt.Fprintf(&b, "%s%s    %s=%s\n", indent, next, k, v)
				}
			}
			walk(s.SpanID, indent+next)
		}
	}
	walk("", "")
	return b.String()
}

// InTrace returns the spans of spans that belong to the trace traceID.
func InTrace(spans []Span, traceID string) []Span {
	var out []Span
	for _, s := range spans {
		if s.TraceID == traceID {
			out = append(out, s)
		}
	}
	return out
}
