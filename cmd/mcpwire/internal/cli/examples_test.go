//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// Bounds of the examples' runs.
const (
	// exampleTimeout bounds one example.
	exampleTimeout = 30 * time.Second
	// buildTimeout bounds the build of the examples' servers (minutes on
	// an empty build cache).
	buildTimeout = 5 * time.Minute
	// maxExampleOutput is how much of an example's output is kept.
	maxExampleOutput = 1 << 20
)

// The words classify writes for what the harness provides when it runs
// an example: the directory of the example servers it built, and the URL
// of its examples/http.
const (
	binWord  = "@@BIN@@"
	httpWord = "@@HTTP@@"
)

// The files of the directory the examples run in (see newHarness): what
// they read as "notes.txt", "README.md"; "." is also a git repository
// with one commit.
var fixtureFiles = map[string]string{
	"README.md": "# notes\n\nA directory for the examples of mcpwire's documentation.\n",
	"notes.txt": "buy milk\n",
	// A folder of Agent Skills, for "mcpwire serve skills ./skills".
	"skills/pdf-processing/SKILL.md":           "---\nname: pdf-processing\ndescription: Extract text and tables from PDF files.\n---\n\nRun scripts/extract.py on the file.\n",
	"skills/pdf-processing/scripts/extract.py": "print('text')\n",
}

// classify decides whether the example e runs here, and how: e.run is
// the line to run with sh, or e.skip says why it is not run. An example
// runs when it is cheap and safe: its servers are the project's
// (examples/hello, built once; examples/http, which the harness starts on
// a free port of 127.0.0.1 in place of localhost:3000; mcpwire serve in
// the directory of fixtureFiles), it ends by itself, and it needs nothing
// of the reader's (a host's configuration, an OAuth login, a remote
// server, a file of theirs, the network). mcpwire bench makes one call
// (oneCall). Besides mcpwire, a line may
// run echo or printf into a pipe, or be examples/client's own example.
func classify(e *example) {
	e.run, e.skip = "", ""
	switch {
	case e.transcript:
		e.skip = "a transcript of a session (a plain ``` block, with its output): checked, not run"
		return
	case e.background && len(e.cmds) == 1 && isGoRun(e.cmds[0], "./examples/http"):
		e.skip = "starts examples/http: the harness runs its own, on a free port of 127.0.0.1, for the lines that name localhost:3000"
		return
	case e.background:
		e.skip = "starts a server in the background (" + strings.Join(e.cmds[0], " ") + ")"
		return
	case len(e.calls) == 0 && !(len(e.cmds) == 1 && isClientExample(e.cmds[0])):
		e.skip = "not an mcpwire command"
		return
	}
	var line []string
	for i, c := range e.cmds {
		if n := envAssignments(c); n > 0 {
			e.skip = "sets " + strings.SplitN(c[0], "=", 2)[0] + " (a collector or a setting of the reader's)"
			return
		}
		args, ok := mcpwireArgs(c)
		switch {
		case ok:
			rw, why := rewriteCall(args, true)
			if why != "" {
				e.skip = why
				return
			}
			c = append([]string{"mcpwire"}, rw...)
		case isClientExample(c):
			c = []string{binWord + "/client", "--", binWord + "/hello"}
		case c[0] != "echo" && c[0] != "printf":
			e.skip = "runs " + c[0] + ", which the harness does not"
			return
		}
		for _, w := range c {
			line = append(line, quoteWord(w))
		}
		if i < len(e.ops) {
			line = append(line, e.ops[i])
		}
	}
	e.run = strings.Join(line, " ")
}

// quoteWord quotes w for sh, but for the words of the harness.
func quoteWord(w string) string {
	if strings.HasPrefix(w, binWord) || w == httpWord {
		return w
	}
	return app.ShellQuote(w)
}

// isClientExample reports whether c is the example of examples/client:
// "go run ./examples/client -- go run ./examples/hello".
func isClientExample(c []string) bool {
	return len(c) == 7 && isGoRun(c[:3], "./examples/client") && c[3] == "--" && isGoRun(c[4:], "./examples/hello")
}

