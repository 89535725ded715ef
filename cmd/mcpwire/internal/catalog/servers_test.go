package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestMain checks that the tests of this package leave no goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// env returns an environment whose home is a temporary directory holding
// the files (relative path: text), and which is the current directory.
func env(t *testing.T, files map[string]string) *clitest.CLIEnv {
	c := clitest.NewCLIEnv(t, Family())
	c.Env["HOME"] = c.Dir
	for rel, text := range files {
		path := filepath.Join(c.Dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestServersInvalidEntry: an entry that is not a valid server is listed
// as invalid, its error below the table, and the others are usable.
func TestServersInvalidEntry(t *testing.T) {
	c := env(t, map[string]string{".cursor/mcp.json": `{"mcpServers": {"good": {"command": "x"}, "bad": {"command": 5}}}`})
	out := c.OK("servers")
	clitest.CheckOutput(t, "servers", out, `NAME  KIND     COMMAND OR URL  FILE
good  stdio    x               ~/.cursor/mcp.json
bad   invalid                  ~/.cursor/mcp.json

`+filepath.Join(c.Dir, ".cursor", "mcp.json")+`:1:62: server "bad": "command" must be a string, got a number
`)
	var js struct {
		Servers []serverJSON `json:"servers"`
	}
	if err := json.Unmarshal([]byte(c.OK("servers", "--json")), &js); err != nil || len(js.Servers) != 2 || js.Servers[1].Error == "" || js.Servers[1].Kind != "" {
		t.Errorf("%v %+v", err, js)
	}
}

// TestServersNone: without any file, say where mcpwire looked.
func TestServersNone(t *testing.T) {
	c := env(t, nil)
	out := c.OK("servers")
	// Run in the home directory: ~/.cursor/mcp.json is the user's file,
	// not a project's.
	want := `No servers are configured. Looked in:
  ~/.vscode/mcp.json
  ~/.mcp.json
  ~/.config/Claude/claude_desktop_config.json
  ~/.cursor/mcp.json
  ~/.config/Code/User/mcp.json
  ~/.config/Code/User/settings.json
(mcpwire servers --help says what these files hold)
`
	if out != want {
		t.Errorf("%s", out)
	}
}

// Regression (issue 18): servers --config naming a file that does not
// exist said "No servers are configured" and exited 0. A file named with
// --config must exist: its path is named, with exit status 1, as for a
// file that cannot be read; the usual files, which may well not exist,
// stay silent (TestServersNone).
func TestServersConfigThatDoesNotExist(t *testing.T) {
	c := env(t, nil)
	typo := filepath.Join(c.Dir, "typo.json")
	for _, args := range [][]string{{"servers", "--config", typo}, {"servers", "--json", "--config", typo}} {
		code, stdout, stderr := c.Run(args...)
		if want := "mcpwire: " + typo + ": no such file or directory\n"; code != app.ExitFailure || stderr != want || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, %q", args, code, stdout, stderr, app.ExitFailure, want)
		}
	}
}

// TestServersJSONMasked: --json names env variables and headers, never
// their values, and masks a URL's query.
func TestServersJSONMasked(t *testing.T) {
	c := env(t, map[string]string{".cursor/mcp.json": `{"mcpServers": {
		"a": {"command": "x", "args": ["postgres://u:pw-secret-1@h/db"], "env": {"K": "env-secret-2"}},
		"b": {"url": "https://h/mcp?key=url-secret-3", "headers": {"Authorization": "Bearer hdr-secret-4"}}}}`})
	out := c.OK("servers", "--json")
	for _, secret := range []string{"pw-secret-1", "env-secret-2", "url-secret-3", "hdr-secret-4"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s is printed:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, `"env": [`+"\n"+`        "K"`) || !strings.Contains(out, `"url": "https://h/mcp?key=****"`) || !strings.Contains(out, `"Authorization"`) {
		t.Errorf("%s", out)
	}
}
