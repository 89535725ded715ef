package clitest

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// Programs are the programs of the testscript scripts, besides mcpwire
// itself: testserver (ServerMain), testhttpserver (HTTPServerMain),
// testbrowser (BrowserMain) and brokenserver (BrokenServerMain). A
// TestMain hands them to testscript.Main.
func Programs() map[string]func() {
	return map[string]func(){
		"testserver":     ServerMain,
		"testhttpserver": HTTPServerMain,
		"testbrowser":    BrowserMain,
		"brokenserver":   BrokenServerMain,
	}
}

// MemoryTarget returns an app.Connect that serves srv in process, over
// transport/memory, whatever the target; the server's session ends
// with the test.
func MemoryTarget(t *testing.T, srv *server.Server) func(context.Context, *app.Target, *slog.Logger) (*app.Link, error) {
	return func(ctx context.Context, _ *app.Target, _ *slog.Logger) (*app.Link, error) {
		ct, st := memory.NewPair(nil)
		ss, err := srv.Connect(context.Background(), st)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() {
			ss.Close()
			ss.Wait()
		})
		return &app.Link{Transport: ct}, nil
	}
}

// An Env is an app wired to the test server in process, with its output
// in buffers, and the verb families its command lines may use.
type Env struct {
	App    *app.App
	Stdout bytes.Buffer
	Stderr bytes.Buffer
	// NewRoot builds the root command of a command line: (*app.App).NewRoot
	// when nil, or the program's own (with its help).
	NewRoot func(a *app.App, families ...app.Family) *cobra.Command

	families []app.Family
}

// NewEnv returns an Env whose app talks to the test server (with the
// options o) in process, with the commands of families. Its global
// options are those of a command line naming the server "testserver",
// with a 10-second timeout, for the tests that call a run function
// directly.
func NewEnv(t *testing.T, o ServerOptions, families ...app.Family) *Env {
	t.Helper()
	srv, err := NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{families: families}
	e.App = app.New(strings.NewReader(""), &e.Stdout, &e.Stderr)
	e.App.Connect = MemoryTarget(t, srv)
	e.App.Global = app.Options{Timeout: 10 * time.Second, Target: app.Target{Command: []string{"testserver"}}}
	return e
}

// Execute runs a whole command line against the in-process test server,
// with the Env's families, and returns the exit code.
func (e *Env) Execute(args ...string) int {
	return e.App.Execute(context.Background(), newRoot(e.NewRoot, e.App, e.families), args)
}

// ExecuteWith runs a command line with the commands cmds returns only,
// listed under the help groups of the Env's families.
func (e *Env) ExecuteWith(cmds func(*app.App) []*cobra.Command, args ...string) int {
	var groups []cobra.Group
	for _, f := range e.families {
		groups = append(groups, f.Groups...)
	}
	root := newRoot(e.NewRoot, e.App, []app.Family{{Groups: groups, Commands: cmds}})
	return e.App.Execute(context.Background(), root, args)
}

// newRoot builds the root command with build, or app's when nil.
func newRoot(build func(*app.App, ...app.Family) *cobra.Command, a *app.App, families []app.Family) *cobra.Command {
	if build == nil {
		return a.NewRoot(families...)
	}
	return build(a, families...)
}

// CheckOutput compares got with want, showing both on a mismatch.
func CheckOutput(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n--- got ---\n%s--- want ---\n%s", what, got, want)
	}
}

// A CLIEnv runs whole command lines through the real app.Connect, with
// its own environment and token store; its browser is a function that
// visits the authorization URL.
type CLIEnv struct {
	T     *testing.T
	Env   map[string]string // the environment: Getenv's answers
	Store string            // the token store, $MCPWIRE_TOKENS
	Stdin string            // the standard input of each run
	Dir   string            // the current directory, where project files are looked for

	NoBrowser bool         // fail the test if a browser is opened
	Visits    atomic.Int32 // authorization URLs visited
	// NewRoot builds the root command, as Env.NewRoot does.
	NewRoot func(a *app.App, families ...app.Family) *cobra.Command

	families []app.Family
}

// NewCLIEnv returns a CLIEnv with the commands of families, an empty
// token store in a temporary directory, and that directory as the
// current one (no HOME: no user configuration file is read).
func NewCLIEnv(t *testing.T, families ...app.Family) *CLIEnv {
	dir := t.TempDir()
	store := filepath.Join(dir, "config", "tokens.json")
	return &CLIEnv{T: t, Store: store, Dir: dir, Env: map[string]string{app.EnvTokens: store}, families: families}
}

// Run runs mcpwire with args and returns its exit code and output.
func (c *CLIEnv) Run(args ...string) (code int, stdout, stderr string) {
	c.T.Helper()
	var out, errb bytes.Buffer
	a := app.New(strings.NewReader(c.Stdin), &out, &errb)
	a.Getenv = func(k string) string { return c.Env[k] }
	a.LookupEnv = func(k string) (string, bool) { v, ok := c.Env[k]; return v, ok }
	a.Getwd = func() (string, error) { return c.Dir, nil }
	// A visit that fails leaves login waiting for the browser: it ends
	// the run instead.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.OpenBrowser = func(ctx context.Context, u string) error {
		if c.NoBrowser {
			c.T.Errorf("a browser was opened for %s", u)
			cancel()
			return errNoBrowser
		}
		c.Visits.Add(1)
		err := Visit(ctx, u)
		if err != nil {
			c.T.Errorf("visiting the authorization URL: %v", err)
			cancel()
		}
		return err
	}
	code = a.Execute(ctx, newRoot(c.NewRoot, a, c.families), args)
	return code, out.String(), errb.String()
}

// OK runs mcpwire with args, fails the test unless it succeeds, and
// returns its stdout.
func (c *CLIEnv) OK(args ...string) string {
	c.T.Helper()
	code, stdout, stderr := c.Run(args...)
	if code != app.ExitOK {
		c.T.Fatalf("mcpwire %s: exit %d\nstderr: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// Fails runs mcpwire with args and checks its exit code and its one line
// on stderr, which must match want (a prefix, when want ends in "…").
// (Before it, login prints the authorization URL.)
func (c *CLIEnv) Fails(code int, want string, args ...string) {
	c.T.Helper()
	got, stdout, stderr := c.Run(args...)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	line := lines[len(lines)-1]
	match := line == want
	if p, ok := strings.CutSuffix(want, "…"); ok {
		match = strings.HasPrefix(line, p)
	}
	if got != code || !match || (len(lines) > 1 && args[0] != "login") {
		c.T.Errorf("mcpwire %s: exit %d, stderr %q\nwant exit %d, stderr %q", strings.Join(args, " "), got, stderr, code, want)
	}
	if stdout != "" {
		c.T.Errorf("mcpwire %s: stdout %q", strings.Join(args, " "), stdout)
	}
}

// ServeHTTP serves the test server over HTTP until the end of the test.
func ServeHTTP(t *testing.T, o HTTPServerOptions) *HTTPServer {
	t.Helper()
	s, err := StartHTTPServer(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}
