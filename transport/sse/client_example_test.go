package sse_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/sse"
)

// Connect the MCP client to a server that speaks only the HTTP+SSE
// transport of 2024-11-05, at the URL of its event stream.
func ExampleNewTransport() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t := sse.NewTransport("http://localhost:8080/sse", &sse.ClientOptions{
		Header: http.Header{"Authorization": {"Bearer example-token"}}, // on the GET and every POST
	})
	sess, err := client.New(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil).Connect(ctx, t)
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	fmt.Println(sess.ProtocolVersion()) // 2024-11-05
}
