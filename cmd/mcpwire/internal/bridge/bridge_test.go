package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// A testBridge is a bridge served over HTTP on 127.0.0.1.
type testBridge struct {
	*Bridge
	base string // http://127.0.0.1:PORT
	h    *httpSide
	hs   *httptest.Server
	once sync.Once
}

// startBridge starts a bridge of the tests' server (bo.Command unless
// set) within the HTTP limits hl (zero: the defaults), behind the resource server that makeRS returns for the bridge's base
// URL, if makeRS is not nil.
func startBridge(t *testing.T, bo Options, hl httpLimits, makeRS func(base string) *auth.ResourceServer) *testBridge {
	t.Helper()
	if bo.Command == nil {
		bo.Command = testCommand
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	b, err := New(ctx, bo)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	tb := &testBridge{Bridge: b, base: "http://" + hs.Listener.Addr().String(), hs: hs}
	var rs *auth.ResourceServer
	if makeRS != nil {
		rs = makeRS(tb.base)
	}
	tb.h = newHTTP(b, hl, rs, slog.New(slog.DiscardHandler))
	hs.Config.Handler = tb.h.mux
	hs.Start()
	t.Cleanup(tb.stop)
	return tb
}

// stop shuts the bridge down as mcpwire bridge does on SIGINT.
func (tb *testBridge) stop() {
	tb.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		tb.h.stop(ctx, tb.Bridge, tb.hs.Config)
		tb.hs.Close()
	})
}

// openSessions returns the number of legacy sessions not ended.
func (tb *testBridge) openSessions() int {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return len(tb.open)
}

// connect opens a session of mcpwire's client to the bridge's /mcp in
// the given revision ("": the client's choice, modern first).
func connect(t *testing.T, url string, version mcp.Version, opts *client.Options) *client.Session {
	t.Helper()
	return connectOver(t, streamable.NewTransport(url+"/mcp", nil), version, opts)
}

func connectOver(t *testing.T, tr transport.Transport, version mcp.Version, opts *client.Options) *client.Session {
	t.Helper()
	var o client.Options
	if opts != nil {
		o = *opts
	}
	o.Version = version
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	sess, err := client.New(mcp.Implementation{Name: "bridge-test-client", Version: "1.0.0"}, &o).Connect(ctx, tr)
	if err != nil {
		t.Fatalf("connect (%s): %v", version, err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// call calls a tool and returns its text, failing the test on an error.
func call(t *testing.T, ctx context.Context, s *client.Session, name string, args any) string {
	t.Helper()
	text, err := callErr(ctx, s, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return text
}

func callErr(ctx context.Context, s *client.Session, name string, args any) (string, error) {
	raw, _ := json.Marshal(args)
	if args == nil {
		raw = nil
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", fmt.Errorf("tool error: %s", b.String())
	}
	return b.String(), nil
}

// TestEverythingServerThroughBridge serves the conformance
// everything-server through the bridge to mcpwire's client in both eras
// and over both HTTP transports: progress and log messages reach the call
// they belong to, and the server's questions (sampling, elicitation)
// reach the client: as requests in a legacy session, as input_required
// rounds in the modern era, whose retries go to the process that asked.
func TestEverythingServerThroughBridge(t *testing.T) {
	bin := everythingServer(t)
	tb := startBridge(t, Options{Command: func() *exec.Cmd { return exec.Command(bin, "-stdio") }, PoolSize: 3}, httpLimits{}, nil)
	if !tb.Modern() {
		t.Fatal("the everything-server speaks 2026-07-28; the bridge did not find out")
	}
	for _, tc := range []struct {
		name    string
		version mcp.Version
		sse     bool
	}{
		{"modern", mcp.Version20260728, false},
		{"2025-11-25", mcp.Version20251125, false},
		{"2025-03-26", mcp.Version20250326, false},
		{"http+sse", mcp.Version20241105, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			var mu sync.Mutex
			var logs []string
			opts := &client.Options{
				OnLog: func(_ context.Context, p *mcp.LoggingMessageParams) {
					mu.Lock()
					logs = append(logs, string(p.Data))
					mu.Unlock()
				},
				Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
				},
				Sample: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "test", Content: mcp.SamplingContent{&mcp.TextContent{Text: "forty-two"}}}, nil
				},
			}
			var s *client.Session
			if tc.sse {
				s = connectOver(t, sse.NewTransport(tb.base+"/sse", nil), tc.version, opts)
			} else {
				s = connect(t, tb.base, tc.version, opts)
			}
			if s.ProtocolVersion() != tc.version {
				t.Fatalf("negotiated %s, want %s", s.ProtocolVersion(), tc.version)
			}
			if got := call(t, ctx, s, "test_simple_text", nil); got != "This is a simple text response for testing." {
				t.Errorf("test_simple_text: %q", got)
			}
			var progress []float64
			pctx := client.WithProgress(ctx, func(p mcp.ProgressParams) { progress = append(progress, p.Progress) })
			call(t, pctx, s, "test_tool_with_progress", nil)
			if fmt.Sprint(progress) != "[0 50 100]" {
				t.Errorf("progress: %v, want [0 50 100]", progress)
			}
			if s.IsModern() {
				ctx = client.WithLogLevel(ctx, mcp.LevelInfo)
			} else if err := s.SetLogLevel(ctx, mcp.LevelInfo); err != nil {
				t.Fatal(err)
			}
			call(t, ctx, s, "test_tool_with_logging", nil)
			mu.Lock()
			if len(logs) != 3 {
				t.Errorf("log messages: %q, want 3", logs)
			}
			mu.Unlock()
			if got := call(t, ctx, s, "test_elicitation", map[string]any{"message": "who?"}); !strings.Contains(got, "ada@example.com") {
				t.Errorf("test_elicitation: %q", got)
			}
			if got := call(t, ctx, s, "test_sampling", map[string]any{"prompt": "the answer?"}); got != "LLM response: forty-two" {
				t.Errorf("test_sampling: %q", got)
			}
		})
	}
}