// isGoRun reports whether c is "go run PKG".
func isGoRun(c []string, pkg string) bool {
	return len(c) == 3 && c[0] == "go" && c[1] == "run" && c[2] == pkg
}

// rewriteCall returns the arguments of an mcpwire command of an example
// as the harness runs them, or why it does not. outer is false for an
// mcpwire that is the server of another ("-- mcpwire serve ...").
func rewriteCall(args []string, outer bool) ([]string, string) {
	p, err := parseCall(args)
	if err != nil {
		return nil, "does not parse (TestDocExamples says why): " + err.Error()
	}
	for _, a := range args {
		if strings.HasPrefix(a, "~") {
			return nil, "names a file of the reader's (" + a + ")"
		}
	}
	verb := strings.Fields(p.verb + " ")[0]
	switch {
	case verb == "inspect" || verb == "bridge" || verb == "serve" && outer:
		return nil, "mcpwire " + verb + " serves until stopped"
	case verb == "tap" && len(p.values("listen")) > 0:
		return nil, "mcpwire tap --listen serves until stopped"
	case verb == "login" && len(p.values("status")) == 0:
		return nil, "mcpwire login opens a browser for an OAuth login"
	case verb == "replay":
		return nil, "replays a recording of the reader's (" + strings.Join(p.positional, " ") + ")"
	case verb == "diff":
		return nil, "compares recordings of the reader's (" + strings.Join(p.positional, " ") + ")"
	case verb == "verify":
		return nil, "runs a file of checks the reader saved (" + strings.Join(p.positional, " ") + ")"
	case verb == "bench" && len(p.values("compare")) > 0:
		return nil, "mcpwire bench --compare: a second server of the reader's"
	}
	if names := p.aliases(); len(names) > 0 {
		return nil, "a server of the reader's hosts' configuration (@" + names[0] + ")"
	}
	if c := p.values("config"); len(c) > 0 {
		return nil, "reads a configuration file of the reader's (" + c[0] + ")"
	}
	for _, name := range []string{"args", "call", "client-secret"} {
		for _, v := range p.values(name) {
			if name == "call" {
				_, v, _ = strings.Cut(v, "=")
			}
			if f, ok := strings.CutPrefix(v, "@"); ok {
				if _, ok := fixtureFiles[f]; !ok {
					return nil, "reads a file of the reader's (" + f + ")"
				}
			}
		}
	}
	out := slices.Clone(args)
	if len(p.server) > 0 {
		out = out[:len(out)-len(p.server)]
	}
	for i, a := range out {
		v, inline := strings.CutPrefix(a, "--url=")
		if !inline && (i == 0 || out[i-1] != "--url") {
			continue
		}
		u, err := url.Parse(v)
		switch {
		case err != nil:
			return nil, err.Error()
		case u.Port() == "3000" && (u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1") && u.Path == "/mcp":
			out[i] = httpWord
			if inline {
				out[i] = "--url=" + httpWord
			}
		case u.Port() == "3001":
			return nil, "examples/oauth needs an OAuth login in a browser"
		default:
			return nil, "a server of the reader's (" + v + ")"
		}
	}
	if verb == "bench" {
		out = oneCall(out)
	}
	server := p.server
	switch {
	case len(server) == 0:
	case isGoRun(server, "./examples/hello"):
		server = []string{binWord + "/hello"}
	case server[0] == "mcpwire":
		rw, why := rewriteCall(server[1:], false)
		if why != "" {
			return nil, why
		}
		server = append([]string{"mcpwire"}, rw...)
	case server[0] == "npx" || server[0] == "uvx":
		return nil, "the server is downloaded with " + server[0] + " (the network)"
	default:
		return nil, "a server of the reader's own (" + strings.Join(server, " ") + ")"
	}
	return append(out, server...), ""
}

// oneCall returns the arguments of an mcpwire bench, args, with -n 1 in
// place of the flags that bound its load (-d, -n, --rate): one call,
// which still needs the tool, its arguments (templates and all) and the
// sessions to be right, in a fraction of a second.
func oneCall(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(append(out, "-n", "1"), args[i:]...)
		case a == "-d" || a == "--duration" || a == "-n" || a == "--requests" || a == "--rate":
			i++
		case strings.HasPrefix(a, "--duration=") || strings.HasPrefix(a, "--requests=") || strings.HasPrefix(a, "--rate="):
		case len(a) > 2 && (strings.HasPrefix(a, "-d") || strings.HasPrefix(a, "-n")) && a[1] != '-':
		default:
			out = append(out, a)
		}
	}
	return append(out, "-n", "1")
}

