package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestUsageErrors runs whole command lines that are wrong: each exits
// with status 2 and one line on stderr, without reaching the server.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tools"},
			"no server given: name its command after -- (as in: mcpwire tools -- go run ./examples/hello), its URL with --url, or a server of your hosts' configuration with @NAME (see mcpwire servers)"},
		{[]string{"toolz", "--", "srv"},
			`unknown command "toolz"; did you mean "tools"? (see mcpwire --help)`},
		{[]string{"--", "srv"},
			"name a command before --, as in: mcpwire tools -- srv"},
		{[]string{"tools", "srv", "-x"},
			"unknown shorthand flag: 'x' in -x (see mcpwire tools --help)"},
		{[]string{"read", "--", "srv"},
			"missing URI (usage: mcpwire read URI [flags] (@NAME | --url URL | -- COMMAND [ARG...]))"},
		{[]string{"read", "a", "b", "--", "srv"},
			`unexpected argument "b" (usage: mcpwire read URI [flags] (@NAME | --url URL | -- COMMAND [ARG...]))`},
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
			`unexpected argument "extra" (usage: mcpwire tools [flags] (@NAME | --url URL | -- COMMAND [ARG...]))`},
		{[]string{"tools", "--url", "localhost:3000/mcp"},
			`--url "localhost:3000/mcp": want an http or https URL, such as http://localhost:3000/mcp`},
		{[]string{"tools", "--url", "https://mcp.example.com/mcp#x"},
			`--url "https://mcp.example.com/mcp#x": a URL with a fragment (#) names no server`},
		{[]string{"login"},
			"name the server with --url, as in: mcpwire login --url https://mcp.example.com/mcp"},
		{[]string{"login", "https://mcp.example.com/mcp"},
			"mcpwire login takes no arguments; name the server with --url (usage: mcpwire login (--url URL | @NAME) [flags])"},
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
		{[]string{"tools", "--server", "a", "@b"},
			"name one server: --server a or @b"},
		{[]string{"call", "echo", "@a", "@b"},
			"name one server, not @a and @b"},
		{[]string{"tools", "--server", "a", "--", "srv"},
			"name the server one way: --server a, --url, or its command after --"},
		{[]string{"servers", "x"},
			"mcpwire servers takes no arguments (usage: mcpwire servers [flags])"},
		{[]string{"servers", "--header", "A=b"},
			"mcpwire servers takes no --header"},
		{[]string{"login", "@a", "--url", "https://mcp.example.com/mcp"},
			"name the server one way: @a or --url"},
		{[]string{"logout"},
			"name the server with --url, as in: mcpwire logout --url https://mcp.example.com/mcp"},
		{[]string{"logout", "--url", "https://mcp.example.com/mcp", "--", "srv"},
			"mcpwire logout takes no arguments; name the server with --url (usage: mcpwire logout (--url URL | @NAME) [flags])"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			e := newTestEnv(t, clitest.ServerOptions{})
			e.App.Connect = func(context.Context, *app.Target, *slog.Logger) (*app.Link, error) {
				t.Fatal("the server was reached")
				return nil, nil
			}
			if code := e.Execute(tt.args...); code != app.ExitUsage {
				t.Errorf("exit %d, want 2", code)
			}
			clitest.CheckOutput(t, "stderr", e.Stderr.String(), "mcpwire: "+tt.want+"\n")
			clitest.CheckOutput(t, "stdout", e.Stdout.String(), "")
		})
	}
}

// TestCommandNotFound goes through the real app.Connect with a program
// that does not exist.
func TestCommandNotFound(t *testing.T) {
	var stdout, stderr bytes.Buffer
	a := app.New(strings.NewReader(""), &stdout, &stderr)
	if code := a.Execute(context.Background(), newRootCmd(a, families()...), []string{"tools", "--", "mcpwire-no-such-server"}); code != app.ExitConnect {
		t.Errorf("exit %d, want 4", code)
	}
	clitest.CheckOutput(t, "stderr", stderr.String(), "mcpwire: cannot start the server \"mcpwire-no-such-server\": executable file not found in $PATH\n")
}

func TestNoArgumentsPrintsHelp(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	if code := e.Execute(); code != app.ExitOK {
		t.Errorf("exit %d", code)
	}
	if !strings.HasPrefix(e.Stdout.String(), "mcpwire talks to any Model Context Protocol (MCP) server") {
		t.Errorf("stdout %q", e.Stdout.String())
	}
}

func TestVersionFlag(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	if code := e.Execute("--version"); code != app.ExitOK {
		t.Errorf("exit %d", code)
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), "mcpwire "+mcpwire.ReadBuild().String()+"\n")
}

// TestVersionCommand: mcpwire version prints what --version does, and
// --json the build information, which tests of the installed and the
// checked-out binary read (TestInstallFromProxy, TestVersionFromCheckout).
func TestVersionCommand(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	if code := e.Execute("version"); code != app.ExitOK {
		t.Fatalf("exit %d", code)
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), "mcpwire "+mcpwire.ReadBuild().String()+"\n")
	e = newTestEnv(t, clitest.ServerOptions{})
	if code := e.Execute("version", "--json"); code != app.ExitOK {
		t.Fatalf("exit %d", code)
	}
	var got struct {
		Version, Module, GoVersion, OS, Arch string
	}
	if err := json.Unmarshal(e.Stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v in %q", err, e.Stdout.String())
	}
	if got.Version == "" || got.Module == "" || got.GoVersion != runtime.Version() || got.OS != runtime.GOOS || got.Arch != runtime.GOARCH {
		t.Errorf("version --json = %+v", got)
	}
}

// TestCompleteServers: the shell completes @NAME and --server NAME from
// the configured servers.
func TestCompleteServers(t *testing.T) {
	c := newCLIEnv(t)
	c.Env["HOME"] = c.Dir
	write(t, filepath.Join(c.Dir, ".cursor", "mcp.json"), `{"mcpServers": {"github": {"url": "https://x/mcp"}, "files": {"command": "x"}}}`)
	out := c.OK("__complete", "call", "echo", "@")
	if !strings.HasPrefix(out, "@github\n@files\n:4\n") {
		t.Errorf("@: %q", out)
	}
	out = c.OK("__complete", "tools", "--server", "")
	if !strings.HasPrefix(out, "github\nfiles\n:4\n") {
		t.Errorf("--server: %q", out)
	}
}
