package bridge

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

// The three lines a stdio client writes first: initialize, initialized,
// and a call.
const (
	pipeInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"printf","version":"1"}}}` + "\n"
	pipeInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	pipeToolsList   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
)

// runReverseOn runs mcpwire bridge --url url on stdin until it returns,
// and returns its exit code, stdout and stderr.
func runReverseOn(url string, stdin io.Reader, stdout io.Writer) (int, string) {
	var stderr syncBuffer
	a := app.New(stdin, stdout, &stderr)
	a.Getenv = func(string) string { return "" }
	code := a.Execute(context.Background(), a.NewRoot(Family()), []string{"bridge", "--url", url})
	return code, stderr.String()
}

// answers returns the responses among the lines of out, by id.
func answers(t *testing.T, out string) map[string]*jsonrpc.Response {
	t.Helper()
	got := map[string]*jsonrpc.Response{}
	for line := range strings.Lines(out) {
		m, err := jsonrpc.Decode([]byte(line), nil)
		if err != nil {
			t.Errorf("stdout line %q: %v", line, err)
			continue
		}
		if r, ok := m.(*jsonrpc.Response); ok {
			got[r.ID.String()] = r
		}
	}
	return got
}

// checkPipeAnswers checks the answers to pipeInitialize and pipeToolsList.
func checkPipeAnswers(t *testing.T, code int, out, stderr string) {
	t.Helper()
	if code != 0 || stderr != "" {
		t.Errorf("exit code %d, stderr %q", code, stderr)
	}
	got := answers(t, out)
	if r := got["1"]; r == nil || r.Error != nil || !strings.Contains(string(r.Result), `"protocolVersion":"2025-11-25"`) {
		t.Errorf("the answer to initialize: %+v (stdout %q)", r, out)
	}
	if r := got["2"]; r == nil || r.Error != nil || !strings.Contains(string(r.Result), `"test_simple_text"`) {
		t.Errorf("the answer to tools/list: %+v (stdout %q)", r, out)
	}
}

// TestReverseBridgePipelinedInput: a stdio client may write its first
// lines without waiting (printf '...' | mcpwire bridge --url URL): the
// bridge sends them in order, initialize first, and what follows once
// its answer has established the session; and input that ends at once
// still gets every answer before the bridge exits. When stdin holds all
// three lines and ends at once; when the client writes them one by one
// without waiting and keeps its input open until it has its answers; and
// when it waits for the answer to initialize, then writes the rest and
// ends its input at once.
func TestReverseBridgePipelinedInput(t *testing.T) {
	url, _ := startHTTPEverything(t)
	t.Run("at once", func(t *testing.T) {
		var stdout syncBuffer
		code, stderr := runReverseOn(url, strings.NewReader(pipeInitialize+pipeInitialized+pipeToolsList), &stdout)
		checkPipeAnswers(t, code, stdout.String(), stderr)
	})
	t.Run("line by line, input open", func(t *testing.T) {
		p := startPiped(t, url)
		for _, line := range []string{pipeInitialize, pipeInitialized, pipeToolsList} {
			p.write(line)
		}
		p.readAnswers(2)
		p.stdin.Close()
		p.check()
	})
	t.Run("after the answer to initialize, then input ends", func(t *testing.T) {
		p := startPiped(t, url)
		p.write(pipeInitialize)
		p.readAnswers(1)
		p.write(pipeInitialized + pipeToolsList)
		p.stdin.Close()
		p.check()
	})
}

// A piped is mcpwire bridge --url running with pipes for stdin and
// stdout, which the test writes and reads line by line.
type piped struct {
	t       *testing.T
	stdin   *io.PipeWriter
	lines   chan string // stdout
	out     strings.Builder
	done    chan pipedResult
	timeout <-chan time.Time
}

type pipedResult struct {
	code   int
	stderr string
}

func startPiped(t *testing.T, url string) *piped {
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	p := &piped{t: t, stdin: stdinW, lines: make(chan string), done: make(chan pipedResult, 1), timeout: time.After(deadline)}
	go func() {
		code, stderr := runReverseOn(url, stdinR, stdoutW)
		stdoutW.Close()
		stdinR.Close()
		p.done <- pipedResult{code, stderr}
	}()
	go func() {
		defer close(p.lines)
		r := bufio.NewReader(stdoutR)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				p.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		stdinW.Close()
		for range p.lines {
		}
	})
	return p
}

func (p *piped) write(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatal(err)
	}
}

// readAnswers reads n lines of stdout.
func (p *piped) readAnswers(n int) {
	p.t.Helper()
	for range n {
		select {
		case line, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("stdout ended after %q", p.out.String())
			}
			p.out.WriteString(line)
		case <-p.timeout:
			p.t.Fatalf("no answer after %q", p.out.String())
		}
	}
}

// check reads stdout to its end, waits for the bridge to end, and checks
// the answers.
func (p *piped) check() {
	p.t.Helper()
	for line := range p.lines {
		p.out.WriteString(line)
	}
	select {
	case r := <-p.done:
		checkPipeAnswers(p.t, r.code, p.out.String(), r.stderr)
	case <-p.timeout:
		p.t.Fatal("mcpwire bridge --url did not end with its input")
	}
}
