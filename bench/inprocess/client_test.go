// The cost of each library's own Streamable HTTP client per tools/call:
// BenchmarkHTTPClient (a 2025-11-25 legacy session) and
// BenchmarkHTTPClientModern (2026-07-28, which mcpwire's client.Connect
// speaks by default) call the echo tool (100-byte text) one call at a time
// through each client, with its default options, against one server: the
// floor's HTTP handler, in a process of its own (this test binary run
// again with BENCH_FLOOR_HTTP set), so that the allocations and the CPU
// time counted are the client's alone. Besides ns/op (the round trip, the
// server's time included) and B/op and allocs/op, each reports cpu-µs/op:
// the CPU time of this process (user and system, getrusage) per call.
//
//	cd bench && go test -run '^$' -bench 'HTTPClient' -benchmem ./inprocess

package inprocess

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpwire/mcpwire/bench/internal/floor"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// floorEnv, when set, makes the test binary serve the floor's HTTP
// handler at /mcp on a loopback port, print the address, and exit when
// its standard input ends.
const floorEnv = "BENCH_FLOOR_HTTP"

func TestMain(m *testing.M) {
	if os.Getenv(floorEnv) != "" {
		os.Exit(serveFloor())
	}
	os.Exit(m.Run())
}

// serveFloor is the server process of the client benchmarks.
func serveFloor() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", floor.NewHTTPHandler())
	go (&http.Server{Handler: mux, ReadHeaderTimeout: httpReqTimeout}).Serve(ln)
	fmt.Println(ln.Addr().String())
	io.Copy(io.Discard, os.Stdin) // until the benchmark ends
	return 0
}

// startFloorProcess starts the floor in a process of its own and returns
// its /mcp URL; it stops with the benchmark.
func startFloorProcess(b *testing.B) string {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), floorEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
	}()
	select {
	case a := <-addr:
		if a == "" {
			b.Fatal("the floor process printed no address")
		}
		return "http://" + a + "/mcp"
	case <-time.After(10 * time.Second):
		b.Fatal("the floor process did not start within 10s")
	}
	return ""
}

