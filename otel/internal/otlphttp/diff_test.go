package otlphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwire/mcpwire/otel/otlptest"
)

// The differential tests: the same spans and metrics exported by the
// official OTLP/HTTP exporters and by this package's must arrive as the
// same messages, as the OTLP proto types decode them (otlptest's
// receiver), and, where the official exporter's output is deterministic,
// as the same bytes.

// officialTraces exports spans with otlptracehttp to url.
func officialTraces(t *testing.T, url string, hc *http.Client, spans []sdktrace.ReadOnlySpan) error {
	t.Helper()
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(url + "/v1/traces"), otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false})}
	if hc != nil {
		opts = append(opts, otlptracehttp.WithHTTPClient(hc))
	}
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Shutdown(context.Background())
	return exp.ExportSpans(context.Background(), spans)
}

func officialMetrics(t *testing.T, url string, hc *http.Client, rm *metricdata.ResourceMetrics) error {
	t.Helper()
	opts := []otlpmetrichttp.Option{otlpmetrichttp.WithEndpointURL(url + "/v1/metrics"), otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false})}
	if hc != nil {
		opts = append(opts, otlpmetrichttp.WithHTTPClient(hc))
	}
	exp, err := otlpmetrichttp.New(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Shutdown(context.Background())
	return exp.Export(context.Background(), rm)
}

func ourTraces(t *testing.T, url string, hc *http.Client, gzip bool, spans []sdktrace.ReadOnlySpan) error {
	t.Helper()
	exp, err := NewTraceExporter(&Config{URL: url + "/v1/traces", httpClient: hc, Gzip: gzip})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Shutdown(context.Background())
	return exp.ExportSpans(context.Background(), toSDK(spans))
}

func ourMetrics(t *testing.T, url string, hc *http.Client, gzip bool, rm *metricdata.ResourceMetrics) error {
	t.Helper()
	exp, err := NewMetricExporter(&Config{URL: url + "/v1/metrics", httpClient: hc, Gzip: gzip})
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Shutdown(context.Background())
	return exp.Export(context.Background(), toSDKMetrics(rm))
}

// sortResources orders the ResourceSpans of a request by their
// resource's encoding: the official exporter writes them in the order of
// a map's iteration.
func sortResources(m *coltracepb.ExportTraceServiceRequest) {
	key := func(rs *tracepb.ResourceSpans) string {
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(rs.GetResource())
		return string(b)
	}
	slices.SortStableFunc(m.ResourceSpans, func(a, b *tracepb.ResourceSpans) int { return strings.Compare(key(a), key(b)) })
}

// addLinkStates writes into m, decoded from the official exporter's
// request, the trace state of the links of spans, which it leaves out
// (tracetransform.links does not copy it; the proto has the field).
func addLinkStates(m *coltracepb.ExportTraceServiceRequest, spans []sdktrace.ReadOnlySpan) {
	bySpanID := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		id := s.SpanContext().SpanID()
		bySpanID[string(id[:])] = s
	}
	for _, rs := range m.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				for i, l := range sp.Links {
					l.TraceState = bySpanID[string(sp.SpanId)].Links()[i].SpanContext.TraceState().String()
				}
			}
		}
	}
}

func diff(t *testing.T, what string, want, got proto.Message) {
	t.Helper()
	if !proto.Equal(want, got) {
		w, g := prototext.Format(want), prototext.Format(got)
		// The first line that differs, and the whole messages.
		wl, gl := strings.Split(w, "\n"), strings.Split(g, "\n")
		for i := range min(len(wl), len(gl)) {
			if wl[i] != gl[i] {
				t.Errorf("%s: line %d differs:\nofficial: %s\nours:     %s", what, i+1, wl[i], gl[i])
				break
			}
		}
		t.Fatalf("%s: the messages differ (official %d lines, ours %d)", what, len(wl), len(gl))
	}
}

// TestTracesAsOfficial sends the rich set of spans with both exporters
// to otlptest receivers and compares what they decoded.
func TestTracesAsOfficial(t *testing.T) {
	for _, gzip := range []bool{false, true} {
		spans := richSpans(true)
		official, ours := otlptest.NewReceiver(t), otlptest.NewReceiver(t)
		if err := officialTraces(t, official.URL, nil, spans); err != nil {
			t.Fatal(err)
		}
		if err := ourTraces(t, ours.URL, nil, gzip, spans); err != nil {
			t.Fatal(err)
		}
		want, got := official.TraceRequests(), ours.TraceRequests()
		if len(want) != 1 || len(got) != 1 {
			t.Fatalf("%d and %d requests, want 1", len(want), len(got))
		}
		if n := len(got[0].ResourceSpans); n != 3 {
			t.Errorf("%d ResourceSpans, want 3", n)
		}
		sortResources(want[0])
		sortResources(got[0])
		addLinkStates(want[0], spans)
		diff(t, "traces", want[0], got[0])
		if len(ours.Spans()) != len(spans) {
			t.Errorf("%d spans received, want %d", len(ours.Spans()), len(spans))
		}
	}
}