// TestExamplesRun runs the documentation's examples that can run here
// (classify) as a reader types them, from a directory of fixtureFiles,
// and fails when one does not exit with the status it expects (0, or N
// of a final "# exit N"). Each example is a subtest, named after where
// it is and its line; those that are not run are skipped with the reason.
//
// mcpwire is this test binary (TestMain puts it in $PATH as mcpwire).
// examples/hello, examples/http and examples/client are built once;
// every process runs in a process group of its own, killed at the end of
// its example. Identical lines run once.
func TestExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the examples build and run servers")
	}
	root := repoRoot(t)
	examples, err := docExamples(root)
	if err != nil {
		t.Fatal(err)
	}
	runs, same, usesHTTP := 0, 0, false
	first := map[string]*example{} // by the line run and its status
	for _, e := range examples {
		classify(e)
		if e.run == "" {
			continue
		}
		key := fmt.Sprintf("%s\x00%d", e.run, e.exit)
		if f := first[key]; f != nil {
			e.run, e.skip = "", "runs as "+f.where+" does, which is run"
			same++
			continue
		}
		first[key] = e
		runs++
		usesHTTP = usesHTTP || strings.Contains(e.run, httpWord)
	}
	h := newHarness(t, root)
	if usesHTTP {
		h.startHTTP(t)
	}

	// A wrong example fails: the help of call named a tool that
	// examples/hello does not have.
	wrong, err := newExample("a wrong example", `mcpwire call echo --args '{"text": "hi"}' -- go run ./examples/hello`)
	if err != nil {
		t.Fatal(err)
	}
	if classify(wrong); wrong.run == "" {
		t.Fatalf("%s: not run: %s", wrong.line, wrong.skip)
	}
	if err := h.run(wrong); err == nil || !strings.Contains(err.Error(), `no tool "echo"`) {
		t.Errorf("%s: %v; want it to fail for its unknown tool", wrong.line, err)
	}

	// Two at a time: most of an example's time is the start of processes.
	t.Run("examples", func(t *testing.T) {
		for _, e := range examples {
			t.Run(e.where+": "+e.line, func(t *testing.T) {
				if e.run == "" {
					t.Skip(e.skip)
				}
				t.Parallel()
				if err := h.run(e); err != nil {
					t.Error(err)
				}
			})
		}
	})
	skipped := map[string]int{}
	for _, e := range examples {
		if e.run == "" && !strings.HasPrefix(e.skip, "runs as ") {
			skipped[e.skip]++
		}
	}
	t.Logf("%d examples: %d run, %d the same as one run, %d not run", len(examples), runs, same, len(examples)-runs-same)
	for _, why := range slices.Sorted(maps.Keys(skipped)) {
		t.Logf("not run (%d): %s", skipped[why], why)
	}
}

// A harness runs the examples.
type harness struct {
	dir     string // the directory the examples run in
	bin     string // the examples' servers, built
	env     []string
	httpURL string // examples/http's endpoint, once started
}

