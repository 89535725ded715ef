package streamable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// A client connects to an MCP endpoint over HTTP with NewTransport. The
// same transport speaks to servers of every era: the MCP client asks for
// the modern (stateless) revision first and falls back to initialize and
// a legacy session; the transport itself falls back to the HTTP+SSE
// transport of 2024-11-05 when a server refuses initialize.
func ExampleNewTransport() {
	// A server to talk to, served over Streamable HTTP.
	srv := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	defer srv.Close()
	server.AddTool(srv, &mcp.Tool{Name: "greet", Description: "says hello"}, func(ctx context.Context, r *server.Request, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "Hello, " + in.Name + "!", nil
	})
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	// The client.
	ctx := context.Background()
	c := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	sess, err := c.Connect(ctx, streamable.NewTransport(ts.URL, &streamable.ClientOptions{
		Header: http.Header{"Authorization": {"Bearer example-token"}}, // sent on every request
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	fmt.Println("protocol", sess.ProtocolVersion())
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: json.RawMessage(`{"name":"Ada"}`)})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// protocol 2026-07-28
	// Hello, Ada!
}

// A legacy session: the protocol revision is negotiated by initialize;
// the transport sends it, and the session id the server gave, on every
// request, and ends the session with DELETE when the connection closes.
func ExampleNewTransport_legacy() {
	srv := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	defer srv.Close()
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	c := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, &client.Options{Version: mcp.Version20251125})
	sess, err := c.Connect(context.Background(), streamable.NewTransport(ts.URL, nil))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("protocol", sess.ProtocolVersion(), "modern", sess.IsModern())
	sess.Close()
	// Output:
	// protocol 2025-11-25 modern false
}
