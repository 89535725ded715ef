package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	mcpotel "github.com/mcpwire/mcpwire/otel"
	"github.com/mcpwire/mcpwire/otel/otlpenv"
	"github.com/mcpwire/mcpwire/otel/otlptest"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// The differential tests: the same calls, through the official Go SDK
// and its OTLP/HTTP exporters on one side, and through what otlpenv sets
// up (mcpwire's SDK and exporters) on the other, each to an otlptest
// receiver, must arrive as the same messages once what must differ is
// made the same (norm_test.go). The environment (t.Setenv) configures
// both sides alike: the official SDK reads it from the process, otlpenv
// through Options.Getenv, here os.Getenv but for the endpoint.

// A side is one SDK, exporting to its own receiver.
type side struct {
	name     string
	ours     bool
	rcv      *otlptest.Receiver
	tp       trace.TracerProvider
	mp       metric.MeterProvider
	flush    func(context.Context) error
	shutdown func(context.Context) error
}

const (
	serviceName    = "differential"
	serviceVersion = "1.2.3"
)

func officialSide(t *testing.T) *side {
	t.Helper()
	rcv := otlptest.NewReceiver(t)
	ctx := context.Background()
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", serviceName), attribute.String("service.version", serviceVersion)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		t.Fatal(err)
	}
	texp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(rcv.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	mexp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(rcv.URL+"/v1/metrics"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(texp), sdktrace.WithResource(res))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)), sdkmetric.WithResource(res))
	return &side{name: "official", rcv: rcv, tp: tp, mp: mp,
		flush:    func(ctx context.Context) error { return errors.Join(tp.ForceFlush(ctx), mp.ForceFlush(ctx)) },
		shutdown: func(ctx context.Context) error { return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx)) }}
}

func ourSide(t *testing.T) *side {
	t.Helper()
	rcv := otlptest.NewReceiver(t)
	getenv := func(k string) string {
		if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
			return rcv.URL
		}
		return os.Getenv(k)
	}
	tel, err := otlpenv.Setup(context.Background(), otlpenv.Options{ServiceName: serviceName, ServiceVersion: serviceVersion, Getenv: getenv})
	if err != nil || tel == nil {
		t.Fatal(tel, err)
	}
	return &side{name: "mcpwire", ours: true, rcv: rcv, tp: tel.TracerProvider, mp: tel.MeterProvider, flush: tel.ForceFlush, shutdown: tel.Shutdown}
}

// differential runs run on both sides under env, shuts both down, and
// compares what their receivers got; cut and fuzzy are the normalizer's.
func differential(t *testing.T, env map[string]string, cut int, fuzzy bool, run func(t *testing.T, s *side)) {
	differentialZero(t, env, cut, fuzzy, false, run)
}

func differentialZero(t *testing.T, env map[string]string, cut int, fuzzy, zeroLimits bool, run func(t *testing.T, s *side)) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	var spans, points [2][]string
	for i, s := range []*side{officialSide(t), ourSide(t)} {
		run(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := s.shutdown(ctx)
		cancel()
		if err != nil {
			t.Fatalf("%s: Shutdown: %v", s.name, err)
		}
		n := &normalizer{t: t, side: s.name, ours: s.ours, fuzzy: fuzzy, cut: cut, zeroLimits: zeroLimits}
		spans[i] = n.spans(s.rcv.TraceRequests())
		points[i] = n.points(s.rcv.MetricRequests())
	}
	t.Logf("%d spans, %d metric points", len(spans[1]), len(points[1]))
	same(t, "spans", spans[0], spans[1])
	same(t, "metric points", points[0], points[1])
}

