package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// A typed tool: the input schema is inferred from the argument type, and
// the client calls it over an in-memory connection.
func ExampleAddTool() {
	srv := server.New(mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	type Args struct {
		A int `json:"a" jsonschema:"first addend"`
		B int `json:"b" jsonschema:"second addend"`
	}
	server.AddTool(srv, &mcp.Tool{Name: "add", Description: "Adds two integers"},
		func(ctx context.Context, req *server.Request, in Args) (string, error) {
			return fmt.Sprint(in.A + in.B), nil
		})

	ctx := context.Background()
	ct, st := memory.NewPair(nil)
	srv.Connect(ctx, st)
	sess, _ := client.New(mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct)
	defer sess.Close()

	res, _ := sess.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":2,"b":3}`)})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	res, _ = sess.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":"two"}`)})
	fmt.Println(res.IsError)
	// Output:
	// 5
	// true
}

// A tool that asks the user a question works in both protocol eras: here
// the client speaks 2026-07-28, so the question travels as an
// input_required round that the client answers and retries.
func ExampleRequest_Elicit() {
	srv := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets the user by name"},
		func(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
			answer, err := req.Elicit(ctx, &mcp.ElicitParams{
				Message:         "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			})
			if err != nil {
				return "", err // ends the round in the modern era: return it as is
			}
			if answer.Action != mcp.ElicitAccept {
				return "Hello, stranger.", nil
			}
			return fmt.Sprintf("Hello, %s.", answer.Content["name"]), nil
		})

	ctx := context.Background()
	ct, st := memory.NewPair(nil)
	srv.Connect(ctx, st)
	c := client.New(mcp.Implementation{Name: "example", Version: "1"}, &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	sess, _ := c.Connect(ctx, ct)
	defer sess.Close()
	res, _ := sess.CallTool(ctx, &mcp.CallToolParams{Name: "greet"})
	fmt.Println(sess.ProtocolVersion(), res.Content[0].(*mcp.TextContent).Text)
	// Output: 2026-07-28 Hello, Ada.
}

// Shutdown lets a call in progress finish, ends the open sessions, and
// leaves a server that refuses new ones.
func ExampleServer_Shutdown() {
	srv := server.New(mcp.Implementation{Name: "worker", Version: "1.0.0"}, nil)
	started := make(chan struct{})
	server.AddTool(srv, &mcp.Tool{Name: "work", Description: "Works for a moment"},
		func(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
			close(started)
			select {
			case <-time.After(50 * time.Millisecond):
				return "finished", nil
			case <-ctx.Done(): // Shutdown's deadline passed
				return "", ctx.Err()
			}
		})

	ctx := context.Background()
	ct, st := memory.NewPair(nil)
	srv.Connect(ctx, st)
	sess, _ := client.New(mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct)
	defer sess.Close()
	result := make(chan string)
	go func() {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "work"})
		if err != nil {
			result <- err.Error()
			return
		}
		result <- res.Content[0].(*mcp.TextContent).Text
	}()
	<-started

	stop, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	fmt.Println("shutdown:", srv.Shutdown(stop))
	fmt.Println("the call:", <-result)
	_, st2 := memory.NewPair(nil)
	_, err := srv.Connect(ctx, st2)
	fmt.Println(errors.Is(err, server.ErrServerClosed))
	// Output:
	// shutdown: <nil>
	// the call: finished
	// true
}
