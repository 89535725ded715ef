package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/command"
)

// TestParseFlags checks the command line.
func TestParseFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want config
		err  string
	}{
		{[]string{"-stdio"}, config{stdio: true}, ""},
		{[]string{"-stdio", "-v"}, config{stdio: true, verbose: true}, ""},
		{[]string{"-http", "localhost:3000"}, config{http: "localhost:3000"}, ""},
		{nil, config{}, "choose a transport"},
		{[]string{"-stdio", "-http", "localhost:3000"}, config{}, "exclusive"},
		{[]string{"-stdio", "extra"}, config{}, `unexpected argument "extra"`},
		{[]string{"-bogus"}, config{}, "flag provided but not defined: -bogus"},
		{[]string{"-http"}, config{}, "flag needs an argument"},
		{[]string{"-http", " localhost:1"}, config{}, "surrounding spaces"},
	} {
		got, err := parseFlags(c.args)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("%q: %+v %v, want %+v", c.args, got, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: error %v, want one containing %q", c.args, err, c.err)
		}
	}
	if _, err := parseFlags([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// TestRunExitCodes checks run's exit codes and its one line on stderr.
func TestRunExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		line string
	}{
		{[]string{"-bogus"}, exitUsage, "everything-server: flag provided but not defined: -bogus (see -h)"},
		{nil, exitUsage, "everything-server: choose a transport: -stdio or -http ADDR (see -h)"},
		{[]string{"-http", "localhost:99999"}, exitError, "everything-server: listen tcp: address 99999: invalid port"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), c.args, strings.NewReader(""), &stdout, &stderr)
		if code != c.code || stderr.String() != c.line+"\n" || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit %d and %q", c.args, code, stderr.String(), stdout.String(), c.code, c.line)
		}
	}
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"-h"}, strings.NewReader(""), io.Discard, &stderr); code != exitOK || !strings.HasPrefix(stderr.String(), "usage: ") {
		t.Errorf("-h: exit %d, %q", code, stderr.String())
	}
}

// pipeTransport is a client transport over two pipes to an in-process
// run.
type pipeTransport struct{ conn transport.Conn }

func (p pipeTransport) Connect(context.Context) (transport.Conn, error) { return p.conn, nil }

// TestRunStdioInProcess runs the program's main path in process, with
// pipes for stdin and stdout, and talks to it with the client: closing
// stdin ends it with exit code 0.
func TestRunStdioInProcess(t *testing.T) {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(t.Context(), []string{"-stdio"}, stdinR, stdoutW, &stderr)
		stdoutW.Close()
	}()
	conn := transport.NewLineConn(stdoutR, stdinW, stdinW, nil)
	cs, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(testCtx(t), pipeTransport{conn})
	if err != nil {
		t.Fatal(err)
	}
	if text := onlyText(t, callTool(t, testCtx(t), cs, "test_simple_text", "")); text != "This is a simple text response for testing." {
		t.Errorf("text %q", text)
	}
	cs.Close() // closes stdin
	select {
	case code := <-done:
		if code != exitOK || stderr.Len() != 0 {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after stdin closed")
	}
	stdoutR.Close()
}