// TestAsOfficialInstrumentation runs mcpwire's instrumentation on a real
// client and server, in process, both eras: a tool that makes a span of
// its own and logs to the client, a tool result with isError, an unknown
// tool, a prompt, a resource, sessions closed; under a host's span.
func TestAsOfficialInstrumentation(t *testing.T) {
	for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
		t.Run(string(v), func(t *testing.T) {
			differential(t, nil, 0, true, func(t *testing.T, s *side) {
				inst := mcpotel.New(&mcpotel.Options{TracerProvider: s.tp, MeterProvider: s.mp})
				closed := make(chan struct{})
				srv := newServer(inst.Server(&server.Options{OnSessionClosed: func(*server.Session, error) { close(closed) }}))
				defer srv.Close()
				ctx := context.Background()
				ct, st := memory.NewPair(nil)
				if _, err := srv.Connect(ctx, st); err != nil {
					t.Fatal(err)
				}
				hctx, host := s.tp.Tracer("host").Start(ctx, "host "+string(v))
				cs, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, inst.Client(&client.Options{Version: v})).Connect(hctx, ct)
				if err != nil {
					t.Fatal(err)
				}
				logs := client.WithLogLevel(hctx, mcp.LevelDebug)
				if res, err := cs.CallTool(logs, &mcp.CallToolParams{Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris"}`)}); err != nil || res.IsError {
					t.Fatalf("lookup: %v %v", res, err)
				}
				if res, err := cs.CallTool(hctx, &mcp.CallToolParams{Name: "fail"}); err != nil || !res.IsError {
					t.Fatalf("fail: %v %v", res, err)
				}
				if _, err := cs.CallTool(hctx, &mcp.CallToolParams{Name: "nope"}); jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidParams {
					t.Fatalf("nope: %v", err)
				}
				if _, err := cs.GetPrompt(hctx, &mcp.GetPromptParams{Name: "greet"}); err != nil {
					t.Fatal(err)
				}
				if _, err := cs.ReadResource(hctx, &mcp.ReadResourceParams{URI: "file:///notes.txt"}); err != nil {
					t.Fatal(err)
				}
				cs.Close()
				host.End()
				if !mcp.IsModern(v) { // a modern session is no connection of the server's
					<-closed
				}
			})
		})
	}
}

func newServer(opts *server.Options) *server.Server {
	s := server.New(mcp.Implementation{Name: "traced", Version: "1.0.0"}, opts)
	type in struct {
		City string `json:"city"`
	}
	server.AddTool(s, &mcp.Tool{Name: "lookup"}, func(ctx context.Context, r *server.Request, in in) (string, error) {
		_, sp := trace.SpanFromContext(ctx).TracerProvider().Tracer("weather-db").Start(ctx, "db.query")
		sp.End()
		if err := r.Log(ctx, mcp.LevelInfo, "lookup", "looking up "+in.City); err != nil {
			return "", err
		}
		return "sunny in " + in.City, nil
	})
	s.AddTool(&mcp.Tool{Name: "fail", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return server.ErrorResult("the service is down"), nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Hello"}}}}, nil
	}, nil)
	s.AddResource(&mcp.Resource{URI: "file:///notes.txt", Name: "notes"}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, MimeType: "text/plain", Text: "notes"}}}, nil
	})
	return s
}

// everyAttr returns an attribute of each type, keys prefixed: nested
// arrays and maps, a map with a key twice (the last value wins), bytes,
// the empty value, strings that are not ASCII.
func everyAttr(prefix string) []attribute.KeyValue {
	k := func(s string) string { return prefix + s }
	return []attribute.KeyValue{
		attribute.Bool(k("bool"), true),
		attribute.Int64(k("int"), math.MinInt64),
		attribute.Float64(k("float"), -2.5),
		attribute.String(k("string"), "héllo, wörld"),
		attribute.BoolSlice(k("bools"), []bool{true, false}),
		attribute.Int64Slice(k("ints"), []int64{1, -2, math.MaxInt64}),
		attribute.Float64Slice(k("floats"), []float64{0.5, math.Inf(-1)}),
		attribute.StringSlice(k("strings"), []string{"a", "béé", ""}),
		attribute.ByteSlice(k("bytes"), []byte{0, 1, 0xff}),
		attribute.Slice(k("slice"), attribute.StringValue("x"), attribute.IntValue(3),
			attribute.SliceValue(attribute.BoolValue(false)), attribute.MapValue(attribute.String("in", "slice"))),
		attribute.Map(k("map"), attribute.String("b", "first"), attribute.Int("a", 1), attribute.String("b", "last"),
			attribute.KeyValue{Key: "m", Value: attribute.MapValue(attribute.Float64("deep", 1.5), attribute.Float64("deep", 2.5))}),
		{Key: attribute.Key(k("empty"))},
	}
}

