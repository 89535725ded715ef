package otlphttp

import (
	"math"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The data of the differential tests: every field of the messages, every
// attribute type, the edges of the wire (lengths of one to four varint
// bytes, zeros written or left out, -0, NaN, infinities).

// everyAttr returns an attribute of each type and edge, keys prefixed.
func everyAttr(prefix string) []attribute.KeyValue {
	k := func(s string) string { return prefix + s }
	nested := attribute.MapValue(
		attribute.String("m.s", "v"),
		attribute.Int64Slice("m.ints", []int64{1, -2}),
		attribute.KeyValue{Key: "m.empty"},
	)
	return []attribute.KeyValue{
		attribute.Bool(k("bool.true"), true),
		attribute.Bool(k("bool.false"), false),
		attribute.Int64(k("int.zero"), 0),
		attribute.Int64(k("int.neg"), -1),
		attribute.Int64(k("int.max"), math.MaxInt64),
		attribute.Int64(k("int.min"), math.MinInt64),
		attribute.Int(k("int.300"), 300),
		attribute.Float64(k("float.zero"), 0),
		attribute.Float64(k("float.negzero"), math.Copysign(0, -1)),
		attribute.Float64(k("float.pi"), math.Pi),
		attribute.Float64(k("float.inf"), math.Inf(1)),
		attribute.Float64(k("float.neginf"), math.Inf(-1)),
		attribute.Float64(k("float.nan"), math.NaN()),
		attribute.Float64(k("float.tiny"), math.SmallestNonzeroFloat64),
		attribute.String(k("string.empty"), ""),
		attribute.String(k("string.utf8"), "héllo, 世界 🌍"),
		attribute.String(k("string.200"), strings.Repeat("x", 200)),
		attribute.String(k("string.20000"), strings.Repeat("y", 20000)),
		attribute.BoolSlice(k("bools"), []bool{true, false, true}),
		attribute.BoolSlice(k("bools.empty"), []bool{}),
		attribute.Int64Slice(k("ints"), []int64{0, 1, -1, math.MaxInt64, math.MinInt64}),
		attribute.Float64Slice(k("floats"), []float64{0, math.Copysign(0, -1), 2.5, math.Inf(1), math.NaN()}),
		attribute.StringSlice(k("strings"), []string{"", "a", strings.Repeat("z", 130)}),
		attribute.StringSlice(k("strings.empty"), nil),
		attribute.ByteSlice(k("bytes"), []byte{0, 1, 0xff}),
		attribute.ByteSlice(k("bytes.empty"), nil),
		attribute.Slice(k("slice"), attribute.IntValue(1), attribute.StringValue("two"), attribute.Value{}, nested,
			attribute.SliceValue(attribute.BoolValue(true), attribute.SliceValue()), attribute.ByteSliceValue([]byte("b"))),
		attribute.Slice(k("slice.empty")),
		attribute.Map(k("map"), attribute.Float64("f", 1.5), attribute.Slice("s", attribute.Float64Value(-1)), attribute.KeyValue{Key: "n", Value: nested}),
		attribute.Map(k("map.empty")),
		{Key: attribute.Key(k("empty"))},
		{Key: ""},
	}
}

var (
	start = time.Date(2026, 7, 28, 12, 0, 0, 123456789, time.UTC)

	resFull = resource.NewWithAttributes("https://opentelemetry.io/schemas/1.41.0",
		append(everyAttr("res."), attribute.String("service.name", "full"))...)
	resOther = resource.NewSchemaless(attribute.String("service.name", "other"))

	scopeFull = instrumentation.Scope{
		Name: "github.com/mcpwire/mcpwire/otel", Version: "v1.2.3", SchemaURL: "https://opentelemetry.io/schemas/1.41.0",
		Attributes: attribute.NewSet(attribute.String("scope.s", "v"), attribute.Int("scope.n", 7), attribute.StringSlice("scope.list", []string{"a"})),
	}
	scopeName = instrumentation.Scope{Name: "only-a-name"}

	traceID = trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	otherID = trace.TraceID{0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00}
)

func spanID(n byte) trace.SpanID { return trace.SpanID{0, 0xf0, 7, 0, 0, 0, 0, n} }

// richSpans returns spans covering every field of a Span, with several
// resources and scopes, interleaved. withLinkState sets the trace state
// of links, which the official exporter does not write.
func richSpans(withLinkState bool) []sdktrace.ReadOnlySpan {
	ts, _ := trace.ParseTraceState("vendor=abc,other=x-1")
	remoteParent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID(1), TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true})
	linkState := trace.TraceState{}
	if withLinkState {
		linkState, _ = trace.ParseTraceState("linked=1")
	}
	sc := func(id byte, flags trace.TraceFlags) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID(id), TraceFlags: flags, TraceState: ts})
	}
	stubs := tracetest.SpanStubs{
		{ // every field
			Name: "tools/call get_weather", SpanContext: sc(2, trace.FlagsSampled), Parent: remoteParent,
			SpanKind: trace.SpanKindServer, StartTime: start, EndTime: start.Add(1500 * time.Microsecond),
			Attributes: everyAttr("span."),
			Events: []sdktrace.Event{
				{Name: "exception", Time: start.Add(time.Microsecond), Attributes: everyAttr("event."), DroppedAttributeCount: 2},
				{Name: "", Time: time.Time{}},
			},
			Links: []sdktrace.Link{
				{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: otherID, SpanID: spanID(9), TraceFlags: trace.FlagsSampled, TraceState: linkState, Remote: true}), Attributes: everyAttr("link."), DroppedAttributeCount: 1},
				{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: otherID, SpanID: spanID(10)})},
			},
			Status:            sdktrace.Status{Code: codes.Error, Description: "the service is down"},
			DroppedAttributes: 3, DroppedEvents: 4, DroppedLinks: 5, ChildSpanCount: 1,
			Resource: resFull, InstrumentationScope: scopeFull,
		},
		{ // a local child, the zero scope, no attributes
			Name: "db.query", SpanContext: sc(3, trace.FlagsSampled), Parent: sc(2, trace.FlagsSampled),
			SpanKind: trace.SpanKindClient, StartTime: start.Add(time.Millisecond), EndTime: start.Add(2 * time.Millisecond),
			Status: sdktrace.Status{Code: codes.Ok}, Resource: resFull,
		},
		{ // another resource; zero and negative times; kinds and codes out of range
			Name: "", SpanContext: sc(4, 0), SpanKind: trace.SpanKind(42), Status: sdktrace.Status{Code: codes.Code(9), Description: "x"},
			StartTime: time.Unix(-5, 0), Resource: resOther, InstrumentationScope: scopeName,
			DroppedAttributes: math.MaxInt, DroppedEvents: -1,
		},
		{ // the first resource and scope again, after the others
			Name: "notifications/progress", SpanContext: sc(5, trace.FlagsSampled), Parent: sc(2, trace.FlagsSampled),
			SpanKind: trace.SpanKindProducer, StartTime: start, EndTime: start.Add(time.Second),
			Attributes: []attribute.KeyValue{attribute.String("big", strings.Repeat("é", 100000))},
			Resource:   resFull, InstrumentationScope: scopeFull,
		},
		{ // a consumer span of a scope that has a name only
			Name: "consume", SpanContext: sc(6, trace.FlagsSampled), SpanKind: trace.SpanKindConsumer,
			StartTime: start, EndTime: start, Resource: resFull, InstrumentationScope: scopeName,
		},
		{ // internal, unspecified status: no resource at all
			Name: "internal", SpanContext: sc(7, 0), SpanKind: trace.SpanKindInternal, StartTime: start, EndTime: start.Add(time.Nanosecond),
		},
	}
	return stubs.Snapshots()
}

