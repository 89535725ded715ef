package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// TestSlowProbeWithVersionAsked: a client that asks for 2026-07-28 waits
// for a slow answer to its probe, since there is no other era to try. It
// said "the server does not speak 2026-07-28" once ProbeTimeout passed,
// which failed conformance scenarios on a loaded machine.
func TestSlowProbeWithVersionAsked(t *testing.T) {
	slow := func(next jsonrpc.Handler) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == mcp.MethodDiscover {
				time.Sleep(300 * time.Millisecond) // six times ProbeTimeout
			}
			return next.Handle(ctx, req)
		})
	}
	srv := server.New(mcp.Implementation{Name: "slow", Version: "1"}, &server.Options{Middleware: []jsonrpc.Middleware{slow}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ct, st := memory.NewPair(nil)
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{Version: mcp.Latest, ProbeTimeout: 50 * time.Millisecond})
	sess, err := c.Connect(ctx, ct)
	if err != nil {
		t.Fatalf("Connect asking for %s: %v", mcp.Latest, err)
	}
	defer sess.Close()
	if sess.ProtocolVersion() != mcp.Latest {
		t.Errorf("protocol %s, want %s", sess.ProtocolVersion(), mcp.Latest)
	}
}
