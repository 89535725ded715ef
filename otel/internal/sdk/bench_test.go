package sdk_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// The SDK's own cost, side by side with the official one's, in one run:
// go test -run '^$' -bench . -benchmem ./internal/sdk (from the otel
// module). Both export to exporters that discard what they get, so that
// what is measured is the SDK: a server span as mcpwire's instrumentation
// makes one (ten attributes, a remote parent), and a duration recorded in
// a histogram with a cached attribute set.

type discardSpans struct{}

func (discardSpans) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardSpans) Shutdown(context.Context) error                             { return nil }

type discardOurSpans struct{}

func (discardOurSpans) ExportSpans(context.Context, []*sdk.SpanData) error { return nil }
func (discardOurSpans) Shutdown(context.Context) error                     { return nil }

type discardOurMetrics struct{}

func (discardOurMetrics) Export(context.Context, *sdk.ResourceMetrics) error { return nil }
func (discardOurMetrics) Shutdown(context.Context) error                     { return nil }

func spanAttrs() []attribute.KeyValue {
	return []attribute.KeyValue{
		attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "get_weather"),
		attribute.String("jsonrpc.request.id", "42"),
		attribute.String("mcp.protocol.version", "2025-11-25"),
		attribute.String("mcp.session.id", "JFZH3GUYQJDQ3EBOFFI7ULAJLV"),
		attribute.String("network.transport", "tcp"),
		attribute.String("network.protocol.name", "http"),
		attribute.String("server.address", "127.0.0.1"),
		attribute.Int("server.port", 8080),
	}
}

func BenchmarkSpan(b *testing.B) {
	run := func(b *testing.B, tp trace.TracerProvider) {
		tr := tp.Tracer("github.com/mcpwire/mcpwire/otel")
		ctx := trace.ContextWithRemoteSpanContext(context.Background(), remote(1, true))
		attrs := trace.WithAttributes(spanAttrs()...)
		kind := trace.WithSpanKind(trace.SpanKindServer)
		b.ReportAllocs()
		for b.Loop() {
			_, s := tr.Start(ctx, "tools/call get_weather", kind, attrs)
			s.End()
		}
	}
	b.Run("official", func(b *testing.B) {
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(discardSpans{}, sdktrace.WithBlocking()))
		defer tp.Shutdown(context.Background())
		run(b, tp)
	})
	b.Run("mcpwire", func(b *testing.B) {
		batch := sdk.DefaultBatchConfig
		batch.MaxQueueSize = sdk.MaxLimit
		tp := sdk.NewTracerProvider(discardOurSpans{}, sdk.TraceConfig{Sampler: sdk.ParentBased(sdk.AlwaysOn()), Limits: sdk.DefaultSpanLimits, Batch: batch})
		defer tp.Shutdown(context.Background())
		run(b, tp)
		if n := tp.Dropped(); n > 0 {
			b.Errorf("%d spans dropped", n)
		}
	})
}

func BenchmarkHistogram(b *testing.B) {
	run := func(b *testing.B, mp metric.MeterProvider) {
		h, _ := mp.Meter("m").Float64Histogram("mcp.server.operation.duration", metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300))
		opt := metric.WithAttributeSet(attribute.NewSet(spanAttrs()[:3]...))
		ctx := context.Background()
		b.ReportAllocs()
		v := 0.0
		for b.Loop() {
			h.Record(ctx, v, opt)
			v += 0.001
		}
	}
	b.Run("official", func(b *testing.B) {
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		defer mp.Shutdown(context.Background())
		run(b, mp)
	})
	b.Run("mcpwire", func(b *testing.B) {
		mp := sdk.NewMeterProvider(discardOurMetrics{}, sdk.MetricConfig{})
		defer mp.Shutdown(context.Background())
		run(b, mp)
	})
}