// oneResourceSpans returns spans of one resource (the official exporter
// orders resources at random) and no link trace state: the official
// exporter's bytes are then the same as the exporter's.
func oneResourceSpans() []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range richSpans(false) {
		if s.Resource() == resFull {
			out = append(out, s)
		}
	}
	return out
}

// richMetrics returns metrics of every aggregation and number type, with
// the edges of their fields.
func richMetrics() *metricdata.ResourceMetrics {
	attrs := attribute.NewSet(everyAttr("point.")...)
	one := attribute.NewSet(attribute.String("mcp.method.name", "tools/call"))
	end := start.Add(time.Minute)
	exF := []metricdata.Exemplar[float64]{
		{FilteredAttributes: everyAttr("ex."), Time: start, Value: 0.25, SpanID: []byte{1, 2, 3, 4, 5, 6, 7, 8}, TraceID: traceID[:]},
		{Value: 0},
	}
	exI := []metricdata.Exemplar[int64]{{Time: start, Value: -3}, {Value: 0, SpanID: []byte{}}}
	return &metricdata.ResourceMetrics{
		Resource: resFull,
		ScopeMetrics: []metricdata.ScopeMetrics{
			{
				Scope: scopeFull,
				Metrics: []metricdata.Metrics{
					{Name: "gauge.int", Description: "d", Unit: "1", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{
						{Attributes: attrs, StartTime: start, Time: end, Value: 0, Exemplars: exI},
						{Attributes: one, Time: end, Value: math.MinInt64},
					}}},
					{Name: "gauge.float", Data: metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{
						{Value: math.Copysign(0, -1)}, {Value: math.NaN(), Exemplars: exF},
					}}},
					{Name: "gauge.empty", Data: metricdata.Gauge[float64]{}},
					{Name: "sum.int", Unit: "{request}", Data: metricdata.Sum[int64]{Temporality: metricdata.DeltaTemporality, IsMonotonic: true,
						DataPoints: []metricdata.DataPoint[int64]{{Attributes: one, StartTime: start, Time: end, Value: 42}}}},
					{Name: "sum.float", Data: metricdata.Sum[float64]{Temporality: metricdata.CumulativeTemporality,
						DataPoints: []metricdata.DataPoint[float64]{{StartTime: start, Time: end, Value: -1.5}}}},
					{Name: "mcp.server.operation.duration", Unit: "s", Description: "MCP request or notification duration as observed on the receiver.",
						Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.HistogramDataPoint[float64]{
							{Attributes: one, StartTime: start, Time: end, Count: 7, Sum: 1.25,
								Bounds:       []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300},
								BucketCounts: []uint64{1, 0, 2, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0},
								Min:          metricdata.NewExtrema(0.005), Max: metricdata.NewExtrema(0.9), Exemplars: exF},
							{Attributes: attrs, Count: 0, Sum: 0},
						}}},
					{Name: "hist.int", Data: metricdata.Histogram[int64]{Temporality: metricdata.DeltaTemporality, DataPoints: []metricdata.HistogramDataPoint[int64]{
						{Count: 1, Sum: -4, Bounds: []float64{0}, BucketCounts: []uint64{1, 0}, Min: metricdata.NewExtrema[int64](-4), Max: metricdata.NewExtrema[int64](-4), Exemplars: exI},
					}}},
					{Name: "exp.float", Data: metricdata.ExponentialHistogram[float64]{Temporality: metricdata.CumulativeTemporality,
						DataPoints: []metricdata.ExponentialHistogramDataPoint[float64]{
							{Attributes: one, StartTime: start, Time: end, Count: 9, Sum: 3.5, Scale: -3, ZeroCount: 2, ZeroThreshold: 1e-9,
								PositiveBucket: metricdata.ExponentialBucket{Offset: -2, Counts: []uint64{1, 300, 0, 1 << 40}},
								NegativeBucket: metricdata.ExponentialBucket{Offset: 5, Counts: []uint64{4}},
								Min:            metricdata.NewExtrema(-1.0), Max: metricdata.NewExtrema(2.0), Exemplars: exF},
							{Scale: 20},
						}}},
					{Name: "exp.int", Data: metricdata.ExponentialHistogram[int64]{Temporality: metricdata.DeltaTemporality,
						DataPoints: []metricdata.ExponentialHistogramDataPoint[int64]{{Count: 1, Sum: 8, Scale: math.MinInt32, Exemplars: exI,
							PositiveBucket: metricdata.ExponentialBucket{Offset: math.MaxInt32, Counts: []uint64{1}}}}}},
				},
			},
			{Scope: instrumentation.Scope{}},
			{Scope: scopeName, Metrics: []metricdata.Metrics{
				{Name: "bad.temporality", Data: metricdata.Sum[int64]{Temporality: metricdata.Temporality(99), DataPoints: []metricdata.DataPoint[int64]{{Value: 1}}}},
				{Name: "after.bad", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Value: 1}}}},
			}},
		},
	}
}

// stubSpans returns one span with attrs, of the full resource and scope.
func stubSpans(attrs ...attribute.KeyValue) []sdktrace.ReadOnlySpan {
	return tracetest.SpanStubs{{
		Name: "s", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID(1), TraceFlags: trace.FlagsSampled}),
		SpanKind: trace.SpanKindServer, StartTime: start, EndTime: start.Add(time.Millisecond),
		Attributes: attrs, Resource: resFull, InstrumentationScope: scopeFull,
	}}.Snapshots()
}
