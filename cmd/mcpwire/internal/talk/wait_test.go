package talk

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/transport"
)

// slowStart is a transport whose server takes delay to start.
type slowStart struct {
	transport.Transport
	delay time.Duration
}

func (s slowStart) Connect(ctx context.Context) (transport.Conn, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Transport.Connect(ctx)
}

// Regression (issue 19): the first command of the README, mcpwire tools
// -- go run ./examples/hello, printed nothing for 87 s on an empty build
// cache (go run compiles the server first). When the server has not
// answered within 2 seconds, one line says what mcpwire waits for: on a
// terminal, where a person waits, or with --verbose; never in a script's
// stderr otherwise.
func TestSlowServerStartIsToldOnATerminal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		delay    time.Duration
		terminal bool
		args     []string
		want     string
	}{
		{"go run", 5 * time.Second, true, []string{"--", "go", "run", "./examples/hello"}, "mcpwire: waiting for the server to start (go run compiles it first)…\n"},
		{"npx", 5 * time.Second, true, []string{"--", "npx", "-y", "@modelcontextprotocol/server-everything"}, "mcpwire: waiting for the server to start (npx may download it first)…\n"},
		{"a program", 5 * time.Second, true, []string{"--", "./server"}, "mcpwire: waiting for the server to answer…\n"},
		{"a URL", 5 * time.Second, true, []string{"--url", "http://localhost:3000/mcp"}, "mcpwire: waiting for http://localhost:3000/mcp to answer…\n"},
		{"in time", time.Second, true, []string{"--", "go", "run", "./examples/hello"}, ""},
		{"not a terminal", 5 * time.Second, false, []string{"--", "go", "run", "./examples/hello"}, ""},
		{"verbose", 5 * time.Second, false, []string{"-v", "--", "go", "run", "./examples/hello"}, "[client] waiting for the server to start (go run compiles it first)…\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newTestEnv(t, clitest.ServerOptions{})
				inner := e.App.Connect
				e.App.Connect = func(ctx context.Context, tg *app.Target, log *slog.Logger) (*app.Link, error) {
					l, err := inner(ctx, tg, log)
					if err == nil {
						l.Transport = slowStart{l.Transport, tc.delay}
					}
					return l, err
				}
				stderr := e.App.Stderr
				e.App.IsTerminal = func(w io.Writer) bool { return tc.terminal && w == stderr }
				if code := e.Execute(append([]string{"tools"}, tc.args...)...); code != app.ExitOK {
					t.Fatalf("exit %d: %s", code, e.Stderr.String())
				}
				got := e.Stderr.String()
				if tc.name == "verbose" {
					got = firstLine(got)
				}
				clitest.CheckOutput(t, "stderr", got, tc.want)
			})
		})
	}
}

// firstLine returns the first line of s, with its newline.
func firstLine(s string) string {
	for l := range strings.Lines(s) {
		return l
	}
	return ""
}
