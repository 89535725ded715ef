package streamable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// Mount the handler at /mcp of a ServeMux. One endpoint serves modern
// (stateless) requests and legacy sessions alike; here a modern client
// calls a tool with a raw HTTP request.
func ExampleNewHandler() {
	srv := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Says hello"},
		func(ctx context.Context, r *server.Request, in struct {
			Name string `json:"name"`
		}) (string, error) {
			return "Hello, " + in.Name, nil
		})
	defer srv.Close()

	h := streamable.NewHandler(srv, nil)
	defer h.Close() // ends the legacy sessions and the janitor
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)

	// A real program would run http.ListenAndServe("localhost:3000", mux).
	ts := httptest.NewServer(mux)
	defer ts.Close()

	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call",`+
		`"params":{"name":"greet","arguments":{"name":"Gopher"},"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "greet")
	resp, err := ts.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var answer struct {
		Result mcp.CallToolResult `json:"result"`
	}
	body, _ := io.ReadAll(resp.Body)
	json.Unmarshal(body, &answer)
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))
	fmt.Println(answer.Result.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 200 OK application/json
	// Hello, Gopher
}

// A tool that takes long can close its SSE stream so that the client
// polls for the rest (SEP-1699): the handler needs an event store, and
// the client resumes with GET and Last-Event-ID, where it finds
// everything the call sent after the close, its result included.
func ExampleCloseStream() {
	srv := server.New(mcp.Implementation{Name: "worker", Version: "1.0.0"}, nil)
	defer srv.Close()
	server.AddTool(srv, &mcp.Tool{Name: "long_job", Description: "Works for a while"},
		func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
			streamable.CloseStream(ctx) // the client will poll
			time.Sleep(50 * time.Millisecond)
			return "job done", nil
		})
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{
		EventStore: streamable.NewMemoryEventStore(nil),
		Retry:      100 * time.Millisecond, // how long clients wait before polling
	})
	defer h.Close()
	_ = h // mount it as in the example of NewHandler
	fmt.Println("ok")
	// Output: ok
}
