package streamable_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestReusedIDAfterAnswerIsAccepted: in a legacy session, an id is free
// again once its answer has been sent. A client that sends its next call
// with the same id as soon as it has read the answer was refused now and
// then ("id 1 is already in use by a running request"): the session
// forgot the call's stream only after the answer had been written and
// flushed. The client here is the package's own ClientConn, which hands
// the answer over as soon as its event is read; each case reuses id 1
// thousands of times (bounded in time) and wants no refusal.
func TestReusedIDAfterAnswerIsAccepted(t *testing.T) {
	const calls = 2000
	budget := 15 * time.Second
	if testing.Short() {
		budget = 3 * time.Second
	}
	cases := []struct {
		name string
		opts *streamable.HandlerOptions
		tool string // chatty streams a log message first: the answer is an SSE event, flushed
		args string
	}{
		{"json", nil, "echo", `{"text":"x"}`},
		{"sse", nil, "chatty", `{"tag":"x","n":1}`},
		{"event-store", &streamable.HandlerOptions{EventStore: streamable.NewMemoryEventStore(nil)}, "echo", `{"text":"x"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := start(t, tc.opts)
			conn, err := streamable.NewTransport(e.url, &streamable.ClientOptions{HTTPClient: e.client}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			n := reuseIDSequentially(t, conn, tc.tool, tc.args, calls, budget)
			t.Logf("%d calls with id 1, none refused", n)
		})
	}
}

// reuseIDSequentially initializes a 2025-11-25 session on conn, then
// calls tool with id 1 again and again, each call sent as soon as the
// previous answer has been read, until calls are done or the budget is
// spent. Any error answer fails the test; it returns the calls made.
func reuseIDSequentially(t *testing.T, conn transport.Conn, tool, args string, calls int, budget time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), budget+10*time.Second)
	defer cancel()
	roundTrip := func(req *jsonrpc.Request) *jsonrpc.Response {
		t.Helper()
		if err := conn.Write(ctx, req); err != nil {
			t.Fatalf("writing %s: %v", req.Method, err)
		}
		for {
			m, err := conn.Read(ctx)
			if err != nil {
				t.Fatalf("reading the answer to %s: %v", req.Method, err)
			}
			if resp, ok := m.(*jsonrpc.Response); ok {
				if resp.ID != req.ID {
					t.Fatalf("answer to id %s, want %s", resp.ID, req.ID)
				}
				return resp
			}
			// notifications of the call: skipped
		}
	}
	init, err := jsonrpc.NewCall(jsonrpc.Int64ID(1), mcp.MethodInitialize, json.RawMessage(
		`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"reuse","version":"1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if resp := roundTrip(init); resp.Error != nil {
		t.Fatalf("initialize: %v", resp.Error)
	}
	note, _ := jsonrpc.NewNotification(mcp.NotificationInitialized, nil)
	if err := conn.Write(ctx, note); err != nil {
		t.Fatal(err)
	}
	call, err := jsonrpc.NewCall(jsonrpc.Int64ID(1), mcp.MethodCallTool, json.RawMessage(`{"name":"`+tool+`","arguments":`+args+`}`))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(budget)
	n := 0
	for ; n < calls && time.Now().Before(deadline); n++ {
		if resp := roundTrip(call); resp.Error != nil {
			t.Fatalf("call %d with id 1 refused: %v", n+1, resp.Error)
		}
	}
	return n
}
