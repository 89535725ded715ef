package mcptest_test

import (
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcptest"
	"github.com/mcpwire/mcpwire/server"
)

// greeter is the server under test in the examples.
func greeter() *server.Server {
	srv := server.New(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone"},
		func(ctx context.Context, req *server.Request, in struct {
			Name string `json:"name"`
		}) (string, error) {
			if in.Name == "" {
				return "", fmt.Errorf("whom should I greet?")
			}
			return "Hello, " + in.Name + "!", nil
		})
	server.AddTool(srv, &mcp.Tool{Name: "ask", Description: "Asks the user for a name"},
		func(ctx context.Context, req *server.Request, _ struct{}) (string, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{
				Message:         "What is your name?",
				RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("Hello, %v!", res.Content["name"]), nil
		})
	return srv
}

// testingT stands for a test's *testing.T, so that the examples run.
func testingT() *fakeT { return &fakeT{} }

// A test connects a client to the server under test and calls its tools.
// In a real test, t is the test's *testing.T, and the cleanup runs when
// the test ends.
func ExampleConnect() {
	t := testingT()
	defer t.finish()

	sess := mcptest.Connect(t, greeter(), nil)
	fmt.Println(sess.ProtocolVersion())
	fmt.Println(mcptest.CallText(t, sess, "greet", map[string]string{"name": "Ada"}))
	fmt.Println(mcptest.CallError(t, sess, "greet", map[string]string{"name": ""}))
	// Output:
	// 2026-07-28
	// Hello, Ada!
	// whom should I greet?
}

// A tool that asks the user works in both eras: a request to the client
// in a legacy session, an input_required round in the stateless era. The
// client's Elicit handler answers both.
func ExampleEras() {
	t := testingT()
	defer t.finish()

	srv := greeter()
	answer := &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Grace"}}, nil
		},
	}
	// In a test: mcptest.Eras(t, func(t *testing.T, v mcp.Version) { ... })
	for _, v := range []mcp.Version{mcp.Latest, mcp.LatestLegacy} {
		sess := mcptest.Connect(t, srv, &mcptest.Options{Version: v, Client: answer})
		fmt.Println(v, mcptest.CallText(t, sess, "ask", nil))
	}
	// Output:
	// 2026-07-28 Hello, Grace!
	// 2025-11-25 Hello, Grace!
}

// A Recorder shows the conversation on the wire, byte for byte.
func ExampleRecorder() {
	t := testingT()
	defer t.finish()

	var rec mcptest.Recorder
	sess := mcptest.Connect(t, greeter(), &mcptest.Options{Version: mcp.LatestLegacy, Observer: &rec})
	mcptest.CallText(t, sess, "greet", map[string]string{"name": "Ada"})
	for _, f := range rec.Frames() {
		if f.Method == mcp.MethodCallTool { // the call and its response; not the handshake
			fmt.Println(f)
		}
	}
	// Output:
	// -> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}
	// <- {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello, Ada!"}]}}
}

// Call decodes a structured result into a Go value.
func ExampleCall() {
	t := testingT()
	defer t.finish()

	type Sum struct {
		Total int `json:"total"`
	}
	srv := server.New(mcp.Implementation{Name: "calc", Version: "1.0.0"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "add"}, func(ctx context.Context, req *server.Request, in struct {
		A, B int
	}) (Sum, error) {
		return Sum{Total: in.A + in.B}, nil
	})
	sess := mcptest.Connect(t, srv, nil)
	fmt.Println(mcptest.Call[Sum](t, sess, "add", map[string]int{"A": 2, "B": 3}).Total)
	// Output:
	// 5
}
