package cli

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestUsageErrors runs whole command lines that are wrong: each exits
// with status 2 and one line on stderr, without reaching the server.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tools"},
			"no server given: name its command after -- (as in: mcpwire tools -- go run ./examples/hello) or its URL with --url"},
		{[]string{"toolz", "--", "srv"},
			`unknown command "toolz"; did you mean "tools"? (see mcpwire --help)`},
		{[]string{"--", "srv"},
			"name a command before --, as in: mcpwire tools -- srv"},
		{[]string{"tools", "srv", "-x"},
			"unknown shorthand flag: 'x' in -x (see mcpwire tools --help)"},
		{[]string{"read", "--", "srv"},
			"missing URI (usage: mcpwire read URI [flags] (--url URL | -- COMMAND [ARG...]))"},
		{[]string{"read", "a", "b", "--", "srv"},
			`unexpected argument "b" (usage: mcpwire read URI [flags] (--url URL | -- COMMAND [ARG...]))`},
		{[]string{"tools", "--protocol", "2025-01-01", "--", "srv"},
			`--protocol: unknown revision "2025-01-01"; known: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05`},
		{[]string{"tools", "--timeout", "-1s", "--", "srv"},
			"--timeout must not be negative, got -1s"},
		{[]string{"tools", "--timeout", "soon", "--", "srv"},
			`invalid argument "soon" for "--timeout" flag: time: invalid duration "soon" (see mcpwire tools --help)`},
		{[]string{"tools", "--header", "X-Key=1", "--", "srv"},
			"--header needs --url"},
		{[]string{"tools", "--url", "http://localhost/mcp", "--header", "novalue"},
			`--header "novalue": want K=V`},
		{[]string{"tools", "--url", "http://localhost/mcp", "--", "srv"},
			"name the server either with --url or after --, not both"},
		{[]string{"tools", "--url", "http://localhost/mcp", "--header", "Bad Name=x"},
			`--header "Bad Name=x": not a valid HTTP header`},
		{[]string{"tools", "extra", "--url", "http://localhost/mcp"},
			`unexpected argument "extra" (usage: mcpwire tools [flags] (--url URL | -- COMMAND [ARG...]))`},
		{[]string{"tools", "--url", "localhost:3000/mcp"},
			`--url "localhost:3000/mcp": want an http or https URL, such as http://localhost:3000/mcp`},
		{[]string{"tools", "--url", "https://mcp.example.com/mcp#x"},
			`--url "https://mcp.example.com/mcp#x": a URL with a fragment (#) names no server`},
		{[]string{"login"},
			"name the server with --url, as in: mcpwire login --url https://mcp.example.com/mcp"},
		{[]string{"login", "https://mcp.example.com/mcp"},
			"mcpwire login takes no arguments; name the server with --url (usage: mcpwire login --url URL [flags])"},
		{[]string{"login", "--url", "https://mcp.example.com/mcp", "--header", "A=b"},
			"mcpwire login takes no --header"},
		{[]string{"login", "--url", "https://mcp.example.com/mcp", "--protocol", "2025-11-25"},
			"mcpwire login takes no --protocol"},
		{[]string{"login", "--url", "https://mcp.example.com/mcp", "--client-secret", "s"},
			"--client-secret needs --client-id"},
		{[]string{"login", "--url", "https://mcp.example.com/mcp", "--client-metadata-url", "http://example.com/c.json"},
			`--client-metadata-url "http://example.com/c.json": want an https URL with a path, such as https://example.com/mcpwire.json`},
		{[]string{"login", "--url", "https://mcp.example.com/mcp", "--port", "70000"},
			"--port 70000: want a port number, 1 to 65535 (or 0 for any)"},
		{[]string{"login", "--status", "--scope", "a"},
			"--status lists the stored tokens: it takes no --scope"},
		{[]string{"login", "--url", "https://mcp.example.com/mcp", "--client-id", "x", "--client-secret", "@/no/such/file"},
			"--client-secret: /no/such/file: no such file or directory"},
		{[]string{"logout"},
			"name the server with --url, as in: mcpwire logout --url https://mcp.example.com/mcp"},
		{[]string{"logout", "--url", "https://mcp.example.com/mcp", "--", "srv"},
			"mcpwire logout takes no arguments; name the server with --url (usage: mcpwire logout --url URL [flags])"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := newTestEnv(t, testServerOptions{})
			e.app.connectTarget = func(context.Context, *target, *slog.Logger) (*link, error) {
				t.Fatal("the server was reached")
				return nil, nil
			}
			if code := e.execute(tt.args...); code != exitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			checkOutput(t, "stderr", e.stderr.String(), "mcpwire: "+tt.want+"\n")
			checkOutput(t, "stdout", e.stdout.String(), "")
		})
	}
}

