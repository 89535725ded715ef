package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	mcpotel "github.com/mcpwire/mcpwire/otel"
	"github.com/mcpwire/mcpwire/otel/otlpenv"
	"github.com/mcpwire/mcpwire/server"
)

// Telemetry. When the standard OpenTelemetry environment asks for an OTLP
// export (OTEL_EXPORTER_OTLP_ENDPOINT, or the endpoint of one signal),
// every verb traces what it does: a span for the command ("mcpwire
// call"), the client's spans under it, and the trace context in the
// _meta of each request, so that an instrumented server continues the
// trace; mcpwire serve records its server's spans and metrics. Nothing is
// set up, nothing exported, otherwise. See package otlpenv for the
// variables read.

// shutdownTimeout bounds the flush of what is left to export when
// mcpwire exits: a collector that does not answer delays the exit by at
// most this much.
const shutdownTimeout = 5 * time.Second

// startTelemetry sets telemetry up from the environment. It returns nil
// and a function that does nothing when the environment asks for none;
// a setting it cannot follow is reported on stderr, and then there is no
// telemetry either.
func startTelemetry(ctx context.Context, stderr io.Writer) (app.Telemetry, func()) {
	tel, err := otlpenv.Setup(ctx, otlpenv.Options{ServiceName: "mcpwire", ServiceVersion: mcpwire.Version()})
	if err != nil {
		fmt.Fprintf(stderr, "mcpwire: telemetry is off: %v\n", err)
		return nil, func() {}
	}
	if tel == nil {
		return nil, func() {}
	}
	t := &telemetry{inst: tel.Instrumentation(), tracer: noop.NewTracerProvider().Tracer("")}
	if tel.TracerProvider != nil {
		t.tracer = tel.TracerProvider.Tracer("github.com/mcpwire/mcpwire/cmd/mcpwire")
	}
	return t, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		if err := tel.Shutdown(sctx); err != nil {
			fmt.Fprintf(stderr, "mcpwire: exporting telemetry: %v\n", err)
		}
	}
}

// telemetry is app.Telemetry on OpenTelemetry.
type telemetry struct {
	inst   *mcpotel.Instrumentation
	tracer trace.Tracer
}

func (t *telemetry) Client(o *client.Options) *client.Options { return t.inst.Client(o) }
func (t *telemetry) Server(o *server.Options) *server.Options { return t.inst.Server(o) }

func (t *telemetry) Command(ctx context.Context, name string) (context.Context, func(error)) {
	ctx, span := t.tracer.Start(ctx, name)
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, app.Message(err))
		}
		span.End()
	}
}
