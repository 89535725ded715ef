// Command hello is a small MCP server over stdio: one typed tool, one
// resource and one prompt. Try it with the mcpwire command:
//
//	go run ./cmd/mcpwire tools -- go run ./examples/hello
//	go run ./cmd/mcpwire call greet --args '{"name":"Ada"}' -- go run ./examples/hello
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// GreetArgs are the arguments of the greet tool. The JSON Schema that
// clients see is inferred from this type.
type GreetArgs struct {
	Name     string `json:"name" jsonschema:"who to greet"`
	Language string `json:"language,omitempty" jsonschema:"en (default) or fr"`
}

// Greeting is the structured result of the greet tool.
type Greeting struct {
	Text string `json:"text"`
}

func greet(ctx context.Context, req *server.Request, in GreetArgs) (Greeting, error) {
	if strings.TrimSpace(in.Name) == "" {
		return Greeting{}, fmt.Errorf("name must not be empty")
	}
	switch in.Language {
	case "", "en":
		return Greeting{Text: "Hello, " + in.Name + "!"}, nil
	case "fr":
		return Greeting{Text: "Bonjour, " + in.Name + " !"}, nil
	}
	return Greeting{}, fmt.Errorf("unknown language %q: use en or fr", in.Language)
}

func newServer() *server.Server {
	srv := server.New(mcp.Implementation{Name: "hello", Version: "1.0.0"}, &server.Options{
		Instructions: "Greets people. Use the greet tool.",
	})
	if err := server.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone by name"}, greet); err != nil {
		log.Fatal(err)
	}
	if err := srv.AddResource(&mcp.Resource{URI: "hello://readme", Name: "readme", MimeType: "text/plain"},
		func(ctx context.Context, req *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, MimeType: "text/plain", Text: "This server greets people."}}}, nil
		}); err != nil {
		log.Fatal(err)
	}
	if err := srv.AddPrompt(&mcp.Prompt{Name: "welcome", Description: "A welcome message", Arguments: []mcp.PromptArgument{{Name: "name", Required: true}}},
		func(ctx context.Context, req *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Write a warm welcome for " + p.Arguments["name"] + "."}}}}, nil
		}, nil); err != nil {
		log.Fatal(err)
	}
	return srv
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("hello: ") // stderr only: stdout carries protocol messages
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newServer().Run(ctx, stdio.New(nil)); err != nil {
		log.Fatal(err)
	}
}