// fixed span contexts, for parents and links that are the same on both
// sides.
var (
	remoteTraceID = trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	remoteState   = func() trace.TraceState { ts, _ := trace.ParseTraceState("vendor=abc,other=x-1"); return ts }()
)

func remote(id byte, sampled bool) trace.SpanContext {
	tid := remoteTraceID
	tid[8], tid[15] = id, id // the byte the ratio samplers look at first
	var f trace.TraceFlags
	if sampled {
		f = trace.FlagsSampled
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{0, 0xf0, 7, 0, 0, 0, 0, id}, TraceFlags: f, TraceState: remoteState, Remote: true})
}

// richSpans records spans that use every part of the API.
func richSpans(t *testing.T, tp trace.TracerProvider) {
	tr := tp.Tracer("github.com/mcpwire/mcpwire/otel/sdk_test", trace.WithInstrumentationVersion("v0.1.0"),
		trace.WithSchemaURL("https://opentelemetry.io/schemas/1.41.0"), trace.WithInstrumentationAttributes(everyAttr("scope.")...))
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), remote(1, true))
	ctx, root := tr.Start(ctx, "root", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(everyAttr("span.")...),
		trace.WithLinks(trace.Link{SpanContext: remote(2, false), Attributes: everyAttr("link.")}, trace.Link{}))
	if !root.IsRecording() {
		t.Error("a sampled span is not recording")
	}
	root.SetAttributes(attribute.String("span.string", "set again"), attribute.String("", "no key"), attribute.Int("later", 7))
	root.SetName("root renamed")
	root.AddEvent("event", trace.WithAttributes(everyAttr("event.")...), trace.WithTimestamp(time.Now()))
	root.AddEvent("bare")
	root.RecordError(errors.New("boom"), trace.WithAttributes(attribute.String("extra", "x")))
	root.RecordError(fmt.Errorf("wrapped: %w", os.ErrNotExist), trace.WithStackTrace(true))
	root.RecordError(nil)
	root.AddLink(trace.Link{SpanContext: remote(3, true)})
	root.AddLink(trace.Link{Attributes: []attribute.KeyValue{attribute.String("only", "attributes")}})
	root.SetStatus(codes.Error, "first error")
	root.SetStatus(codes.Unset, "ignored")
	root.SetStatus(codes.Error, "second error")

	kinds := []trace.SpanKind{trace.SpanKindInternal, trace.SpanKindClient, trace.SpanKindProducer, trace.SpanKindConsumer, trace.SpanKindUnspecified, trace.SpanKind(42)}
	for i, k := range kinds {
		_, c := tr.Start(ctx, fmt.Sprintf("child %d", i), trace.WithSpanKind(k), trace.WithTimestamp(time.Now().Add(-time.Second)))
		switch i {
		case 0:
			c.SetStatus(codes.Ok, "dropped: only errors keep a description")
			c.SetStatus(codes.Error, "too late: ok is final")
		case 1:
			c.SetStatus(codes.Error, "")
		}
		c.End(trace.WithTimestamp(time.Now()))
		c.End() // again: nothing
		c.SetAttributes(attribute.Bool("after end", true))
		if c.IsRecording() {
			t.Error("an ended span is recording")
		}
	}
	_, other := tp.Tracer("other").Start(ctx, "new root", trace.WithNewRoot())
	other.End()
	func() {
		defer func() {
			if r := recover(); r != "panicked" {
				t.Errorf("recovered %v", r)
			}
		}()
		_, p := tr.Start(ctx, "panics")
		defer p.End(trace.WithStackTrace(true))
		panic("panicked")
	}()
	root.End()
}

// TestAsOfficialSpans compares spans that use every part of the API,
// with the default limits.
func TestAsOfficialSpans(t *testing.T) {
	differential(t, nil, 0, false, func(t *testing.T, s *side) { richSpans(t, s.tp) })
}