// TestBinary builds the program and runs it as the suite's tooling and
// MCP hosts do: as a subprocess speaking over stdio.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binary")
	}
	bin := filepath.Join(t.TempDir(), "everything-server")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	forEachEra(t, func(t *testing.T, e era) {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, "-stdio")
		cmd.Stderr = &syncWriter{w: &stderr}
		tr := command.New(cmd, &command.Options{Methods: mcp.KnownMethods()})
		h := &handlers{}
		opts := h.options()
		opts.Version = e.version
		ctx := testCtx(t)
		cs, err := client.New(mcp.Implementation{Name: "conformance-test-client", Version: "1.0.0"}, opts).Connect(ctx, tr)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if e.version == "" && !cs.IsModern() || e.version != "" && cs.ProtocolVersion() != e.version {
			t.Errorf("era: %s", cs.ProtocolVersion())
		}
		if got := toolNames(listTools(t, ctx, cs)); !slices.Equal(got, expectedTools) {
			t.Errorf("tools %v", got)
		}
		var progress []float64
		var mu sync.Mutex
		pctx := client.WithProgress(ctx, func(p mcp.ProgressParams) { mu.Lock(); progress = append(progress, p.Progress); mu.Unlock() })
		onlyText(t, callTool(t, pctx, cs, "test_tool_with_progress", "{}"))
		mu.Lock()
		if !slices.Equal(progress, []float64{0, 50, 100}) {
			t.Errorf("progress %v", progress)
		}
		mu.Unlock()
		if got := onlyText(t, callTool(t, ctx, cs, "test_input_required_result_multi_round", "{}")); got != "Hello, Alice! Your favorite color: blue." {
			t.Errorf("multi_round: %q", got)
		}
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if stderr.Len() != 0 {
			t.Errorf("stderr: %q", stderr.String())
		}
	})

	t.Run("stdout-carries-only-messages", func(t *testing.T) {
		// -v sends debug diagnostics to stderr; stdout must still carry
		// nothing but messages, including the answer to a line that is
		// not JSON.
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-stdio", "-v")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		var out []string
		// exchange writes a frame and, when want is set, reads stdout up
		// to the line that contains it.
		exchange := func(frame, want string) {
			t.Helper()
			if _, err := io.WriteString(stdin, frame+"\n"); err != nil {
				t.Fatal(err)
			}
			for want != "" {
				select {
				case line, ok := <-lines:
					if !ok {
						t.Fatalf("stdout ended before %s", want)
					}
					out = append(out, line)
					if strings.Contains(line, want) {
						return
					}
				case <-ctx.Done():
					t.Fatalf("no %s on stdout", want)
				}
			}
		}
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
		exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, `"id":1`)
		exchange(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, "")
		exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_tool_with_logging","arguments":{}}}`, `"id":2`)
		exchange(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":"p"}}}`, `"id":3`)
		exchange(`this line is not JSON`, `"code":-32700`)
		exchange(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_input_required_result_elicitation",`+meta+`}}`, `"id":4`)
		exchange(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"no_such_tool"}}`, `"id":5`)
		stdin.Close() // the client's shutdown: the server exits
		for line := range lines {
			out = append(out, line)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exit: %v\nstderr: %s", err, stderr.String())
		}
		ids := map[string]bool{}
		notes := map[string]int{}
		for _, line := range out {
			m, err := jsonrpc.Decode([]byte(line), nil)
			if err != nil {
				t.Errorf("stdout line is not a JSON-RPC message: %q (%v)", line, err)
				continue
			}
			switch m := m.(type) {
			case *jsonrpc.Response:
				ids[m.ID.String()] = true
			case *jsonrpc.Request:
				notes[m.Method]++
			}
		}
		for _, id := range []string{"1", "2", "3", "4", "5"} {
			if !ids[id] {
				t.Errorf("no response to %s on stdout", id)
			}
		}
		if notes["notifications/message"] != 3 || notes["notifications/progress"] != 3 || len(notes) != 2 {
			t.Errorf("notifications %v", notes)
		}
		var parseError struct {
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(lastLineWith(strings.Join(out, "\n"), `"code":-32700`)), &parseError); err != nil || parseError.Error.Code != -32700 {
			t.Errorf("no parse error answer to the invalid line: %v", err)
		}
	})

	t.Run("bad-flags", func(t *testing.T) {
		for _, args := range [][]string{{"-bogus"}, {}, {"-http", "localhost:99999"}, {"-stdio", "-http", "x"}} {
			cmd := exec.Command(bin, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() == 0 {
				t.Errorf("%q: %v, want a non-zero exit", args, err)
			}
			if s := stderr.String(); strings.Count(s, "\n") != 1 || !strings.HasPrefix(s, "everything-server: ") || stdout.Len() != 0 {
				t.Errorf("%q: stderr %q, stdout %q; want one line on stderr", args, s, stdout.String())
			}
		}
	})
}

// lastLineWith returns the last line of s that contains sub.
func lastLineWith(s, sub string) string {
	var found string
	for line := range strings.Lines(s) {
		if strings.Contains(line, sub) {
			found = line
		}
	}
	return found
}

// syncWriter serializes writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
