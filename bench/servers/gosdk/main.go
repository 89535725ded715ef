// Command gosdk is the benchmark server built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): one echo tool, served on stdio
// or on Streamable HTTP at /mcp. See package harness for the command line.
//
// The HTTP handler answers with JSON bodies (JSONResponse), as the other
// servers do when a request sends nothing before its answer; -stateless
// selects the SDK's stateless mode, which serves the 2026-07-28 era.
package main

import (
	"context"
	"net/http"

	"github.com/mcpwire/mcpwire/bench/internal/harness"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EchoArgs are the echo tool's arguments; the input schema is inferred.
type EchoArgs struct {
	Text string `json:"text"`
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-gosdk", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in EchoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return s
}

func main() {
	harness.Main("gosdk", harness.Server{
		Stdio: func(ctx context.Context) error {
			return newServer().Run(ctx, &mcp.StdioTransport{})
		},
		HTTP: func(cfg harness.Config) http.Handler {
			s := newServer()
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
				&mcp.StreamableHTTPOptions{JSONResponse: true, Stateless: cfg.Stateless})
		},
	})
}