// TestMetricsAsOfficial does the same with metrics of every aggregation,
// one of which (an unknown temporality) both exporters leave out,
// reporting it.
func TestMetricsAsOfficial(t *testing.T) {
	for _, gzip := range []bool{false, true} {
		official, ours := otlptest.NewReceiver(t), otlptest.NewReceiver(t)
		oerr := officialMetrics(t, official.URL, nil, richMetrics())
		err := ourMetrics(t, ours.URL, nil, gzip, richMetrics())
		if oerr == nil || err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `"bad.temporality"`) {
			t.Errorf("errors: official %v, ours %v; want both to report bad.temporality", oerr, err)
		}
		want, got := official.MetricRequests(), ours.MetricRequests()
		if len(want) != 1 || len(got) != 1 {
			t.Fatalf("%d and %d requests, want 1", len(want), len(got))
		}
		diff(t, "metrics", want[0], got[0])
	}
}

// capture is an http.RoundTripper that keeps request bodies and answers
// 200 with an empty body.
type capture struct {
	mu     sync.Mutex
	bodies [][]byte
	header []http.Header
}

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, b)
	c.header = append(c.header, r.Header.Clone())
	c.mu.Unlock()
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{}, Body: http.NoBody, Request: r}, nil
}

func (c *capture) last(t *testing.T) []byte {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bodies) == 0 {
		t.Fatal("no request")
	}
	return c.bodies[len(c.bodies)-1]
}

// TestBytesAsOfficial compares the bodies themselves: where the official
// exporter's order is deterministic (one resource) and it writes every
// field (no link trace state), the exporter writes the same bytes as
// proto.Marshal of the official transform.
func TestBytesAsOfficial(t *testing.T) {
	o, m := &capture{}, &capture{}
	spans := oneResourceSpans()
	if err := officialTraces(t, "http://otlp.invalid", &http.Client{Transport: o}, spans); err != nil {
		t.Fatal(err)
	}
	if err := ourTraces(t, "http://otlp.invalid", &http.Client{Transport: m}, false, spans); err != nil {
		t.Fatal(err)
	}
	if want, got := o.last(t), m.last(t); !bytes.Equal(want, got) {
		t.Errorf("traces: %d bytes, official %d; first difference at %d", len(got), len(want), firstDiff(want, got))
	}
	_ = officialMetrics(t, "http://otlp.invalid", &http.Client{Transport: o}, richMetrics())
	_ = ourMetrics(t, "http://otlp.invalid", &http.Client{Transport: m}, false, richMetrics())
	if want, got := o.last(t), m.last(t); !bytes.Equal(want, got) {
		t.Errorf("metrics: %d bytes, official %d; first difference at %d", len(got), len(want), firstDiff(want, got))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestInvalidUTF8IsReplaced checks that a string that is not UTF-8 (an
// attribute value a peer sent, say) arrives with U+FFFD in place of the
// invalid bytes, where the official exporter refuses the whole batch.
func TestInvalidUTF8IsReplaced(t *testing.T) {
	bad := "ok\xff\xfe-end"
	spans := stubSpans(attribute.String("k\x80", bad), attribute.StringSlice("list", []string{bad}))
	r := otlptest.NewReceiver(t)
	if err := officialTraces(t, r.URL, nil, spans); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("the official exporter: %v, want an error about UTF-8", err)
	}
	if err := ourTraces(t, r.URL, nil, false, spans); err != nil {
		t.Fatal(err)
	}
	got := r.Spans()
	if len(got) != 1 {
		t.Fatalf("%d spans arrived, want 1", len(got))
	}
	if v := got[0].Attrs["k\uFFFD"]; v != "ok\uFFFD-end" {
		t.Errorf("the attribute arrived as %q (keys %v)", v, got[0].Attrs)
	}
}

// sdkSpans returns spans as the SDK records them: nested, with events,
// links, errors, and its own limits (a dropped attribute).
func sdkSpans(t *testing.T) []sdktrace.ReadOnlySpan {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(resFull),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{AttributeCountLimit: 40, EventCountLimit: 1, LinkCountLimit: 1,
			AttributeValueLengthLimit: 64, AttributePerEventCountLimit: 2, AttributePerLinkCountLimit: 2}))
	defer tp.Shutdown(context.Background())
	tr := tp.Tracer("github.com/mcpwire/mcpwire/otel", trace.WithInstrumentationVersion("v0.1.0"),
		trace.WithSchemaURL("https://opentelemetry.io/schemas/1.41.0"), trace.WithInstrumentationAttributes(attribute.Bool("x", true)))
	ctx, root := tr.Start(context.Background(), "mcpwire call", trace.WithAttributes(everyAttr("root.")...))
	_, child := tr.Start(ctx, "tools/call lookup", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithLinks(trace.Link{SpanContext: root.SpanContext(), Attributes: everyAttr("l.")}, trace.Link{SpanContext: root.SpanContext()}))
	child.AddEvent("e1", trace.WithAttributes(everyAttr("e.")...))
	child.AddEvent("e2")
	child.RecordError(errors.New("boom"))
	child.SetStatus(codes.Error, "the tool failed")
	child.End()
	_, other := tp.Tracer("other").Start(ctx, "db.query")
	other.SetStatus(codes.Ok, "ignored")
	other.End()
	root.End()
	return rec.Ended()
}

