package otlpenv_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/otel/otlpenv"
	"github.com/mcpwire/mcpwire/otel/otlptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSetupOff checks that nothing is set up when the environment asks
// for no export, and that what Setup does not support is an error.
func TestSetupOff(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		wantErr string
	}{
		{env: nil},
		{env: map[string]string{"OTEL_SERVICE_NAME": "x"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, wantErr: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json is not supported"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: "OTEL_TRACES_EXPORTER=zipkin is not supported"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_PROPAGATORS": "b3"}, wantErr: `"b3" is not supported`},
	} {
		tel, err := otlpenv.Setup(context.Background(), otlpenv.Options{ServiceName: "s", Getenv: func(k string) string { return tc.env[k] }})
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%v: error %v, want %q", tc.env, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%v: %v", tc.env, err)
		}
		if tel != nil {
			t.Errorf("%v: Setup set telemetry up", tc.env)
			tel.Shutdown(context.Background())
		}
		if tel.Instrumentation() != nil || tel.Shutdown(context.Background()) != nil {
			t.Error("a nil Telemetry is not inert")
		}
	}
}

// TestSetupExports checks that with an endpoint, Setup installs global
// providers that export to it, with the service name of the environment,
// and the W3C propagators.
func TestSetupExports(t *testing.T) {
	r := otlptest.NewReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.URL)
	t.Setenv("OTEL_SERVICE_NAME", "from-env")
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	tel, err := otlpenv.Setup(context.Background(), otlpenv.Options{ServiceName: "default"})
	if err != nil || tel == nil {
		t.Fatal(tel, err)
	}
	if tel.MeterProvider != nil {
		t.Error("OTEL_METRICS_EXPORTER=none left a meter provider")
	}
	if f := otel.GetTextMapPropagator().Fields(); !slices.Equal(slices.Sorted(slices.Values(f)), []string{"baggage", "traceparent", "tracestate"}) {
		t.Errorf("propagator fields %v", f)
	}
	_, span := otel.Tracer("t").Start(context.Background(), "work")
	span.End()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.WaitFor(t, "the span", func(spans []otlptest.Span, _ []otlptest.Metric) bool {
		return otlptest.Find(spans, "from-env", "work", trace.SpanKindInternal) != nil
	})
}

// TestSetupRefusesBadExporterSettings checks that a setting the
// exporters cannot follow is an error naming the variable, and that
// nothing is set up then: not even the provider of the other signal,
// whose settings were fine.
func TestSetupRefusesBadExporterSettings(t *testing.T) {
	before := otel.GetTracerProvider()
	for env, want := range map[string]string{
		"OTEL_EXPORTER_OTLP_METRICS_TIMEOUT=10s":             `OTEL_EXPORTER_OTLP_METRICS_TIMEOUT="10s"`,
		"OTEL_EXPORTER_OTLP_COMPRESSION=br":                  `OTEL_EXPORTER_OTLP_COMPRESSION="br" is not supported`,
		"OTEL_EXPORTER_OTLP_HEADERS=novalue":                 `OTEL_EXPORTER_OTLP_HEADERS: "novalue"`,
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=localhost:4318": "the metric exporter: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"OTEL_EXPORTER_OTLP_CERTIFICATE=/nonexistent.pem":    "OTEL_EXPORTER_OTLP_CERTIFICATE: open /nonexistent.pem",
	} {
		k, v, _ := strings.Cut(env, "=")
		vars := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", k: v}
		tel, err := otlpenv.Setup(context.Background(), otlpenv.Options{ServiceName: "s", Getenv: func(k string) string { return vars[k] }})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", env, err, want)
		}
		if tel != nil || otel.GetTracerProvider() != before {
			t.Errorf("%s: Setup set something up", env)
			tel.Shutdown(context.Background())
		}
	}
}

