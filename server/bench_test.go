package server_test

import (
	"context"
	"encoding/json"
	"fmt"
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

type intBenchArgs struct {
	A     int    `json:"a"`
	B     int64  `json:"b"`
	Count uint16 `json:"count"`
}

// BenchmarkTypedToolIntArgs measures a tools/call round trip of a typed
// tool with integer arguments, written as plain integers and (when the
// decoding takes them) as 1.0 and 1e1.
func BenchmarkTypedToolIntArgs(b *testing.B) {
	for _, c := range []struct{ name, args string }{
		{"plain", `{"a":12345,"b":-9007199254740991,"count":7}`},
		{"exponent", `{"a":1.2345e4,"b":-9.007199254740991e15,"count":7.0}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := server.New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
			server.AddTool(s, &mcp.Tool{Name: "sum"}, func(ctx context.Context, r *server.Request, in intBenchArgs) (*mcp.CallToolResult, error) {
				if in.A != 12345 || in.B != -9007199254740991 || in.Count != 7 {
					return server.ErrorResult(fmt.Sprintf("decoded %+v", in)), nil
				}
				return server.TextResult("ok"), nil
			})
			ct, st := memory.NewPair(nil)
			ctx := context.Background()
			ss, err := s.Connect(ctx, st)
			if err != nil {
				b.Fatal(err)
			}
			cs, err := client.New(mcp.Implementation{Name: "bench-client", Version: "1"}, nil).Connect(ctx, ct)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { cs.Close(); ss.Close(); ss.Wait() }()
			params := &mcp.CallToolParams{Name: "sum", Arguments: json.RawMessage(c.args)}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					b.Fatal(res.Content[0].(*mcp.TextContent).Text, err)
				}
			}
		})
	}
}
