// Package otlpenv sets OpenTelemetry up from the standard environment
// variables, for programs: when OTEL_EXPORTER_OTLP_ENDPOINT (or the
// endpoint of one signal, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) is set, traces and metrics go over
// OTLP/HTTP, protobuf-encoded, to that endpoint; when it is not, nothing
// is set up and nothing is exported. The mcpwire command and the
// conformance everything-server call it at start:
//
//	tel, err := otlpenv.Setup(ctx, otlpenv.Options{ServiceName: "my-server"})
//	if err != nil {
//		log.Printf("telemetry: %v", err) // a variable asks for what is not supported
//	}
//	defer tel.Shutdown(context.Background()) // flushes; nil does nothing
//	opts := tel.Instrumentation().Server(&server.Options{...})
//
// Setup reads, through Options.Getenv:
//
//   - OTEL_SDK_DISABLED: "true" sets nothing up;
//   - OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER: "otlp" (the default)
//     or "none", which turns that signal off;
//   - OTEL_EXPORTER_OTLP_PROTOCOL and its per-signal forms:
//     "http/protobuf" (the default) only. The gRPC exporter would add the
//     gRPC client to every program that links this package;
//   - OTEL_PROPAGATORS: "tracecontext" and "baggage" (the default is
//     both), or "none";
//   - what the exporters follow, each per-signal form
//     (OTEL_EXPORTER_OTLP_TRACES_..., _METRICS_...) overriding the
//     general one: OTEL_EXPORTER_OTLP_ENDPOINT, a base URL to which
//     /v1/traces and /v1/metrics are joined, and the per-signal
//     endpoints, used as they are; _HEADERS (key=value pairs separated
//     by commas, the values URL-decoded); _TIMEOUT (milliseconds, 10 s
//     by default, bounding one export, retries included); _COMPRESSION
//     (gzip or none); _CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY
//     (PEM files). OTEL_EXPORTER_OTLP_INSECURE, which the specification
//     gives gRPC only, is not read: the URL's scheme decides;
//   - what the SDK follows (package otel/internal/sdk, mcpwire's own):
//     OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (key=value pairs
//     separated by commas, the values percent-decoded); for traces,
//     OTEL_TRACES_SAMPLER (always_on, always_off, traceidratio and the
//     parentbased_ form of each; parentbased_always_on by default) and
//     OTEL_TRACES_SAMPLER_ARG (the ratio, from 0 to 1), the span limits
//     OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT
//     (and their OTEL_ATTRIBUTE_ forms), OTEL_SPAN_EVENT_COUNT_LIMIT,
//     OTEL_SPAN_LINK_COUNT_LIMIT, OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT and
//     OTEL_LINK_ATTRIBUTE_COUNT_LIMIT, and the batch span processor's
//     OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_EXPORT_TIMEOUT (milliseconds),
//     OTEL_BSP_MAX_QUEUE_SIZE and OTEL_BSP_MAX_EXPORT_BATCH_SIZE; for
//     metrics, OTEL_METRIC_EXPORT_INTERVAL and OTEL_METRIC_EXPORT_TIMEOUT
//     (milliseconds), OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
//     (cumulative, delta, lowmemory),
//     OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION
//     (explicit_bucket_histogram, base2_exponential_bucket_histogram) and
//     OTEL_METRICS_EXEMPLAR_FILTER (trace_based, always_on, always_off).
//
// A value it does not support is an error naming the variable, and then
// nothing is set up (where the official Go SDK would report it and use
// its default).
//
// The SDK is mcpwire's own (package otel/internal/sdk): the
// specification's behaviour for what mcpwire records, and for a
// program's own spans and synchronous instruments (counters, up-down
// counters, histograms, gauges; the observable instruments are accepted
// and never called), in about a sixth of the official SDK's size in a
// binary.
// Its resource's telemetry.sdk.name is github.com/mcpwire/mcpwire/otel.
// The exporters are mcpwire's own too (package otel/internal/otlphttp):
// they write the OTLP protobuf messages themselves, the bytes the
// official exporters of go.opentelemetry.io/otel/exporters/otlp write
// (but that links keep their trace state, and that a string that is not
// UTF-8 is sent with U+FFFD for its invalid bytes where they drop the
// batch); those would link the protobuf runtime, gRPC and grpc-gateway
// into every program (6 MB of the mcpwire command). They retry what the
// specification says to retry (429, 502, 503, 504) with exponential
// backoff or after the Retry-After the endpoint asks for, within the
// timeout; a connection that fails is not retried, so that an absent
// collector does not hold a program's exit. What an endpoint says it
// rejected of an export (an OTLP partial success) goes to otel.Handle.
//
// Setup installs the providers and the propagator as the global ones
// (go.opentelemetry.io/otel), so that what the program's handlers trace
// joins the same traces.
package otlpenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	mcpotel "github.com/mcpwire/mcpwire/otel"
	"github.com/mcpwire/mcpwire/otel/internal/otlphttp"
	"github.com/mcpwire/mcpwire/otel/internal/sdk"
)

