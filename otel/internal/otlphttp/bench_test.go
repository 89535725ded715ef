package otlphttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The cost of one exported batch, this package's exporter and the
// official one side by side: go test -run '^$' -bench Export -benchmem
// ./internal/otlphttp (from the otel module). The transport discards the
// body (after reading it) and answers 200 at once, in the exporting
// goroutine: what is measured is the exporter's work (encoding,
// compression, the HTTP client's request), not a network's.

// discard is a transport that reads the request body and answers 200.
type discard struct{}

func (discard) RoundTrip(r *http.Request) (*http.Response, error) {
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{}, Body: http.NoBody, Request: r}, nil
}

// serverSpans returns n spans as the instrumentation records them on a
// server: tools/call SERVER spans with the attributes of the MCP
// conventions, one in ten failed.
func serverSpans(n int) []sdktrace.ReadOnlySpan {
	rec := tracetest.NewSpanRecorder()
	res := resource.NewSchemaless(attribute.String("service.name", "weather"), attribute.String("service.version", "1.0.0"),
		attribute.String("telemetry.sdk.language", "go"), attribute.String("telemetry.sdk.name", "opentelemetry"), attribute.String("telemetry.sdk.version", "1.47.0"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithResource(res))
	tr := tp.Tracer("github.com/mcpwire/mcpwire/otel", trace.WithInstrumentationVersion("v0.1.0"), trace.WithSchemaURL("https://opentelemetry.io/schemas/1.41.0"))
	for i := range n {
		_, sp := tr.Start(context.Background(), "tools/call get_weather", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
			attribute.String("mcp.method.name", "tools/call"),
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", "get_weather"),
			attribute.String("jsonrpc.request.id", strconv.Itoa(i)),
			attribute.String("mcp.protocol.version", "2025-11-25"),
			attribute.String("mcp.session.id", "JFZH3GUYQJDQ3EBOFFI7ULAJLV"),
			attribute.String("network.transport", "tcp"),
			attribute.String("network.protocol.name", "http"),
		))
		if i%10 == 0 {
			sp.SetAttributes(attribute.String("error.type", "-32602"), attribute.Int("rpc.response.status_code", -32602))
			sp.SetStatus(codes.Error, "unknown tool")
		}
		sp.End()
	}
	tp.Shutdown(context.Background())
	return rec.Ended()
}

func BenchmarkExportSpans(b *testing.B) {
	hc := &http.Client{Transport: discard{}}
	for _, n := range []int{1, 512} {
		spans := serverSpans(n)
		for _, gz := range []bool{false, true} {
			name := fmt.Sprintf("spans=%d/gzip=%v", n, gz)
			b.Run(name+"/official", func(b *testing.B) {
				opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL("http://otlp.invalid/v1/traces"), otlptracehttp.WithHTTPClient(hc)}
				if gz {
					opts = append(opts, otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
				}
				exp, err := otlptracehttp.New(context.Background(), opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer exp.Shutdown(context.Background())
				b.ReportAllocs()
				for b.Loop() {
					if err := exp.ExportSpans(context.Background(), spans); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(name+"/mcpwire", func(b *testing.B) {
				exp, err := NewTraceExporter(&Config{URL: "http://otlp.invalid/v1/traces", httpClient: hc, Gzip: gz})
				if err != nil {
					b.Fatal(err)
				}
				defer exp.Shutdown(context.Background())
				ours := toSDK(spans)
				b.ReportAllocs()
				for b.Loop() {
					if err := exp.ExportSpans(context.Background(), ours); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// serverMetrics returns what mcpwire's four histograms hold after n
// kinds of requests.
func serverMetrics(n int) *metricdata.ResourceMetrics {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(resource.NewSchemaless(attribute.String("service.name", "weather"))))
	m := mp.Meter("github.com/mcpwire/mcpwire/otel")
	for _, name := range []string{"mcp.client.operation.duration", "mcp.server.operation.duration", "mcp.client.session.duration", "mcp.server.session.duration"} {
		h, _ := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300))
		for i := range n {
			h.Record(context.Background(), float64(i)/100, metric.WithAttributes(attribute.String("mcp.method.name", "tools/call"),
				attribute.String("gen_ai.tool.name", "tool"+strconv.Itoa(i)), attribute.String("network.transport", "pipe")))
		}
	}
	var rm metricdata.ResourceMetrics
	reader.Collect(context.Background(), &rm)
	mp.Shutdown(context.Background())
	return &rm
}

func BenchmarkExportMetrics(b *testing.B) {
	hc := &http.Client{Transport: discard{}}
	rm := serverMetrics(20) // 4 histograms of 20 series
	b.Run("official", func(b *testing.B) {
		exp, err := otlpmetrichttp.New(context.Background(), otlpmetrichttp.WithEndpointURL("http://otlp.invalid/v1/metrics"), otlpmetrichttp.WithHTTPClient(hc))
		if err != nil {
			b.Fatal(err)
		}
		defer exp.Shutdown(context.Background())
		b.ReportAllocs()
		for b.Loop() {
			if err := exp.Export(context.Background(), rm); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcpwire", func(b *testing.B) {
		exp, err := NewMetricExporter(&Config{URL: "http://otlp.invalid/v1/metrics", httpClient: hc})
		if err != nil {
			b.Fatal(err)
		}
		defer exp.Shutdown(context.Background())
		ours := toSDKMetrics(rm)
		b.ReportAllocs()
		for b.Loop() {
			if err := exp.Export(context.Background(), ours); err != nil {
				b.Fatal(err)
			}
		}
	})
}
