package cli

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/spf13/cobra"
	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// TestMain makes the test binary also the programs of the scripts,
// mcpwire, testserver, testhttpserver and testbrowser (see
// script_test.go), and checks that the tests leave no goroutine behind.
func TestMain(m *testing.M) {
	testscript.Main(leakChecked{m}, map[string]func(){
		"mcpwire": func() {
			os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"testserver":     testServerMain,
		"testhttpserver": testHTTPServerMain,
		"testbrowser":    testBrowserMain,
	})
}

// leakChecked runs the tests, then fails if goroutines are left.
type leakChecked struct{ m *testing.M }

func (l leakChecked) Run() int {
	code := l.m.Run()
	if code != 0 {
		return code
	}
	if err := goleak.Find(); err != nil {
		fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
		return 1
	}
	return 0
}

// memoryTarget returns a connectTarget that serves srv in process, over
// transport/memory, whatever the target.
func memoryTarget(t *testing.T, srv *server.Server) func(context.Context, *target, *slog.Logger) (*link, error) {
	return func(ctx context.Context, _ *target, _ *slog.Logger) (*link, error) {
		ct, st := memory.NewPair(nil)
		ss, err := srv.Connect(context.Background(), st)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() {
			ss.Close()
			ss.Wait()
		})
		return &link{transport: ct}, nil
	}
}

// testEnv is an app wired to an in-process test server, with its output
// in buffers.
type testEnv struct {
	app    *app
	stdout bytes.Buffer
	stderr bytes.Buffer
}

// newTestEnv returns an app that talks to the test server in process.
func newTestEnv(t *testing.T, o testServerOptions) *testEnv {
	t.Helper()
	srv, err := newTestServer(o)
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{}
	e.app = newApp(strings.NewReader(""), &e.stdout, &e.stderr)
	e.app.connectTarget = memoryTarget(t, srv)
	e.app.global = globalOptions{Timeout: 10 * time.Second, Target: target{Command: []string{"testserver"}}}
	return e
}

// execute runs a whole command line against the in-process test server
// and returns the exit code.
func (e *testEnv) execute(args ...string) int {
	return run(context.Background(), e.app, args, commands)
}

// executeWith runs a command line with the given commands only.
func (e *testEnv) executeWith(cmds func(*app) []*cobra.Command, args ...string) int {
	return run(context.Background(), e.app, args, cmds)
}

// checkOutput compares got with want, showing both on a mismatch.
func checkOutput(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n--- got ---\n%s--- want ---\n%s", what, got, want)
	}
}