// clientLoop runs call b.N times and reports the client's CPU per call.
func clientLoop(b *testing.B, call func() error) {
	b.ReportAllocs()
	cpu0 := processCPU()
	n := 0
	for b.Loop() {
		if err := call(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(n), "cpu-µs/op")
}

// BenchmarkHTTPClient is each client's cost per call in a legacy
// (2025-11-25) session.
func BenchmarkHTTPClient(b *testing.B) {
	url := startFloorProcess(b)
	b.Run("floor", func(b *testing.B) { benchFloorClient(b, url, false) })
	b.Run("mcpwire", func(b *testing.B) { benchMcpwireClient(b, url, mcp.LatestLegacy) })
	b.Run("gosdk", func(b *testing.B) { benchGoSDKClient(b, url, legacyVersion) })
	b.Run("mcpgo", func(b *testing.B) { benchMcpGoClient(b, url, legacyVersion) })
}

// BenchmarkHTTPClientModern is each client's cost per call in the
// 2026-07-28 era; a client that does not speak it over HTTP skips.
func BenchmarkHTTPClientModern(b *testing.B) {
	url := startFloorProcess(b)
	b.Run("floor", func(b *testing.B) { benchFloorClient(b, url, true) })
	b.Run("mcpwire", func(b *testing.B) { benchMcpwireClient(b, url, "") })
	b.Run("gosdk", func(b *testing.B) { benchGoSDKClient(b, url, modernVersion) })
	b.Run("mcpgo", func(b *testing.B) { benchMcpGoClient(b, url, modernVersion) })
}

// benchFloorClient is the least a client can do: net/http's default
// client, the request encoded and the answer decoded with encoding/json
// (and, in the 2026-07-28 era, the _meta envelope and the headers that era
// asks of every request).
func benchFloorClient(b *testing.B, url string, modern bool) {
	type envelope struct {
		Version string         `json:"io.modelcontextprotocol/protocolVersion"`
		Caps    struct{}       `json:"io.modelcontextprotocol/clientCapabilities"`
		Info    map[string]any `json:"io.modelcontextprotocol/clientInfo"`
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
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	hc := &http.Client{}
	defer hc.CloseIdleConnections()
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	var env *envelope
	if modern {
		env = &envelope{Version: modernVersion, Info: map[string]any{"name": "bench-client", "version": "1"}}
		hdr.Set("MCP-Protocol-Version", modernVersion)
		hdr.Set("Mcp-Method", "tools/call")
		hdr.Set("Mcp-Name", "echo")
	} else {
		s := newHTTPSession(hc, url)
		if err := s.open(); err != nil {
			b.Fatal(err)
		}
		defer s.end()
		hdr.Set("MCP-Protocol-Version", httpVersion)
		hdr.Set("Mcp-Session-Id", s.sid)
	}
	id := int64(0)
	clientLoop(b, func() error {
		id++
		body, err := json.Marshal(req{"2.0", id, "tools/call", params{"echo", EchoArgs{text}, env}})
		if err != nil {
			return err
		}
		hr, err := http.NewRequest("POST", url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		hr.Header = hdr.Clone()
		res, err := hc.Do(hr)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		var r resp
		if err := json.NewDecoder(io.LimitReader(res.Body, httpMaxBody)).Decode(&r); err != nil {
			return err
		}
		if r.ID != id || len(r.Result.Content) != 1 || r.Result.Content[0].Text != text {
			return fmt.Errorf("answer %+v", r)
		}
		return nil
	})
}

// benchMcpwireClient is mcpwire's client with its default options, in
// revision v ("": what client.Connect chooses, 2026-07-28 with the floor).
func benchMcpwireClient(b *testing.B, url string, v mcp.Version) {
	ctx := context.Background()
	cs, err := client.New(mcp.Implementation{Name: "bench-client", Version: "1"}, &client.Options{Version: v}).
		Connect(ctx, streamable.NewTransport(url, nil))
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	if want := v; want != "" && cs.ProtocolVersion() != want {
		b.Fatalf("the session speaks %s, want %s", cs.ProtocolVersion(), want)
	} else if want == "" && cs.ProtocolVersion() != modernVersion {
		b.Fatalf("the session speaks %s, want %s", cs.ProtocolVersion(), modernVersion)
	}
	args, _ := json.Marshal(EchoArgs{Text: text})
	params := &mcp.CallToolParams{Name: "echo", Arguments: args}
	clientLoop(b, func() error {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return err
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != text {
			return fmt.Errorf("answer %+v", res)
		}
		return nil
	})
}

// benchGoSDKClient is the official Go SDK's client with its default
// options, pinned to revision v.
func benchGoSDKClient(b *testing.B, url string, v string) {
	ctx := context.Background()
	cs, err := gosdk.NewClient(&gosdk.Implementation{Name: "bench-client", Version: "1"}, nil).
		Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: url}, &gosdk.ClientSessionOptions{ProtocolVersion: v})
	if err != nil {
		if v == modernVersion {
			b.Skipf("the client does not connect in %s over HTTP: %v", v, err)
		}
		b.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != v {
		b.Skipf("the client speaks %s over HTTP, not %s", got, v)
	}
	params := &gosdk.CallToolParams{Name: "echo", Arguments: EchoArgs{Text: text}}
	clientLoop(b, func() error {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return err
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].(*gosdk.TextContent).Text != text {
			return fmt.Errorf("answer %+v", res)
		}
		return nil
	})
}

// benchMcpGoClient is mcp-go's Streamable HTTP client with its default
// options, pinned to revision v.
func benchMcpGoClient(b *testing.B, url string, v string) {
	ctx := context.Background()
	c, err := mcpgoclient.NewStreamableHttpClient(url)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = v
	init.Params.ClientInfo = mcpgo.Implementation{Name: "bench-client", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		if v == modernVersion {
			b.Skipf("the client does not connect in %s over HTTP: %v", v, err)
		}
		b.Fatal(err)
	}
	if res.ProtocolVersion != v {
		b.Skipf("the client speaks %s over HTTP, not %s", res.ProtocolVersion, v)
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"text": text}
	clientLoop(b, func() error {
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return err
		}
		if res.IsError || len(res.Content) != 1 || res.Content[0].(mcpgo.TextContent).Text != text {
			return fmt.Errorf("answer %+v", res)
		}
		return nil
	})
}
