package app

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/server"
)

// Telemetry is what mcpwire records of what it does: package cli sets
// App.Telemetry to OpenTelemetry when the standard OTEL_* environment
// asks for an OTLP export (see the cli package overview), and leaves it
// nil otherwise. The verbs reach it through App.ClientOptions,
// App.ServerOptions and RunE, and never import OpenTelemetry.
type Telemetry interface {
	// Client and Server return a copy of o instrumented: spans and
	// metrics of every message, trace context in params._meta.
	Client(o *client.Options) *client.Options
	Server(o *server.Options) *server.Options
	// Command starts the span of one command that talks to a server,
	// the parent of its client's spans; end ends it with the command's
	// error.
	Command(ctx context.Context, name string) (_ context.Context, end func(err error))
}

// ClientOptions returns o with the telemetry's instrumentation, if any.
func (a *App) ClientOptions(o *client.Options) *client.Options {
	if a.Telemetry == nil {
		return o
	}
	return a.Telemetry.Client(o)
}

// ServerOptions returns o with the telemetry's instrumentation, if any.
func (a *App) ServerOptions(o *server.Options) *server.Options {
	if a.Telemetry == nil {
		return o
	}
	return a.Telemetry.Server(o)
}

// traced runs the command cmd under its span (named as its command
// line, "mcpwire call"), when there is telemetry.
func (a *App) traced(cmd *cobra.Command, run func() error) error {
	if a.Telemetry == nil {
		return run()
	}
	ctx, end := a.Telemetry.Command(cmd.Context(), cmd.CommandPath())
	cmd.SetContext(ctx)
	err := run()
	end(err)
	return err
}
