package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/filesystem"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestMain checks that the tests of this package leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// deadline bounds every wait of these tests: only a failure reaches it.
const deadline = 30 * time.Second

// syncBuffer is a stderr that the test reads while the command writes.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{written: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.written <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// await waits for stderr to match re.
func (s *syncBuffer) await(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	timeout := time.After(deadline)
	for {
		if m := re.FindStringSubmatch(s.String()); m != nil {
			return m
		}
		select {
		case <-s.written:
		case <-timeout:
			t.Fatalf("stderr never matched %s: %q", re, s.String())
		}
	}
}

// run is one mcpwire command line running in the background.
type run struct {
	stderr *syncBuffer
	cancel context.CancelFunc
	code   chan int
}

// start runs mcpwire ARGS with the serve verb, stdin and stdout given.
func start(t *testing.T, stdin io.Reader, stdout io.Writer, args ...string) *run {
	t.Helper()
	r := &run{stderr: newSyncBuffer(), code: make(chan int, 1)}
	a := app.New(stdin, stdout, r.stderr)
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.code <- a.Execute(ctx, a.NewRoot(Family()), args) }()
	t.Cleanup(func() {
		cancel()
		r.wait(t)
	})
	return r
}

func (r *run) wait(t *testing.T) int {
	t.Helper()
	select {
	case c := <-r.code:
		r.code <- c
		return c
	case <-time.After(deadline):
		t.Fatalf("mcpwire did not stop; stderr: %s", r.stderr.String())
		return -1
	}
}

// pipeTransport is the client's side of a server reading in and writing
// out.
type pipeTransport struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p *pipeTransport) Connect(ctx context.Context) (transport.Conn, error) {
	return transport.NewLineConn(p.r, p.w, closers{p.r, p.w}, nil), nil
}

type closers []io.Closer

func (c closers) Close() error {
	for _, x := range c {
		x.Close()
	}
	return nil
}

func fixture(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func connect(t *testing.T, tr transport.Transport, version mcp.Version, opts *client.Options) *client.Session {
	t.Helper()
	var o client.Options
	if opts != nil {
		o = *opts
	}
	o.Version = version
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	cs, err := client.New(mcp.Implementation{Name: "serve-test", Version: "1"}, &o).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func callText(t *testing.T, cs *client.Session, tool, args string) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// TestServeStdio serves the filesystem over stdin and stdout, in both
// eras, and ends when the input ends.
func TestServeStdio(t *testing.T) {
	dir := fixture(t)
	for _, version := range []mcp.Version{"2026-07-28", "2025-11-25"} {
		t.Run(string(version), func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			r := start(t, inR, outW, "serve", "filesystem", dir)
			cs := connect(t, &pipeTransport{r: outR, w: inW}, version, nil)
			if !strings.Contains(cs.Instructions(), "list_allowed_directories") {
				t.Errorf("instructions: %q", cs.Instructions())
			}
			if cs.ServerInfo().Name != "mcpwire-filesystem" {
				t.Errorf("server info: %+v", cs.ServerInfo())
			}
			n := 0
			for _, err := range cs.Tools(t.Context()) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if want := len(filesystem.ToolNames()); n != want {
				t.Errorf("%d tools, want %d", n, want)
			}
			if text, _ := callText(t, cs, "read_text_file", `{"path":"hello.txt","tail":1}`); text != "world" {
				t.Errorf("tail 1 = %q", text) // 2.3.0: a final newline ends the last line
			}
			if text, isErr := callText(t, cs, "read_text_file", `{"path":"/etc/passwd"}`); !isErr || !strings.HasPrefix(text, "Access denied") {
				t.Errorf("outside: %q", text)
			}
			cs.Close() // closes the server's stdin: it reads the end of its input
			if code := r.wait(t); code != app.ExitOK {
				t.Errorf("exit %d; stderr: %s", code, r.stderr.String())
			}
			inR.Close()
			outR.Close()
		})
	}
}

var serving = regexp.MustCompile(`mcpwire: serving filesystem on (http://\S+/mcp)\n`)

// TestServeHTTP serves the filesystem over Streamable HTTP: modern
// requests, and legacy sessions whose roots the server asks on the
// call's own stream; an interrupt stops it.
func TestServeHTTP(t *testing.T) {
	dir := fixture(t)
	other := fixture(t)
	r := start(t, strings.NewReader(""), io.Discard, "serve", "filesystem", "--http", "127.0.0.1:0", dir)
	url := r.stderr.await(t, serving)[1]

	modern := connect(t, streamable.NewTransport(url, nil), "2026-07-28", nil)
	if text, _ := callText(t, modern, "list_allowed_directories", `{}`); text != "Allowed directories:\n"+dir {
		t.Errorf("modern: %q", text)
	}
	modern.Close()

	roots := &client.Options{Roots: func(ctx context.Context) (*mcp.ListRootsResult, error) {
		return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file://" + other}}}, nil
	}}
	legacy := connect(t, streamable.NewTransport(url, nil), "2025-11-25", roots)
	if text, _ := callText(t, legacy, "list_allowed_directories", `{}`); text != "Allowed directories:\n"+other {
		t.Errorf("legacy with roots: %q", text)
	}
	if text, _ := callText(t, legacy, "read_text_file", `{"path":"hello.txt","head":1}`); text != "hello" {
		t.Errorf("head 1 = %q", text)
	}
	legacy.Close()

	r.cancel()
	if code := r.wait(t); code != app.ExitOK {
		t.Errorf("exit %d after the interrupt; stderr: %s", code, r.stderr.String())
	}
}

func TestServeUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "nothing"}, `unknown server "nothing"; known: filesystem, git, skills, sqlite`},
		{[]string{"serve", "filesystem", "--url", "http://x/mcp", dir}, "takes no --url"},
		{[]string{"serve", "filesystem", "--timeout", "1s", dir}, "takes no --timeout"},
		{[]string{"serve", "filesystem", "--json", dir}, "takes no --json"},
		{[]string{"serve", "filesystem", "--roots", "sometimes", dir}, `--roots "sometimes": want replace, within or ignore`},
		{[]string{"serve", "filesystem", filepath.Join(dir, "missing")}, "missing: no such file or directory"},
		{[]string{"serve", "filesystem", "--http", "256.0.0.1:x", dir}, "--http 256.0.0.1:x"},
	} {
		r := start(t, strings.NewReader(""), io.Discard, c.args...)
		if code := r.wait(t); code != app.ExitUsage || !strings.Contains(r.stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, r.stderr.String(), c.want)
		}
	}
}