// newHarness builds the example servers and makes the directory of
// fixtureFiles that the examples run in.
func newHarness(t *testing.T, root string) *harness {
	h := &harness{dir: t.TempDir(), bin: t.TempDir()}
	// TestMain put copies of this test binary in a directory of $PATH,
	// as mcpwire and as the test servers.
	self, err := exec.LookPath("mcpwire")
	if ts, _ := exec.LookPath("testserver"); err != nil || filepath.Dir(self) != filepath.Dir(ts) {
		t.Fatalf("mcpwire in $PATH is not this test binary (%s, %v)", self, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	start := time.Now()
	build := exec.CommandContext(ctx, "go", "build", "-o", h.bin+"/", "./examples/hello", "./examples/http", "./examples/client")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the example servers: %v\n%s", err, out)
	}
	t.Logf("built examples/hello, examples/http and examples/client in %v", time.Since(start).Round(time.Millisecond))
	for name, content := range fixtureFiles {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(h.dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(h.dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	h.env = append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		app.EnvTokens+"="+filepath.Join(home, "tokens.json"),
		"NO_COLOR=1",
		"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=mcpwire", "GIT_AUTHOR_EMAIL=mcpwire@example.com",
		"GIT_COMMITTER_NAME=mcpwire", "GIT_COMMITTER_EMAIL=mcpwire@example.com",
	)
	if _, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "notes"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = h.dir, h.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
	return h
}

// servingLine is what examples/http prints when it serves.
var servingLine = regexp.MustCompile(`serving MCP at (http://\S+/mcp)`)

// startHTTP starts examples/http on a free port of 127.0.0.1 until the
// end of t, and waits until it serves.
func (h *harness) startHTTP(t *testing.T) {
	cmd := exec.Command(filepath.Join(h.bin, "http"), "-addr", "127.0.0.1:0")
	cmd.Dir, cmd.Env = h.dir, h.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		close(found)
		io.Copy(io.Discard, stderr)
	}()
	select {
	case u, ok := <-found:
		if !ok {
			t.Fatal("examples/http ended before it served")
		}
		h.httpURL = u
	case <-time.After(exampleTimeout):
		t.Fatalf("examples/http did not serve within %v", exampleTimeout)
	}
}

// run runs the example e with sh, as classify rewrote it, and returns an
// error if it does not end within exampleTimeout with the status it
// expects.
func (h *harness) run(e *example) error {
	line := strings.NewReplacer(binWord, h.bin, httpWord, h.httpURL).Replace(e.run)
	if strings.Contains(e.run, httpWord) && h.httpURL == "" {
		return errors.New("examples/http is not running")
	}
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = h.dir, h.env
	cmd.Stdin = strings.NewReader("")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr cappedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := runGroup(ctx, cmd)
	code := 0
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %s\ndid not end within %v\nstderr: %s", e.where, line, exampleTimeout, stderr.String())
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return fmt.Errorf("%s: %s: %v", e.where, line, err)
	}
	if code != e.exit {
		return fmt.Errorf("%s: %s\nexited with status %d, want %d\nstderr: %s\nstdout: %s", e.where, line, code, e.exit, stderr.String(), clip(stdout.String(), 2000))
	}
	return nil
}

// runGroup runs cmd until it ends or ctx does, then kills what is left of
// its process group.
func runGroup(ctx context.Context, cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left behind
	return err
}

// cappedBuffer keeps the first maxExampleOutput bytes written to it; it
// is safe for concurrent use.
type cappedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxExampleOutput - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

// clip cuts s to n bytes.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// TestClassify checks which examples run, how, and why the others do not.
func TestClassify(t *testing.T) {
	for line, want := range map[string]string{
		`mcpwire tools -- go run ./examples/hello`:                                                                                 "run: mcpwire tools -- @@BIN@@/hello",
		`go run ./cmd/mcpwire call greet --args '{"name":"Ada"}' -- go run ./examples/hello`:                                       `run: mcpwire call greet --args '{"name":"Ada"}' -- @@BIN@@/hello`,
		`mcpwire tools --url http://localhost:3000/mcp --header 'X-Api-Key=secret'`:                                                "run: mcpwire tools --url @@HTTP@@ --header X-Api-Key=secret",
		`mcpwire check --url=http://127.0.0.1:3000/mcp --junit check.xml`:                                                          "run: mcpwire check --url=@@HTTP@@ --junit check.xml",
		`mcpwire call read_text_file --args '{"path": "notes.txt"}' -- mcpwire serve filesystem .`:                                 `run: mcpwire call read_text_file --args '{"path": "notes.txt"}' -- mcpwire serve filesystem .`,
		`echo '{"n": 3}' | mcpwire call greet --args - -- go run ./examples/hello`:                                                 `run: echo '{"n": 3}' | mcpwire call greet --args - -- @@BIN@@/hello`,
		`go run ./examples/client -- go run ./examples/hello`:                                                                      "run: @@BIN@@/client -- @@BIN@@/hello",
		`go run ./examples/client -tool x -- go run ./examples/hello`:                                                              "skip: not an mcpwire command",
		`mcpwire bench --tool forecast --args '{"city": "{{seq}}"}' --rate 500 --sessions 4 -d 5s --url http://localhost:3000/mcp`: `run: mcpwire bench --tool forecast --args '{"city": "{{seq}}"}' --sessions 4 --url @@HTTP@@ -n 1`,
		`mcpwire bench --tool greet -n10000 -c 8 --duration=1m -- go run ./examples/hello`:                                         "run: mcpwire bench --tool greet -c 8 -n 1 -- @@BIN@@/hello",
		`mcpwire bench --tool echo -n 10 --compare 'node old.js' -- go run ./examples/hello`:                                       "skip: mcpwire bench --compare: a second server of the reader's",
		`mcpwire login --status`:                                                                     "run: mcpwire login --status",
		`mcpwire call search --args @query.json -- ./server`:                                         "skip: reads a file of the reader's (query.json)",
		`mcpwire call echo -- ./my-server --flag`:                                                    "skip: a server of the reader's own (./my-server --flag)",
		`mcpwire check -- npx -y @modelcontextprotocol/server-everything`:                            "skip: the server is downloaded with npx (the network)",
		`mcpwire tools --url https://mcp.example.com/mcp`:                                            "skip: a server of the reader's (https://mcp.example.com/mcp)",
		`mcpwire call whoami --url http://localhost:3001/mcp`:                                        "skip: examples/oauth needs an OAuth login in a browser",
		`mcpwire tools @github`:                                                                      "skip: a server of the reader's hosts' configuration (@github)",
		`mcpwire check --server everything`:                                                          "skip: a server of the reader's hosts' configuration (@everything)",
		`mcpwire inspect --url http://localhost:3000/mcp`:                                            "skip: mcpwire inspect serves until stopped",
		`mcpwire serve filesystem --http 127.0.0.1:8080 .`:                                           "skip: mcpwire serve serves until stopped",
		`mcpwire servers --config ~/.cursor/mcp.json`:                                                "skip: names a file of the reader's (~/.cursor/mcp.json)",
		`mcpwire call greet -- go run ./examples/hello | jq .`:                                       "skip: runs jq, which the harness does not",
		`jq -c . session.jsonl`:                                                                      "skip: not an mcpwire command",
		`go run ./examples/http &`:                                                                   "skip: starts examples/http: the harness runs its own, on a free port of 127.0.0.1, for the lines that name localhost:3000",
		`OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 mcpwire tools -- go run ./examples/hello`: "skip: sets OTEL_EXPORTER_OTLP_ENDPOINT (a collector or a setting of the reader's)",
		`mcpwire login --url https://mcp.example.com/mcp`:                                            "skip: mcpwire login opens a browser for an OAuth login",
		`mcpwire replay session.jsonl -- go run ./examples/hello`:                                    "skip: replays a recording of the reader's (session.jsonl)",
	} {
		e, err := newExample("test", line)
		if err != nil {
			t.Fatal(err)
		}
		classify(e)
		got := "run: " + e.run
		if e.run == "" {
			got = "skip: " + e.skip
		}
		if got != want {
			t.Errorf("%s\ngot  %s\nwant %s", line, got, want)
		}
	}
}
