package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// syncBuffer is a stderr safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A reverseRun is mcpwire bridge --url URL running in process, its stdin
// and stdout the pipes of a stdio client.
type reverseRun struct {
	stdinW  *io.PipeWriter
	stdoutR *io.PipeReader
	stderr  *syncBuffer
	code    chan int
}

// runReverseBridge runs mcpwire bridge --url url with the environment
// env (the token store's location).
func runReverseBridge(t *testing.T, url string, env map[string]string) *reverseRun {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	r := &reverseRun{stdinW: stdinW, stdoutR: stdoutR, stderr: &syncBuffer{}, code: make(chan int, 1)}
	a := app.New(stdinR, stdoutW, r.stderr)
	a.Getenv = func(k string) string { return env[k] }
	go func() {
		code := a.Execute(context.Background(), a.NewRoot(Family()), []string{"bridge", "--url", url})
		stdoutW.Close()
		stdinR.Close()
		r.code <- code
	}()
	t.Cleanup(func() {
		stdinW.Close()
		select {
		case <-r.code:
		case <-time.After(deadline):
			t.Error("mcpwire bridge --url did not end with its input")
		}
	})
	return r
}

// Connect makes the reverse run the transport of a client: the client
// writes to the bridge's stdin and reads its stdout.
func (r *reverseRun) Connect(context.Context) (transport.Conn, error) {
	return transport.NewLineConn(r.stdoutR, r.stdinW, r.stdinW, nil), nil
}

// startHTTPEverything runs the everything-server over Streamable HTTP;
// restart stops it and starts another on the same address.
func startHTTPEverything(t *testing.T) (url string, restart func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var cmd *exec.Cmd
	start := func() {
		cmd = exec.Command(everythingServer(t), "-http", addr)
		var stderr syncBuffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		eventually(t, "listening: "+stderr.String(), func() bool {
			c, err := net.Dial("tcp", addr)
			if err == nil {
				c.Close()
			}
			return err == nil
		})
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait() }
	start()
	t.Cleanup(func() { stop() })
	return "http://" + addr + "/mcp", func() { stop(); start() }
}

// TestReverseBridge offers the everything-server, over Streamable HTTP,
// as a stdio server, to mcpwire's client in both eras: progress, log
// messages, the server's questions (legacy requests, modern
// input_required rounds), and, in the modern era, a tool whose argument
// travels in an Mcp-Param-* header, which the bridge writes from the
// schema of the tools/list result it saw pass.
func TestReverseBridge(t *testing.T) {
	url, _ := startHTTPEverything(t)
	for _, version := range []mcp.Version{mcp.Version20260728, mcp.Version20251125} {
		t.Run(string(version), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			r := runReverseBridge(t, url, nil)
			var mu sync.Mutex
			var logs int
			s := connectOver(t, r, version, &client.Options{
				OnLog: func(context.Context, *mcp.LoggingMessageParams) { mu.Lock(); logs++; mu.Unlock() },
				Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
				},
			})
			if s.ProtocolVersion() != version {
				t.Fatalf("negotiated %s", s.ProtocolVersion())
			}
			if _, err := s.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			var progress []float64
			call(t, client.WithProgress(ctx, func(p mcp.ProgressParams) { progress = append(progress, p.Progress) }), s, "test_tool_with_progress", nil)
			if fmt.Sprint(progress) != "[0 50 100]" {
				t.Errorf("progress %v", progress)
			}
			lctx := ctx
			if s.IsModern() {
				lctx = client.WithLogLevel(ctx, mcp.LevelInfo)
			} else if err := s.SetLogLevel(ctx, mcp.LevelInfo); err != nil {
				t.Fatal(err)
			}
			call(t, lctx, s, "test_tool_with_logging", nil)
			mu.Lock()
			if logs != 3 {
				t.Errorf("%d log messages, want 3", logs)
			}
			mu.Unlock()
			if got := call(t, ctx, s, "test_elicitation", map[string]any{"message": "who?"}); !strings.Contains(got, "ada@example.com") {
				t.Errorf("test_elicitation: %q", got)
			}
			if got := call(t, ctx, s, "test_param_header", map[string]any{"region": "eu-west-1"}); !strings.Contains(got, "eu-west-1") {
				t.Errorf("test_param_header: %q", got)
			}
		})
	}
}