// TestAsOfficialSpanLimits compares the same under small limits: values
// cut (in characters, in arrays and maps too), attributes, events, links
// and their attributes dropped and counted.
func TestAsOfficialSpanLimits(t *testing.T) {
	env := map[string]string{
		"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT": "4",
		"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT":        "5",
		"OTEL_SPAN_EVENT_COUNT_LIMIT":            "2",
		"OTEL_SPAN_LINK_COUNT_LIMIT":             "2",
		"OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT":       "3",
		"OTEL_LINK_ATTRIBUTE_COUNT_LIMIT":        "1",
	}
	differential(t, env, 4, false, func(t *testing.T, s *side) { richSpans(t, s.tp) })
	env = map[string]string{
		"OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT": "0",
		"OTEL_ATTRIBUTE_COUNT_LIMIT":        "0",
		"OTEL_SPAN_EVENT_COUNT_LIMIT":       "0",
		"OTEL_SPAN_LINK_COUNT_LIMIT":        "0",
	}
	t.Run("zero", func(t *testing.T) {
		differentialZero(t, env, 0, false, true, func(t *testing.T, s *side) { richSpans(t, s.tp) })
	})
}

// TestAsOfficialSamplers compares the samplers' decisions on spans whose
// parent (remote or local, sampled or not) is the same on both sides, and
// on roots where the sampler does not depend on the random trace id.
func TestAsOfficialSamplers(t *testing.T) {
	for _, c := range []struct {
		sampler, arg string
		roots        bool
	}{
		{"always_on", "", true},
		{"always_off", "", true},
		{"parentbased_always_on", "", true},
		{"parentbased_always_off", "", true},
		{"traceidratio", "0.5", false},
		{"parentbased_traceidratio", "0.25", false},
		{"traceidratio", "", true}, // no ratio: 1
	} {
		t.Run(c.sampler+"/"+c.arg, func(t *testing.T) {
			env := map[string]string{"OTEL_TRACES_SAMPLER": c.sampler, "OTEL_TRACES_SAMPLER_ARG": c.arg}
			differential(t, env, 0, false, func(t *testing.T, s *side) {
				tr := s.tp.Tracer("sampled")
				for i := range 64 {
					id := byte(i*4 + 1)
					pctx := trace.ContextWithRemoteSpanContext(context.Background(), remote(id, i%2 == 0))
					ctx, sp := tr.Start(pctx, fmt.Sprintf("under remote %d", i))
					if sp.SpanContext().TraceID() != remote(id, false).TraceID() || sp.SpanContext().IsSampled() != sp.IsRecording() {
						t.Errorf("span %d: %v, recording %v", i, sp.SpanContext(), sp.IsRecording())
					}
					_, child := tr.Start(ctx, fmt.Sprintf("under local %d", i))
					child.End()
					sp.End()
				}
				if c.roots {
					_, r := tr.Start(context.Background(), "root")
					r.End()
				}
			})
		})
	}
}

