package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// benchPair connects a client to a server with one echo tool over the
// memory transport, in the given revision ("" = modern).
func benchPair(b *testing.B, v mcp.Version) (*client.Session, func()) {
	s := server.New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, r *server.Request, in echoArgs) (*mcp.CallToolResult, error) {
		return server.TextResult(in.Text), nil
	})
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := client.New(mcp.Implementation{Name: "bench-client", Version: "1"}, &client.Options{Version: v}).Connect(ctx, ct)
	if err != nil {
		b.Fatal(err)
	}
	return cs, func() { cs.Close(); ss.Close(); ss.Wait() }
}

// BenchmarkToolCallRoundTrip measures one tools/call round trip in
// process, client to server and back, with a 100-byte payload: encoding,
// strict decoding, dispatch, argument validation, the handler, and the
// result on the way back.
func BenchmarkToolCallRoundTrip(b *testing.B) {
	for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
		b.Run(string(v), func(b *testing.B) { benchRoundTrip(b, v) })
	}
}

func benchRoundTrip(b *testing.B, v mcp.Version) {
	cs, done := benchPair(b, v)
	defer done()
	args, _ := json.Marshal(echoArgs{Text: strings.Repeat("x", 100)})
	params := &mcp.CallToolParams{Name: "echo", Arguments: args}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(res, err)
		}
	}
}