// TestReverseBridgeStoredLogin: bridge --url sends the token that
// mcpwire login stored for the server (here a bridge that requires
// OAuth); without one, the client's request fails with the mcpwire login
// command line to run, which stderr shows too.
func TestReverseBridgeStoredLogin(t *testing.T) {
	is := newIssuer(t)
	tb := protectedBridge(t, is)
	resource := tb.base + "/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()

	tokens := filepath.Join(t.TempDir(), "tokens.json")
	env := map[string]string{app.EnvTokens: tokens}
	r := runReverseBridge(t, resource, env)
	c := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{Version: mcp.Version20251125})
	_, err := c.Connect(ctx, r)
	want := "the server at " + resource + " needs authorization: run mcpwire login --url " + resource
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("without a login: %v; want %q", err, want)
	}
	if !strings.Contains(r.stderr.String(), "mcpwire: "+want) {
		t.Errorf("stderr: %q", r.stderr.String())
	}

	store := auth.NewFileTokenStore(tokens)
	tok := &auth.Token{AccessToken: is.token(t, "alice", resource, "mcp:tools"), TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}
	if err := store.SetToken(ctx, resource, is.URL, tok); err != nil {
		t.Fatal(err)
	}
	for _, version := range []mcp.Version{mcp.Version20260728, mcp.Version20251125} {
		s := connectOver(t, runReverseBridge(t, resource, env), version, nil)
		if got := call(t, ctx, s, "echo", textArgs{Text: "logged in"}); got != "logged in" {
			t.Errorf("%s: echo: %q", version, got)
		}
	}
}

// TestReverseBridgeReopensForgottenSession: a stdio client initializes
// once; when the HTTP server forgets its session (here it restarts), the
// bridge opens a new one as the client had it (its log level restored)
// and sends the failed call again, so that the client sees nothing. The
// client here is raw JSON-RPC, which does not initialize again by itself
// (mcpwire's client would).
func TestReverseBridgeReopensForgottenSession(t *testing.T) {
	url, restart := startHTTPEverything(t)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	conn, _ := runReverseBridge(t, url, nil).Connect(ctx)
	defer conn.Close()
	send := func(m string) {
		t.Helper()
		msg, err := jsonrpc.Decode([]byte(m), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	// await reads until the response to id, and returns it with the
	// number of log messages before it.
	await := func(id int64) (*jsonrpc.Response, int) {
		t.Helper()
		logs := 0
		for {
			m, err := conn.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			switch m := m.(type) {
			case *jsonrpc.Request:
				if m.Method == mcp.NotificationLoggingMessage {
					logs++
				}
			case *jsonrpc.Response:
				if m.ID == jsonrpc.Int64ID(id) {
					return m, logs
				}
				t.Fatalf("a response to %s, want %d", m.ID, id)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if resp, _ := await(1); resp.Error != nil {
		t.Fatal(resp.Error)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)
	await(2)
	restart()
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_tool_with_logging","arguments":{}}}`)
	resp, logs := await(3)
	if resp.Error != nil || !strings.Contains(string(resp.Result), "Tool with logging executed successfully") {
		t.Errorf("the call after the restart: %s %v", resp.Result, resp.Error)
	}
	if logs != 3 {
		t.Errorf("%d log messages after the restart, want 3 (the log level restored)", logs)
	}
}

// TestReverseBridgeClientIDsLikeTheBridgesOwn: the ids of the bridge's
// own requests (when it opens a forgotten session again) must never be
// confused with the client's: a client whose ids begin with the bridge's
// prefix gets its answers.
func TestReverseBridgeClientIDsLikeTheBridgesOwn(t *testing.T) {
	url, _ := startHTTPEverything(t)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	conn, _ := runReverseBridge(t, url, nil).Connect(ctx)
	defer conn.Close()
	exchange := func(m string, id jsonrpc.ID) *jsonrpc.Response {
		t.Helper()
		msg, err := jsonrpc.Decode([]byte(m), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Write(ctx, msg); err != nil {
			t.Fatal(err)
		}
		if !id.IsValid() {
			return nil
		}
		rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
		defer rcancel()
		for {
			m, err := conn.Read(rctx)
			if err != nil {
				t.Fatalf("no answer to %s: %v", id, err)
			}
			if r, ok := m.(*jsonrpc.Response); ok {
				if r.ID != id {
					t.Fatalf("an answer to %s, want %s", r.ID, id)
				}
				return r
			}
		}
	}
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "mcpwire-bridge-1", "method": mcp.MethodInitialize,
		"params": map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	if r := exchange(string(init), jsonrpc.StringID("mcpwire-bridge-1")); r.Error != nil {
		t.Fatal(r.Error)
	}
	exchange(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, jsonrpc.ID{})
	if r := exchange(`{"jsonrpc":"2.0","id":"mcpwire-bridge-2","method":"tools/list"}`, jsonrpc.StringID("mcpwire-bridge-2")); r.Error != nil {
		t.Fatal(r.Error)
	}
}
