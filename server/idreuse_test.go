package server_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/memory"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// TestReusedIDAfterAnswerIsAccepted: an id is free again once its answer
// has been sent. A client that sends its next call with the same id as
// soon as it has read the answer must never be told that the id is in
// use. Over the in-memory and stdio transports, thousands of sequential
// calls with id 1 (bounded in time), with and without a notification
// before the answer. (transport/streamable has the same test for
// Streamable HTTP sessions.)
func TestReusedIDAfterAnswerIsAccepted(t *testing.T) {
	const calls = 3000
	budget := 10 * time.Second
	if testing.Short() {
		budget = 2 * time.Second
	}
	dials := []struct {
		name string
		dial func(t *testing.T) (client, srv transport.Transport)
	}{
		{"memory", func(t *testing.T) (transport.Transport, transport.Transport) {
			ct, st := memory.NewPair(nil)
			return ct, st
		}},
		{"stdio", func(t *testing.T) (transport.Transport, transport.Transport) {
			inR, inW := io.Pipe()   // client → server
			outR, outW := io.Pipe() // server → client
			t.Cleanup(func() { inW.Close(); outW.Close() })
			st := stdio.New(&stdio.Options{Stdin: inR, Stdout: outW})
			return pipeTransport{transport.NewLineConn(outR, inW, inW, nil)}, st
		}},
	}
	for _, d := range dials {
		for _, tool := range []string{"quiet", "chatty"} {
			t.Run(d.name+"/"+tool, func(t *testing.T) {
				s := server.New(mcp.Implementation{Name: "reuse", Version: "1"}, nil)
				defer s.Close()
				err := server.AddTool(s, &mcp.Tool{Name: tool}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
					if tool == "chatty" {
						r.Log(ctx, mcp.LevelInfo, "reuse", "before the answer")
					}
					return "ok", nil
				})
				if err != nil {
					t.Fatal(err)
				}
				ct, st := d.dial(t)
				ss, err := s.Connect(context.Background(), st)
				if err != nil {
					t.Fatal(err)
				}
				defer ss.Wait()
				defer ss.Close()
				conn, err := ct.Connect(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				n := reuseIDSequentially(t, conn, tool, calls, budget)
				t.Logf("%d calls with id 1, none refused", n)
			})
		}
	}
}

// pipeTransport is a transport whose one connection is given.
type pipeTransport struct{ conn transport.Conn }

func (p pipeTransport) Connect(context.Context) (transport.Conn, error) { return p.conn, nil }

// reuseIDSequentially initializes a 2025-11-25 session on conn, then
// calls tool with id 1 again and again, each call sent as soon as the
// previous answer has been read, until calls are done or the budget is
// spent. Any error answer fails the test; it returns the calls made.
func reuseIDSequentially(t *testing.T, conn transport.Conn, tool string, calls int, budget time.Duration) int {
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
	call, err := jsonrpc.NewCall(jsonrpc.Int64ID(1), mcp.MethodCallTool, json.RawMessage(`{"name":"`+tool+`"}`))
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