// TestModernClientsKeptApart sends the requests of many modern clients
// to one pooled process at once: every client numbers its requests and
// progress tokens from the same start, yet each gets its own answers,
// progress and log messages, and nothing of the others'.
func TestModernClientsKeptApart(t *testing.T) {
	tb := startBridge(t, Options{PoolSize: 1, PoolConcurrency: 64}, httpLimits{}, nil)
	const clients, rounds, steps = 8, 5, 3
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var wg sync.WaitGroup
	for i := range clients {
		s := connect(t, tb.base, mcp.Version20260728, nil)
		wg.Go(func() {
			for r := range rounds {
				tag := fmt.Sprintf("client %d round %d", i, r)
				var mu sync.Mutex
				var progress []string
				cctx := client.WithProgress(ctx, func(p mcp.ProgressParams) {
					mu.Lock()
					progress = append(progress, p.Message)
					mu.Unlock()
				})
				got, err := callErr(cctx, s, "tagged", tagArgs{Tag: tag, N: steps})
				if err != nil || got != tag {
					t.Errorf("%s: %q, %v", tag, got, err)
					return
				}
				mu.Lock()
				if len(progress) != steps || strings.Count(strings.Join(progress, "|"), tag) != steps {
					t.Errorf("%s: progress %q", tag, progress)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// TestModernLogMessagesOfConcurrentRequests: log messages carry no
// request id, so a pooled process serves one request that asked for them
// at a time; many such requests at once each get exactly their own.
func TestModernLogMessagesOfConcurrentRequests(t *testing.T) {
	tb := startBridge(t, Options{PoolSize: 2, PoolConcurrency: 8}, httpLimits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 6 {
		var mu sync.Mutex
		var logs []string
		s := connect(t, tb.base, mcp.Version20260728, &client.Options{OnLog: func(_ context.Context, p *mcp.LoggingMessageParams) {
			mu.Lock()
			logs = append(logs, string(p.Data))
			mu.Unlock()
		}})
		wg.Go(func() {
			tag := fmt.Sprintf("logger %d", i)
			if _, err := callErr(client.WithLogLevel(ctx, mcp.LevelInfo), s, "tagged", tagArgs{Tag: tag, N: 4}); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if want := strings.Repeat(fmt.Sprintf("%q ", tag), 4); strings.Join(logs, " ")+" " != want {
				t.Errorf("%s got log messages %q", tag, logs)
			}
		})
	}
	wg.Wait()
}

// TestModernParamHeadersChecked: the bridge tells the Streamable HTTP
// handler the tool schemas the server listed, so that the handler checks
// the Mcp-Param-* headers of modern tool calls as the server itself
// would over HTTP: mcpwire's client sends them, a request without them
// gets 400 and -32020.
func TestModernParamHeadersChecked(t *testing.T) {
	bin := everythingServer(t)
	tb := startBridge(t, Options{Command: func() *exec.Cmd { return exec.Command(bin, "-stdio") }}, httpLimits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s := connect(t, tb.base, mcp.Version20260728, nil)
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := call(t, ctx, s, "test_param_header", map[string]any{"region": "eu-west-1"}); !strings.Contains(got, "eu-west-1") {
		t.Errorf("test_param_header: %q", got)
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_param_header","arguments":{"region":"eu-west-1"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, tb.base+"/mcp", strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "test_param_header"} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "-32020") {
		t.Errorf("a call without its Mcp-Param-Region header: %s %s", resp.Status, b)
	}
}

// TestModernListen: a subscriptions/listen stream through the pool gets
// its acknowledgement and the notifications it asked for, their
// subscription id mapped back to the client's own, and ends when the
// client closes it (the process is told, and the listen no longer counts).
func TestModernListen(t *testing.T) {
	bin := everythingServer(t)
	tb := startBridge(t, Options{Command: func() *exec.Cmd { return exec.Command(bin, "-stdio") }, PoolSize: 1, MaxListens: 1}, httpLimits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	changed := make(chan string, 4)
	s := connect(t, tb.base, mcp.Version20260728, &client.Options{OnListChanged: func(_ context.Context, method string) { changed <- method }})
	for round := range 2 { // MaxListens 1: the second listen needs the first's place back
		sub, err := s.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
		if err != nil {
			t.Fatalf("round %d: listen: %v", round, err)
		}
		call(t, ctx, s, "test_trigger_tool_change", nil)
		select {
		case m := <-changed:
			if m != mcp.NotificationToolListChanged {
				t.Errorf("round %d: %s", round, m)
			}
		case <-ctx.Done():
			t.Fatalf("round %d: no list change reached the listen", round)
		}
		if err := sub.Close(); err != nil {
			t.Errorf("round %d: close: %v", round, err)
		}
		eventually(t, "the listen's place freed", func() bool {
			tb.pool.mu.Lock()
			defer tb.pool.mu.Unlock()
			return tb.pool.listens == 0
		})
	}
}
