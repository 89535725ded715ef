// Package inprocess holds the in-process round-trip benchmarks of every
// implementation: one tools/call of the echo tool with a 100-byte text,
// from a client to a server in the same process and back, through each
// library's own in-memory path (mcpwire: its memory transport; the
// official Go SDK: NewInMemoryTransports; mcp-go: its in-process client;
// the floor: encoding/json on both sides of a function call).
// BenchmarkRoundTrip pins every client to the 2025-11-25 legacy session,
// BenchmarkRoundTripModern to 2026-07-28; a library whose client cannot
// speak the era skips it.
//
//	go test -run '^$' -bench RoundTrip -benchmem ./inprocess
//
// http_test.go holds the Streamable HTTP benchmarks (BenchmarkHTTP,
// BenchmarkIdleSession).
package inprocess

import (
	"cmp"
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

// The protocol revisions of the two eras.
const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
)

// BenchmarkRoundTrip is the round trip in a 2025-11-25 session.
func BenchmarkRoundTrip(b *testing.B) {
	b.Run("floor", func(b *testing.B) { benchFloor(b, false) })
	b.Run("mcpwire", func(b *testing.B) { benchMcpwire(b, mcp.LatestLegacy) })
	b.Run("gosdk", func(b *testing.B) { benchGoSDK(b, legacyVersion) })
	b.Run("mcpgo", func(b *testing.B) { benchMcpGo(b, legacyVersion) })
}

// BenchmarkRoundTripModern is the round trip in the 2026-07-28 era, which
// mcpwire's client.Connect speaks by default: every request carries the
// _meta envelope, every result the server's info.
func BenchmarkRoundTripModern(b *testing.B) {
	b.Run("floor", func(b *testing.B) { benchFloor(b, true) })
	b.Run("mcpwire", func(b *testing.B) { benchMcpwire(b, "") })
	b.Run("gosdk", func(b *testing.B) { benchGoSDK(b, modernVersion) })
	b.Run("mcpgo", func(b *testing.B) { benchMcpGo(b, modernVersion) })
}

// benchFloor is the floor's round trip: the client encodes the request
// and decodes the answer with encoding/json; the server is floor.Handle.
// A modern request carries the envelope (encoded with the request, as a
// client without a pre-encoded envelope does), and its result must be
// marked complete.
func benchFloor(b *testing.B, modern bool) {
	type envelope struct {
		Version string              `json:"io.modelcontextprotocol/protocolVersion"`
		Caps    struct{}            `json:"io.modelcontextprotocol/clientCapabilities"`
		Info    *mcp.Implementation `json:"io.modelcontextprotocol/clientInfo"`
	}
	type params struct {
		Name      string    `json:"name"`
		Arguments EchoArgs  `json:"arguments"`
		Meta      *envelope `json:"_meta,omitempty"`
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
			IsError    bool   `json:"isError"`
			ResultType string `json:"resultType"`
		} `json:"result"`
	}
	var env *envelope
	wantType := ""
	if modern {
		env = &envelope{Version: modernVersion, Info: &mcp.Implementation{Name: "bench-client", Version: "1"}}
		wantType = "complete"
	}
	b.ReportAllocs()
	id := int64(0)
	for b.Loop() {
		id++
		msg, err := json.Marshal(req{"2.0", id, "tools/call", params{"echo", EchoArgs{text}, env}})
		if err != nil {
			b.Fatal(err)
		}
		var r resp
		if err := json.Unmarshal(floor.Handle(msg), &r); err != nil || r.ID != id || len(r.Result.Content) != 1 ||
			r.Result.Content[0].Text != text || r.Result.ResultType != wantType {
			b.Fatal(r, err)
		}
	}
}

// benchMcpwire is mcpwire's round trip in revision v ("": what
// client.Connect chooses, 2026-07-28 with this server).
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
	if want := cmp.Or(v, mcp.Latest); cs.ProtocolVersion() != want {
		b.Fatalf("the session speaks %s, want %s", cs.ProtocolVersion(), want)
	}
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

// benchGoSDK is the official Go SDK's round trip, its client pinned to
// revision v.
func benchGoSDK(b *testing.B, v string) {
	s := newGoSDKServer()
	ct, st := gosdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := gosdk.NewClient(&gosdk.Implementation{Name: "bench-client", Version: "1"}, nil).Connect(ctx, ct, &gosdk.ClientSessionOptions{ProtocolVersion: v})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != v {
		b.Skipf("the client speaks %s in process, not %s", got, v)
	}
	params := &gosdk.CallToolParams{Name: "echo", Arguments: EchoArgs{Text: text}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError || res.Content[0].(*gosdk.TextContent).Text != text {
			b.Fatal(res, err)
		}
	}
}

// benchMcpGo is mcp-go's round trip, its client pinned to revision v.
func benchMcpGo(b *testing.B, v string) {
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
	init.Params.ProtocolVersion = v
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench-client", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		b.Fatal(err)
	}
	if res.ProtocolVersion != v {
		b.Skipf("the client speaks %s in process, not %s", res.ProtocolVersion, v)
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
