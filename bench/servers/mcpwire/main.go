// Command mcpwire is the benchmark server built on mcpwire: one echo tool,
// served on stdio or on Streamable HTTP at /mcp (both protocol eras on one
// endpoint). See package harness for the command line.
package main

import (
	"context"
	"net/http"

	"github.com/mcpwire/mcpwire/bench/internal/harness"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// EchoArgs are the echo tool's arguments; the input schema is inferred.
type EchoArgs struct {
	Text string `json:"text"`
}

func newServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "bench-mcpwire", Version: "1.0.0"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text"},
		func(ctx context.Context, r *server.Request, in EchoArgs) (*mcp.CallToolResult, error) {
			return server.TextResult(in.Text), nil
		})
	return s
}

func main() {
	harness.Main("mcpwire", harness.Server{
		Stdio: func(ctx context.Context) error {
			return newServer().Run(ctx, stdio.New(nil))
		},
		HTTP: func(harness.Config) http.Handler {
			return streamable.NewHandler(newServer(), nil)
		},
	})
}
