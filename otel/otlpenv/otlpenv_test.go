package otlpenv_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
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
