package memory

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// toolsCallParams and toolsCallResult are a small MCP tools/call.
var (
	toolsCallParams = json.RawMessage(`{"name":"get_weather","arguments":{"location":"New York"}}`)
	toolsCallResult = json.RawMessage(`{"content":[{"type":"text","text":"Sunny, 22°C"}],"isError":false}`)
)

// BenchmarkMessage is one message through the pair: encode, hand over,
// decode.
func BenchmarkMessage(b *testing.B) {
	c, s := connect(b, &Options{Methods: knownMethods})
	defer c.Close()
	ctx := context.Background()
	m := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: toolsCallParams}
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Write(ctx, m); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTrip is a tools/call-shaped call and its response between
// two jsonrpc.Conns over the pair: the transport's share of the MCP
// round trip plus the engine's.
func BenchmarkRoundTrip(b *testing.B) {
	b.Run("observer=none", func(b *testing.B) { benchRoundTrip(b, nil) })
	// The cost of seeing the wire: an observer that looks at every frame
	// (its method and latency) and keeps nothing.
	var n int
	b.Run("observer=counting", func(b *testing.B) {
		benchRoundTrip(b, transport.ObserverFunc(func(f *transport.Frame) { n += len(f.Method) + int(f.Latency&1) }))
	})
}

func benchRoundTrip(b *testing.B, obs transport.Observer) {
	c, s := connect(b, &Options{Methods: knownMethods, Observer: obs})
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return toolsCallResult, nil
	})
	client := jsonrpc.NewConn(c, nil)
	server := jsonrpc.NewConn(s, &jsonrpc.Options{Handler: h})
	defer server.Close()
	defer client.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := client.CallRaw(ctx, "tools/call", toolsCallParams); err != nil {
			b.Fatal(err)
		}
	}
}