// TestCommandNotFound goes through the real connectTarget with a program
// that does not exist.
func TestCommandNotFound(t *testing.T) {
	var stdout, stderr bytes.Buffer
	a := newApp(strings.NewReader(""), &stdout, &stderr)
	if code := run(context.Background(), a, []string{"tools", "--", "mcpwire-no-such-server"}, commands); code != exitConnect {
		t.Errorf("exit %d, want 4", code)
	}
	checkOutput(t, "stderr", stderr.String(), "mcpwire: cannot start the server \"mcpwire-no-such-server\": executable file not found in $PATH\n")
}

func TestNoArgumentsPrintsHelp(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	if code := e.execute(); code != exitOK {
		t.Errorf("exit %d", code)
	}
	if !strings.HasPrefix(e.stdout.String(), "mcpwire talks to any Model Context Protocol (MCP) server") {
		t.Errorf("stdout %q", e.stdout.String())
	}
}

func TestVersionFlag(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	if code := e.execute("--version"); code != exitOK {
		t.Errorf("exit %d", code)
	}
	checkOutput(t, "stdout", e.stdout.String(), "mcpwire "+version()+"\n")
}

// TestVerbose: --verbose tells the negotiated revision on stderr.
func TestVerbose(t *testing.T) {
	for _, tt := range []struct{ protocol, want string }{
		{"", "[client] connected to testserver 1.0.0, protocol 2026-07-28 (stateless era)\n"},
		{"2025-06-18", "[client] connected to testserver 1.0.0, protocol 2025-06-18 (stateful era)\n"},
	} {
		e := newTestEnv(t, testServerOptions{})
		args := []string{"prompts", "--verbose", "--", "srv"}
		if tt.protocol != "" {
			args = append([]string{"--protocol", tt.protocol}, args...)
		}
		if code := e.execute(args...); code != exitOK {
			t.Fatalf("exit %d: %s", code, e.stderr.String())
		}
		checkOutput(t, "stderr", e.stderr.String(), tt.want)
		checkOutput(t, "stdout", e.stdout.String(), wantPrompts)
	}
}

// TestProtocolRefused: a forced modern revision that the server does
// not speak is a connection failure.
func TestProtocolRefused(t *testing.T) {
	e := newTestEnv(t, testServerOptions{legacyOnly: true})
	if code := e.execute("tools", "--protocol", "2026-07-28", "--", "srv"); code != exitConnect {
		t.Errorf("exit %d, want 4", code)
	}
	checkOutput(t, "stderr", e.stderr.String(), "mcpwire: cannot connect to the server: the server does not speak 2026-07-28\n")
}

// TestLegacyFallback: without --protocol, a legacy-only server is reached
// through the legacy handshake.
func TestLegacyFallback(t *testing.T) {
	e := newTestEnv(t, testServerOptions{legacyOnly: true})
	if code := e.execute("tools", "-v", "--", "srv"); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	checkOutput(t, "stdout", e.stdout.String(), wantTools)
	if !strings.HasSuffix(e.stderr.String(), "[client] connected to testserver 1.0.0, protocol 2025-11-25 (stateful era)\n") {
		t.Errorf("stderr %q", e.stderr.String())
	}
}
