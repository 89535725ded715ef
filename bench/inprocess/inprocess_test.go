// Package inprocess holds the in-process round-trip benchmarks of every
// implementation: one tools/call of the echo tool with a 100-byte text,
// from a client to a server in the same process and back, through each
// library's own in-memory path (mcpwire: its memory transport; the
// official Go SDK: NewInMemoryTransports; mcp-go: its in-process client;
// the floor: encoding/json on both sides of a function call).
//
//	go test -run '^$' -bench RoundTrip -benchmem ./inprocess
//
// http_test.go holds the Streamable HTTP benchmarks (BenchmarkHTTP,
// BenchmarkIdleSession).
package inprocess

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcpwire/mcpwire/bench/internal/floor"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var text = strings.Repeat("x", 100)

// EchoArgs are the echo tool's arguments.
type EchoArgs struct {
	Text string `json:"text"`
}

// The echo server of each library, as in bench/servers, shared by the
// in-process and the HTTP benchmarks.

func newMcpwireServer() *server.Server {
	s := server.New(mcp.Implementation{Name: "bench", Version: "1"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, r *server.Request, in EchoArgs) (*mcp.CallToolResult, error) {
		return server.TextResult(in.Text), nil
	})
	return s
}

func newGoSDKServer() *gosdk.Server {
	s := gosdk.NewServer(&gosdk.Implementation{Name: "bench", Version: "1"}, nil)
	gosdk.AddTool(s, &gosdk.Tool{Name: "echo"}, func(ctx context.Context, req *gosdk.CallToolRequest, in EchoArgs) (*gosdk.CallToolResult, any, error) {
		return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: in.Text}}}, nil, nil
	})
	return s
}

func newMcpGoServer() *mcpgoserver.MCPServer {
	s := mcpgoserver.NewMCPServer("bench", "1", mcpgoserver.WithToolCapabilities(false))
	s.AddTool(mcpgo.NewTool("echo", mcpgo.WithString("text", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			t, err := req.RequireString("text")
			if err != nil {
				return mcpgo.NewToolResultError(err.Error()), nil
			}
			return mcpgo.NewToolResultText(t), nil
		})
	return s
}

func BenchmarkRoundTrip(b *testing.B) {
	b.Run("floor", benchFloor)
	b.Run("mcpwire", func(b *testing.B) { benchMcpwire(b, mcp.LatestLegacy) })
	b.Run("mcpwire-stateless", func(b *testing.B) { benchMcpwire(b, mcp.Latest) })
	b.Run("gosdk", benchGoSDK)
	b.Run("mcpgo", benchMcpGo)
}

// benchFloor is the floor's round trip: the client encodes the request
// and decodes the answer with encoding/json; the server is floor.Handle.
func benchFloor(b *testing.B) {
	type params struct {
		Name      string   `json:"name"`
		Arguments EchoArgs `json:"arguments"`
	}
	type req struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  params `json:"params"`
	}
	type resp struct {
		ID     int64 `json:"id"`
		Result struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	b.ReportAllocs()
	id := int64(0)
	for b.Loop() {
		id++
		msg, err := json.Marshal(req{"2.0", id, "tools/call", params{"echo", EchoArgs{text}}})
		if err != nil {
			b.Fatal(err)
		}
		var r resp
		if err := json.Unmarshal(floor.Handle(msg), &r); err != nil || r.ID != id || r.Result.Content[0].Text != text {
			b.Fatal(r, err)
		}
	}
}

func benchMcpwire(b *testing.B, v mcp.Version) {
	s := newMcpwireServer()
	ct, st := memory.NewPair(nil)
	ctx := context.Background()
	ss, err := s.Connect(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { ss.Close(); ss.Wait() }()
	cs, err := client.New(mcp.Implementation{Name: "bench-client", Version: "1"}, &client.Options{Version: v}).Connect(ctx, ct)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args, _ := json.Marshal(EchoArgs{Text: text})
	params := &mcp.CallToolParams{Name: "echo", Arguments: args}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != text {
			b.Fatal(res, err)
		}
	}
}

func benchGoSDK(b *testing.B) {
	s := newGoSDKServer()
	ct, st := gosdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := gosdk.NewClient(&gosdk.Implementation{Name: "bench-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &gosdk.CallToolParams{Name: "echo", Arguments: EchoArgs{Text: text}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError || res.Content[0].(*gosdk.TextContent).Text != text {
			b.Fatal(res, err)
		}
	}
}

func benchMcpGo(b *testing.B) {
	c, err := mcpgoclient.NewInProcessClient(newMcpGoServer())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench-client", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"text": text}
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError || res.Content[0].(mcpgo.TextContent).Text != text {
			b.Fatal(res, err)
		}
	}
}