// sdkMetrics returns what the SDK collects of instruments of every kind,
// explicit and exponential histograms among them.
func sdkMetrics(t *testing.T) *metricdata.ResourceMetrics {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(resFull),
		sdkmetric.WithView(sdkmetric.NewView(sdkmetric.Instrument{Name: "exp.*"},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 160, MaxScale: 20}})))
	defer mp.Shutdown(context.Background())
	m := mp.Meter("github.com/mcpwire/mcpwire/otel", metric.WithInstrumentationVersion("v0.1.0"))
	set := metric.WithAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.Int("n", 1))
	h, _ := m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300))
	e, _ := m.Float64Histogram("exp.duration")
	ei, _ := m.Int64Histogram("exp.size")
	c, _ := m.Int64Counter("requests")
	u, _ := m.Float64UpDownCounter("inflight")
	g, _ := m.Int64Gauge("gauge")
	_, _ = m.Float64ObservableGauge("observed", metric.WithFloat64Callback(func(_ context.Context, o metric.Float64Observer) error {
		o.Observe(2.5, set)
		return nil
	}))
	for i, v := range []float64{0.003, 0.04, 0.7, 250, 1e-9, -3, 0} {
		h.Record(context.Background(), v, set)
		e.Record(context.Background(), v, set)
		ei.Record(context.Background(), int64(i*1000-2000))
		c.Add(context.Background(), int64(i), set)
		u.Add(context.Background(), -v)
		g.Record(context.Background(), int64(-i))
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return &rm
}

// TestSDKDataAsOfficial compares the two exporters on what the SDK
// records, byte for byte.
func TestSDKDataAsOfficial(t *testing.T) {
	spans, rm := sdkSpans(t), sdkMetrics(t)
	o, m := &capture{}, &capture{}
	if err := officialTraces(t, "http://otlp.invalid", &http.Client{Transport: o}, spans); err != nil {
		t.Fatal(err)
	}
	if err := ourTraces(t, "http://otlp.invalid", &http.Client{Transport: m}, false, spans); err != nil {
		t.Fatal(err)
	}
	if want, got := o.last(t), m.last(t); !bytes.Equal(want, got) {
		t.Errorf("traces: %d bytes, official %d; first difference at %d", len(got), len(want), firstDiff(want, got))
	}
	if err := officialMetrics(t, "http://otlp.invalid", &http.Client{Transport: o}, rm); err != nil {
		t.Fatal(err)
	}
	if err := ourMetrics(t, "http://otlp.invalid", &http.Client{Transport: m}, false, rm); err != nil {
		t.Fatal(err)
	}
	want, got := o.last(t), m.last(t)
	if !bytes.Equal(want, got) {
		t.Errorf("metrics: %d bytes, official %d; first difference at %d", len(got), len(want), firstDiff(want, got))
	}
	var req colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(got, &req); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, m := range req.ResourceMetrics[0].ScopeMetrics[0].Metrics {
		kinds[fmt.Sprintf("%T", m.Data)] = true
	}
	if len(kinds) != 4 {
		t.Errorf("the SDK's data has %v, want gauges, sums, histograms and exponential histograms", kinds)
	}
}
