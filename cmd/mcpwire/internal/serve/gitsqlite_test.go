package serve

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// gitRepo makes a repository with one commit and an unstaged change.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", "Test"},
		{"config", "user.email", "test@example.com"},
		{"add", "hello.txt"},
		{"commit", "-q", "-m", "first"},
	} {
		if args[0] == "add" {
			os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\n"), 0o644)
		}
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\nagain\n"), 0o644)
	return dir
}

// TestServeGitStdio serves a repository over stdio in both eras.
func TestServeGitStdio(t *testing.T) {
	dir := gitRepo(t)
	for _, version := range []mcp.Version{"2026-07-28", "2025-11-25"} {
		t.Run(string(version), func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			r := start(t, inR, outW, "serve", "git", "--repository", dir)
			cs := connect(t, &pipeTransport{r: outR, w: inW}, version, nil)
			if cs.ServerInfo().Name != "mcpwire-git" || !strings.Contains(cs.Instructions(), "git_status") {
				t.Errorf("server %+v, instructions %q", cs.ServerInfo(), cs.Instructions())
			}
			if text, _ := callText(t, cs, "git_diff_unstaged", `{}`); !strings.Contains(text, "+again") {
				t.Errorf("git_diff_unstaged = %q", text)
			}
			if text, isErr := callText(t, cs, "git_show", `{"revision": "--output=/tmp/x"}`); !isErr || !strings.Contains(text, "cannot start with '-'") {
				t.Errorf("git_show of an option = %q", text)
			}
			if text, isErr := callText(t, cs, "git_status", `{"repo_path": "/"}`); !isErr || !strings.Contains(text, "outside the allowed repository") {
				t.Errorf("git_status elsewhere = %q", text)
			}
			cs.Close()
			if code := r.wait(t); code != app.ExitOK {
				t.Errorf("exit %d; stderr: %s", code, r.stderr.String())
			}
			inR.Close()
			outR.Close()
		})
	}
}

var servingSqlite = regexp.MustCompile(`mcpwire: serving sqlite on (http://\S+/mcp)\n`)

// TestServeSqliteHTTP serves a database over Streamable HTTP, read-only:
// a modern client and a legacy session read it, neither can write it.
func TestServeSqliteHTTP(t *testing.T) {
	db := filepath.Join(t.TempDir(), "app.db")
	rw := start(t, strings.NewReader(""), io.Discard, "serve", "sqlite", "--db", db, "--http", "127.0.0.1:0")
	url := rw.stderr.await(t, servingSqlite)[1]
	cs := connect(t, streamable.NewTransport(url, nil), "2026-07-28", nil)
	if text, isErr := callText(t, cs, "create_table", `{"query": "CREATE TABLE t (x)"}`); isErr {
		t.Fatal(text)
	}
	if text, isErr := callText(t, cs, "write_query", `{"query": "INSERT INTO t VALUES (1), (2)"}`); isErr || text != `[{"affected_rows":2}]` {
		t.Fatalf("write_query = %q", text)
	}
	cs.Close()
	rw.cancel()
	rw.wait(t)
	before, _ := os.ReadFile(db)

	ro := start(t, strings.NewReader(""), io.Discard, "serve", "sqlite", "--db", db, "--read-only", "--http", "127.0.0.1:0")
	url = ro.stderr.await(t, servingSqlite)[1]
	for _, version := range []mcp.Version{"2026-07-28", "2025-11-25"} {
		cs := connect(t, streamable.NewTransport(url, nil), version, nil)
		if text, _ := callText(t, cs, "read_query", `{"query": "SELECT x FROM t ORDER BY x"}`); text != "[{\"x\":1},\n{\"x\":2}]" {
			t.Errorf("%s: read_query = %q", version, text)
		}
		if text, isErr := callText(t, cs, "read_query", `{"query": "DELETE FROM t"}`); !isErr || !strings.Contains(text, "readonly") {
			t.Errorf("%s: a write through read_query = %q", version, text)
		}
		args, _ := json.Marshal(map[string]string{"query": "DELETE FROM t"})
		if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "write_query", Arguments: args}); err == nil {
			t.Errorf("%s: write_query answered in read-only mode", version)
		}
		cs.Close()
	}
	ro.cancel()
	if code := ro.wait(t); code != app.ExitOK {
		t.Errorf("exit %d; stderr: %s", code, ro.stderr.String())
	}
	if after, _ := os.ReadFile(db); string(after) != string(before) {
		t.Error("the read-only server changed the database file")
	}
}

func TestServeGitSqliteUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "git"}, "needs --repository DIR"},
		{[]string{"serve", "git", "--repository", dir}, "is not a valid Git repository"},
		{[]string{"serve", "git", "--repository", dir, "extra"}, `unexpected argument "extra": the repository is an option, use --repository DIR`},
		{[]string{"serve", "sqlite"}, "needs --db FILE"},
		{[]string{"serve", "sqlite", "--db", filepath.Join(dir, "missing.db"), "--read-only"}, "no such file or directory"},
	} {
		r := start(t, strings.NewReader(""), io.Discard, c.args...)
		if code := r.wait(t); code != app.ExitUsage || !strings.Contains(r.stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, r.stderr.String(), c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("serve sqlite --read-only created the missing file")
	}
}
