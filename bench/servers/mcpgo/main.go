// Command mcpgo is the benchmark server built on github.com/mark3labs/mcp-go:
// one echo tool, served on stdio or on Streamable HTTP at /mcp. See package
// harness for the command line.
package main

import (
	"context"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpwire/mcpwire/bench/internal/harness"
)

func newServer() *server.MCPServer {
	s := server.NewMCPServer("bench-mcpgo", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Returns its text"), mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			return mcp.NewToolResultText(text), nil
		})
	return s
}

func main() {
	harness.Main("mcpgo", harness.Server{
		Stdio: func(ctx context.Context) error {
			return server.NewStdioServer(newServer()).Listen(ctx, os.Stdin, os.Stdout)
		},
		HTTP: func(harness.Config) http.Handler {
			return server.NewStreamableHTTPServer(newServer())
		},
	})
}
