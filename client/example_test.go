package client_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// A client lists a server's tools and calls one. The server runs in the
// same process here, over the in-memory transport; with a real server,
// use transport/command or transport/streamable instead.
func Example() {
	srv := server.New(mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather"},
		func(ctx context.Context, req *server.Request, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "Sunny in " + in.City, nil
		})
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	srv.Connect(ctx, st)

	c := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	sess, err := c.Connect(ctx, ct)
	if err != nil {
		panic(err)
	}
	defer sess.Close()
	fmt.Println("protocol", sess.ProtocolVersion())
	for tool, err := range sess.Tools(ctx) {
		if err != nil {
			panic(err)
		}
		fmt.Println("tool", tool.Name, string(tool.InputSchema))
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: json.RawMessage(`{"city":"Paris"}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// protocol 2026-07-28
	// tool forecast {"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}
	// Sunny in Paris
}

// The function CallTool decodes a tool's structured result into a Go
// value, after the session checked it against the tool's outputSchema
// (learned from tools/list).
func ExampleCallTool() {
	type Forecast struct {
		City string `json:"city"`
		High int    `json:"high"`
	}
	srv := server.New(mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather"},
		func(ctx context.Context, req *server.Request, in struct {
			City string `json:"city"`
		}) (Forecast, error) {
			return Forecast{City: in.City, High: 24}, nil
		})
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	srv.Connect(ctx, st)
	sess, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil).Connect(ctx, ct)
	if err != nil {
		panic(err)
	}
	defer sess.Close()
	for _, err := range sess.Tools(ctx) { // learn the output schemas
		if err != nil {
			panic(err)
		}
	}
	f, err := client.CallTool[Forecast](ctx, sess, "forecast", map[string]string{"city": "Paris"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d°C\n", f.City, f.High)
	// Output:
	// Paris: 24°C
}