// Options say who the program is, for the resource of its telemetry.
type Options struct {
	// ServiceName is service.name unless OTEL_SERVICE_NAME (or
	// service.name in OTEL_RESOURCE_ATTRIBUTES) says otherwise; ""
	// means unknown_service:<the executable's name>.
	ServiceName string
	// ServiceVersion is service.version, if not empty.
	ServiceVersion string
	// Getenv reads the environment, for Setup, the SDK and the
	// exporters; default os.Getenv.
	Getenv func(string) string
}

// Telemetry is what Setup set up. A nil *Telemetry is valid: nothing was
// set up, its ForceFlush and Shutdown do nothing and its Instrumentation
// is nil.
type Telemetry struct {
	// TracerProvider makes the tracers whose sampled spans are exported;
	// nil when traces are off.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meters whose instruments are exported;
	// nil when metrics are off.
	MeterProvider metric.MeterProvider
	// Propagator is the propagator of OTEL_PROPAGATORS.
	Propagator propagation.TextMapPropagator

	tp   *sdk.TracerProvider
	mp   *sdk.MeterProvider
	inst *mcpotel.Instrumentation
}

// Setup reads the environment and, when it asks for an OTLP export, sets
// up the providers and the propagator, installs them as the global ones
// and returns them; otherwise it returns nil. ctx bounds the set-up only.
func Setup(ctx context.Context, opts Options) (*Telemetry, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	traces, err := enabled(getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	metrics, err := enabled(getenv, "METRICS")
	if err != nil {
		return nil, err
	}
	if !traces && !metrics {
		return nil, nil
	}
	prop, err := propagators(getenv("OTEL_PROPAGATORS"))
	if err != nil {
		return nil, err
	}
	res, err := sdk.ResourceFromEnv(getenv, sdk.ResourceOptions{ServiceName: opts.ServiceName, ServiceVersion: opts.ServiceVersion, SchemaURL: mcpotel.SchemaURL})
	if err != nil {
		return nil, fmt.Errorf("otlpenv: the resource: %w", err)
	}
	// Every setting is read before anything is set up: one that cannot
	// be followed leaves nothing behind.
	var texp *otlphttp.TraceExporter
	var mexp *otlphttp.MetricExporter
	var tcfg sdk.TraceConfig
	var mcfg sdk.MetricConfig
	if traces {
		if tcfg, err = sdk.TraceConfigFromEnv(getenv, res); err != nil {
			return nil, fmt.Errorf("otlpenv: traces: %w", err)
		}
		if texp, err = traceExporter(getenv); err != nil {
			return nil, fmt.Errorf("otlpenv: the trace exporter: %w", err)
		}
	}
	if metrics {
		if mcfg, err = sdk.MetricConfigFromEnv(getenv, res); err != nil {
			return nil, fmt.Errorf("otlpenv: metrics: %w", err)
		}
		if mexp, err = metricExporter(getenv); err != nil {
			return nil, fmt.Errorf("otlpenv: the metric exporter: %w", err)
		}
	}
	t := &Telemetry{Propagator: prop}
	if traces {
		t.tp = sdk.NewTracerProvider(texp, tcfg)
		t.TracerProvider = t.tp
		otel.SetTracerProvider(t.tp)
	}
	if metrics {
		t.mp = sdk.NewMeterProvider(mexp, mcfg)
		t.MeterProvider = t.mp
		otel.SetMeterProvider(t.mp)
	}
	otel.SetTextMapPropagator(prop)
	return t, nil
}

func traceExporter(getenv func(string) string) (*otlphttp.TraceExporter, error) {
	cfg, err := otlphttp.FromEnv(getenv, otlphttp.Traces)
	if err != nil {
		return nil, err
	}
	return otlphttp.NewTraceExporter(cfg)
}

func metricExporter(getenv func(string) string) (*otlphttp.MetricExporter, error) {
	cfg, err := otlphttp.FromEnv(getenv, otlphttp.Metrics)
	if err != nil {
		return nil, err
	}
	return otlphttp.NewMetricExporter(cfg)
}

// enabled reports whether the environment asks for the OTLP export of a
// signal (TRACES, METRICS): an endpoint is set, its exporter is otlp and
// its protocol http/protobuf.
func enabled(getenv func(string) string, signal string) (bool, error) {
	if getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" {
		return false, nil
	}
	switch e := strings.TrimSpace(getenv("OTEL_" + signal + "_EXPORTER")); e {
	case "", "otlp":
	case "none":
		return false, nil
	default:
		return false, fmt.Errorf("otlpenv: OTEL_%s_EXPORTER=%s is not supported (otlp or none)", signal, e)
	}
	proto, name := getenv("OTEL_EXPORTER_OTLP_"+signal+"_PROTOCOL"), "OTEL_EXPORTER_OTLP_"+signal+"_PROTOCOL"
	if proto == "" {
		proto, name = getenv("OTEL_EXPORTER_OTLP_PROTOCOL"), "OTEL_EXPORTER_OTLP_PROTOCOL"
	}
	switch p := strings.TrimSpace(proto); p {
	case "", "http/protobuf":
		return true, nil
	default:
		return false, fmt.Errorf("otlpenv: %s=%s is not supported (http/protobuf)", name, p)
	}
}

