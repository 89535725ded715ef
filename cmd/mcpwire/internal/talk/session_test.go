package talk

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// The session every verb opens (app.WithSession), through the verbs of
// this package: --verbose, --protocol, the fallback to the legacy era.

// TestVerbose: --verbose tells the negotiated revision on stderr.
func TestVerbose(t *testing.T) {
	for _, tt := range []struct{ protocol, want string }{
		{"", "[client] connected to testserver 1.0.0, protocol 2026-07-28 (stateless era)\n"},
		{"2025-06-18", "[client] connected to testserver 1.0.0, protocol 2025-06-18 (stateful era)\n"},
	} {
		e := newTestEnv(t, clitest.ServerOptions{})
		args := []string{"prompts", "--verbose", "--", "srv"}
		if tt.protocol != "" {
			args = append([]string{"--protocol", tt.protocol}, args...)
		}
		if code := e.Execute(args...); code != app.ExitOK {
			t.Fatalf("exit %d: %s", code, e.Stderr.String())
		}
		clitest.CheckOutput(t, "stderr", e.Stderr.String(), tt.want)
		clitest.CheckOutput(t, "stdout", e.Stdout.String(), wantPrompts)
	}
}

// TestProtocolRefused: a forced modern revision that the server does
// not speak is a connection failure.
func TestProtocolRefused(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{LegacyOnly: true})
	if code := e.Execute("tools", "--protocol", "2026-07-28", "--", "srv"); code != app.ExitConnect {
		t.Errorf("exit %d, want 4", code)
	}
	clitest.CheckOutput(t, "stderr", e.Stderr.String(), "mcpwire: cannot connect to the server: the server does not speak 2026-07-28\n")
}

// TestLegacyFallback: without --protocol, a legacy-only server is reached
// through the legacy handshake.
func TestLegacyFallback(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{LegacyOnly: true})
	if code := e.Execute("tools", "-v", "--", "srv"); code != app.ExitOK {
		t.Fatalf("exit %d: %s", code, e.Stderr.String())
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), wantTools)
	if !strings.HasSuffix(e.Stderr.String(), "[client] connected to testserver 1.0.0, protocol 2025-11-25 (stateful era)\n") {
		t.Errorf("stderr %q", e.Stderr.String())
	}
}