// recordMetrics records with every synchronous instrument: each
// histogram bucket, its bounds exactly, zero and negative values, sets
// of attributes, exemplars from sampled spans (one a bucket, so that
// the official SDK's random choice is no choice); a collection between
// two rounds.
func recordMetrics(t *testing.T, s *side, rounds int) {
	m := s.mp.Meter("github.com/mcpwire/mcpwire/otel/sdk_test", metric.WithInstrumentationVersion("v1"), metric.WithSchemaURL("https://opentelemetry.io/schemas/1.41.0"))
	bounds := []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
	h, err := m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"), metric.WithDescription("d"), metric.WithExplicitBucketBoundaries(bounds...))
	if err != nil {
		t.Fatal(err)
	}
	hd, _ := m.Float64Histogram("default.buckets")
	hi, _ := m.Int64Histogram("int.histogram", metric.WithExplicitBucketBoundaries(-10, 0, 10))
	cf, _ := m.Float64Counter("float.counter", metric.WithUnit("{request}"))
	ci, _ := m.Int64Counter("int.counter")
	uf, _ := m.Float64UpDownCounter("float.updown")
	ui, _ := m.Int64UpDownCounter("int.updown")
	gf, _ := m.Float64Gauge("float.gauge")
	gi, _ := m.Int64Gauge("int.gauge")
	_, _ = m.Float64Histogram("never.recorded")
	a := metric.WithAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.Int("n", 1))
	b := metric.WithAttributes(attribute.String("mcp.method.name", "ping"))
	tr := s.tp.Tracer("exemplars")
	bg := context.Background()
	for round := range rounds {
		for i, v := range append(bounds, 1e6) { // a bucket each: its upper bound, inclusive
			if i%2 == round%2 {
				continue // half the buckets a round: the others keep their exemplar
			}
			ctx, sp := tr.Start(bg, fmt.Sprintf("measured %d %d", round, i))
			h.Record(ctx, v, a)
			sp.End()
			h.Record(bg, v*3+float64(round), b)
			hd.Record(bg, v*100)
		}
		h.Record(bg, 0, a) // no span, no exemplar
		h.Record(bg, 0.005, a)
		for i, v := range []int64{-11, -5, 7, 11} { // one a bucket
			ctx, sp := tr.Start(bg, fmt.Sprintf("int %d %d", round, i))
			hi.Record(ctx, v+int64(round))
			sp.End()
		}
		cf.Add(bg, 1.5, a)
		cf.Add(bg, 0.25)
		ci.Add(bg, 3, b)
		uf.Add(bg, -2.5, a)
		ui.Add(bg, -7)
		gf.Record(bg, float64(round)-0.5, a)
		gi.Record(bg, int64(round)*-3)
		if round == 0 {
			ctx, cancel := context.WithTimeout(bg, 30*time.Second)
			if err := s.flush(ctx); err != nil {
				t.Errorf("%s: ForceFlush: %v", s.name, err)
			}
			cancel()
		}
	}
}

// TestAsOfficialMetrics compares the metrics of every synchronous
// instrument, cumulative (the default), delta and low memory, with
// explicit and with exponential histograms.
func TestAsOfficialMetrics(t *testing.T) {
	for _, pref := range []string{"cumulative", "delta", "lowmemory"} {
		for _, agg := range []string{"explicit_bucket_histogram", "base2_exponential_bucket_histogram"} {
			t.Run(pref+"/"+agg, func(t *testing.T) {
				env := map[string]string{
					"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE":        pref,
					"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": agg,
				}
				differential(t, env, 0, false, func(t *testing.T, s *side) { recordMetrics(t, s, 2) })
			})
		}
	}
}

// TestAsOfficialExponentialScales compares exponential histograms that
// must change scale: values far apart, tiny and huge, both signs.
func TestAsOfficialExponentialScales(t *testing.T) {
	env := map[string]string{"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "base2_exponential_bucket_histogram"}
	differential(t, env, 0, false, func(t *testing.T, s *side) {
		m := s.mp.Meter("exp")
		h, _ := m.Float64Histogram("scales")
		hi, _ := m.Int64Histogram("int.scales")
		bg := context.Background()
		for i, v := range []float64{1, 2, 4, 0.5, 1.5, 3, 1024, 1e-9, -1, -1e9, 0, math.Copysign(0, -1), math.NaN(), math.Inf(1), 1e300, 5e-324, 0x1p-1022, 7, 7, 7} {
			h.Record(bg, v)
			hi.Record(bg, int64(i*i*i)-500)
			h.Record(bg, v*1.0001, metric.WithAttributes(attribute.Int("i", i%3)))
		}
	})
}

// TestAsOfficialCardinalityLimit compares an instrument measured with
// more attribute sets than the limit (2000 series, the overflow one
// included).
func TestAsOfficialCardinalityLimit(t *testing.T) {
	differential(t, nil, 0, false, func(t *testing.T, s *side) {
		h, _ := s.mp.Meter("overflow").Float64Histogram("many", metric.WithExplicitBucketBoundaries(1, 2))
		c, _ := s.mp.Meter("overflow").Int64Counter("many.counter")
		bg := context.Background()
		for i := range 2100 {
			set := metric.WithAttributes(attribute.String("tool", fmt.Sprintf("t%04d", i)))
			h.Record(bg, float64(i%3), set)
			c.Add(bg, int64(i), set)
		}
	})
}