// propagators returns the propagator OTEL_PROPAGATORS names.
func propagators(v string) (propagation.TextMapPropagator, error) {
	if strings.TrimSpace(v) == "" {
		v = "tracecontext,baggage"
	}
	var ps []propagation.TextMapPropagator
	for name := range strings.SplitSeq(v, ",") {
		switch name = strings.TrimSpace(name); name {
		case "tracecontext":
			ps = append(ps, propagation.TraceContext{})
		case "baggage":
			ps = append(ps, propagation.Baggage{})
		case "none", "":
		default:
			return nil, fmt.Errorf("otlpenv: OTEL_PROPAGATORS: %q is not supported (tracecontext, baggage, none)", name)
		}
	}
	return propagation.NewCompositeTextMapPropagator(ps...), nil
}

// Instrumentation returns the mcpwire instrumentation that records with
// t's providers and carries context with t's propagator; nil for a nil t.
// It is made once.
func (t *Telemetry) Instrumentation() *mcpotel.Instrumentation {
	if t == nil {
		return nil
	}
	if t.inst == nil {
		o := &mcpotel.Options{Propagator: t.Propagator}
		if t.TracerProvider != nil {
			o.TracerProvider = t.TracerProvider
		}
		if t.MeterProvider != nil {
			o.MeterProvider = t.MeterProvider
		}
		t.inst = mcpotel.New(o)
	}
	return t.inst
}

// ForceFlush exports, within ctx, the spans ended so far and what the
// instruments hold. A nil t does nothing.
func (t *Telemetry) ForceFlush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	var errs []error
	if t.tp != nil {
		errs = append(errs, t.tp.ForceFlush(ctx))
	}
	if t.mp != nil {
		errs = append(errs, t.mp.ForceFlush(ctx))
	}
	return errors.Join(errs...)
}

// Shutdown exports, within ctx, the spans ended so far and what the
// instruments hold, then stops the providers and the exporters: later
// spans and measurements are not exported. What it had no time for is
// dropped: a collector that does not answer delays it no longer than
// ctx. A second call waits for the first one's end, within its ctx, and
// returns nil; a nil t does nothing.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	// Both at once: a collector that takes the time of one does not
	// leave the other none.
	var terr, merr error
	var wg sync.WaitGroup
	if t.tp != nil {
		wg.Go(func() { terr = t.tp.Shutdown(ctx) })
	}
	if t.mp != nil {
		wg.Go(func() { merr = t.mp.Shutdown(ctx) })
	}
	wg.Wait()
	return errors.Join(terr, merr)
}
