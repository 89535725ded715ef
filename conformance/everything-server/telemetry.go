package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/mcpwire/mcpwire/otel/otlpenv"
	"github.com/mcpwire/mcpwire/server"
)

// startTelemetry sets OpenTelemetry up when the standard environment asks
// for an OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT, see package otlpenv):
// it returns what instruments the server's options, and the function that
// flushes what is left to export. Otherwise it returns functions that do
// nothing: the server is not instrumented, and nothing is exported.
func startTelemetry(ctx context.Context, stderr io.Writer) (instrument func(*server.Options) *server.Options, flush func()) {
	tel, err := otlpenv.Setup(ctx, otlpenv.Options{ServiceName: progName, ServiceVersion: serverVersion})
	if err != nil {
		fmt.Fprintf(stderr, "%s: telemetry is off: %v\n", progName, err)
	}
	inst := tel.Instrumentation() // nil, and instruments nothing, without telemetry
	return inst.Server, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := tel.Shutdown(sctx); err != nil {
			fmt.Fprintf(stderr, "%s: exporting telemetry: %v\n", progName, err)
		}
	}
}
