package git_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/git"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// TestMain keeps the machine's git configuration out of the tests (the
// server passes these two variables on to git) and checks that no
// goroutine is left behind.
func TestMain(m *testing.M) {
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	goleak.VerifyTestMain(m)
}

// gitCmd runs the git command in dir, as a user would, and returns its
// standard output; the test fails if git does.
func gitCmd(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitRun(dir, nil, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitRun(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out) + string(ee.Stderr), err
	}
	return string(out), err
}

// newRepo creates a repository with one commit of hello.txt on branch main.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, dir, "init", "-q", "-b", "main")
	gitCmd(t, dir, "config", "user.name", "Test Author")
	gitCmd(t, dir, "config", "user.email", "author@example.com")
	write(t, dir, "hello.txt", "hello\nworld\n")
	gitCmd(t, dir, "add", "hello.txt")
	commitAt(t, dir, "initial commit", "2024-01-01T10:00:00+00:00")
	return dir
}

// commitAt commits what is staged with the given author and committer date.
func commitAt(t testing.TB, dir, msg, date string) {
	t.Helper()
	if out, err := gitRun(dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, "commit", "-q", "-m", msg); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// session serves the repository at dir over the in-memory transport and
// returns a connected client session.
type session struct {
	t    testing.TB
	sess *client.Session
	repo *git.Repository
}

func serve(t testing.TB, dir string, opts *git.Options) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	repo, err := git.Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := git.New(repo, nil)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := memory.NewPair(nil)
	if _, err := srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	sess, err := client.New(mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sess.Close()
		srv.Close()
	})
	return &session{t: t, sess: sess, repo: repo}
}

// call calls a tool and returns its text and whether it is an error result.
func (s *session) call(name string, args any) (string, bool) {
	s.t.Helper()
	res := s.result(name, args)
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.(*mcp.TextContent).Text)
	}
	return b.String(), res.IsError
}

func (s *session) result(name string, args any) *mcp.CallToolResult {
	s.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		s.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: raw})
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ok calls a tool that must succeed and returns its text.
func (s *session) ok(name string, args any) string {
	s.t.Helper()
	text, isErr := s.call(name, args)
	if isErr {
		s.t.Fatalf("%s %v: unexpected error result: %s", name, args, text)
	}
	return text
}

// refused calls a tool that must fail and returns its error text.
func (s *session) refused(name string, args any) string {
	s.t.Helper()
	text, isErr := s.call(name, args)
	if !isErr {
		s.t.Fatalf("%s %v: expected an error result, got: %s", name, args, text)
	}
	return text
}

type m = map[string]any
