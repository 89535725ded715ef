package sse_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/sse"
)

// Serve old clients (revision 2024-11-05) next to Streamable HTTP: mount
// the legacy handler at /sse; its streams tell clients to POST to
// /sse?sessionId=... .
func ExampleNewHandler() {
	srv := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	defer srv.Close()
	server.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Says hello"},
		func(ctx context.Context, r *server.Request, _ struct{}) (string, error) { return "Hello", nil })

	h := sse.NewHandler(srv, nil)
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	// mux.Handle("/mcp", streamable.NewHandler(srv, nil)) for newer clients

	ts := httptest.NewServer(mux) // a real program: http.ListenAndServe("localhost:3000", mux)
	defer ts.Close()
	req, _ := http.NewRequest("GET", ts.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := ts.Client().Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	lines.Scan()
	fmt.Println(lines.Text()) // the first event names the POST endpoint
	lines.Scan()
	fmt.Println(lines.Text()[:len("data: /sse?sessionId=")] + "...")
	// Output:
	// event: endpoint
	// data: /sse?sessionId=...
}