// TestSetupReadsGetenv checks that the exporters read the environment
// through Options.Getenv: the endpoint of one signal, its headers and
// its compression.
func TestSetupReadsGetenv(t *testing.T) {
	type request struct {
		path, auth, encoding string
	}
	got := make(chan request, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got <- request{r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Encoding")}
	}))
	defer srv.Close()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":    srv.URL + "/custom",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":     "Authorization=Bearer%20t0ken",
		"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip",
	}
	tel, err := otlpenv.Setup(context.Background(), otlpenv.Options{ServiceName: "s", Getenv: func(k string) string { return env[k] }})
	if err != nil || tel == nil || tel.MeterProvider != nil {
		t.Fatal(tel, err)
	}
	_, span := tel.TracerProvider.Tracer("t").Start(context.Background(), "work")
	span.End()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r != (request{"/custom", "Bearer t0ken", "gzip"}) {
			t.Errorf("request %+v", r)
		}
	default:
		t.Error("nothing was exported")
	}
}

// TestSetupExportsSpansWithInvalidUTF8 checks that a span whose
// attribute is not UTF-8 (a file name a tool traced, say) does not cost
// the batch it is in: the official exporter failed to encode the whole
// request, and every span of it was lost.
func TestSetupExportsSpansWithInvalidUTF8(t *testing.T) {
	r := otlptest.NewReceiver(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL, "OTEL_METRICS_EXPORTER": "none"}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.URL) // for exporters that read the process environment (5cb0ec7's)
	tel, err := otlpenv.Setup(context.Background(), otlpenv.Options{ServiceName: "s", Getenv: func(k string) string { return env[k] }})
	if err != nil || tel == nil {
		t.Fatal(tel, err)
	}
	tr := tel.TracerProvider.Tracer("t")
	_, ok := tr.Start(context.Background(), "fine")
	ok.End()
	_, bad := tr.Start(context.Background(), "read_file", trace.WithAttributes(attribute.String("file.path", "/tmp/caf\xe9.txt")))
	bad.End()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	spans := r.Spans()
	if otlptest.Find(spans, "s", "fine", trace.SpanKindInternal) == nil {
		t.Fatalf("the batch was lost: %d spans received", len(spans))
	}
	if s := otlptest.Find(spans, "s", "read_file", trace.SpanKindInternal); s == nil || s.Attrs["file.path"] != "/tmp/caf\uFFFD.txt" {
		t.Errorf("the span with the bad attribute: %+v", s)
	}
}

// TestShutdownTwice checks that Shutdown may be called again (a deferred
// call after an explicit one, say): it returns nil at once, and
// ForceFlush after it does not hang. The second call used to fail with
// the metric reader's "reader is shutdown", which a program reports.
func TestShutdownTwice(t *testing.T) {
	r := otlptest.NewReceiver(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": r.URL}
	tel, err := otlpenv.Setup(context.Background(), otlpenv.Options{ServiceName: "s", Getenv: func(k string) string { return env[k] }})
	if err != nil || tel == nil {
		t.Fatal(tel, err)
	}
	_, span := tel.TracerProvider.Tracer("t").Start(context.Background(), "work")
	span.End()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
		t.Errorf("a second Shutdown: %v", err)
	}
	_, late := tel.TracerProvider.Tracer("t").Start(context.Background(), "after")
	late.End()
	tel.ForceFlush(ctx)
	if ctx.Err() != nil {
		t.Error("ForceFlush after Shutdown hung")
	}
	if n := len(r.Spans()); n != 1 {
		t.Errorf("%d spans exported, want the one ended before Shutdown", n)
	}
}

// TestShutdownBoundedByDeadCollector checks that a collector that takes
// requests and never answers holds Shutdown no longer than its context,
// for traces and metrics together (the program exits then).
func TestShutdownBoundedByDeadCollector(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hang)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_EXPORTER_OTLP_TIMEOUT": "60000"}
	tel, err := otlpenv.Setup(context.Background(), otlpenv.Options{ServiceName: "s", Getenv: func(k string) string { return env[k] }})
	if err != nil || tel == nil {
		t.Fatal(tel, err)
	}
	for range 10 {
		_, span := tel.TracerProvider.Tracer("t").Start(context.Background(), "work")
		span.End()
	}
	h, _ := tel.MeterProvider.Meter("m").Float64Histogram("h")
	h.Record(context.Background(), 1)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = tel.Shutdown(ctx)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Shutdown took %v with a context of 500ms", d)
	}
	if err == nil {
		t.Error("Shutdown reported no error: nothing was exported")
	}
}
