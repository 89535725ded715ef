package git_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/servers/git"
)

// withRemote makes a repository whose remote origin is a local bare
// repository holding its main branch, and a second clone of that remote.
func withRemote(t *testing.T) (repo, bare, other string) {
	t.Helper()
	repo = newRepo(t)
	bare = filepath.Join(t.TempDir(), "remote.git")
	gitCmd(t, "", "init", "-q", "--bare", "-b", "main", bare)
	gitCmd(t, repo, "remote", "add", "origin", bare)
	gitCmd(t, repo, "push", "-q", "-u", "origin", "main")
	other = filepath.Join(t.TempDir(), "other")
	gitCmd(t, "", "clone", "-q", bare, other)
	gitCmd(t, other, "config", "user.name", "Other")
	gitCmd(t, other, "config", "user.email", "other@example.com")
	return repo, bare, other
}

func head(t *testing.T, dir, rev string) string {
	t.Helper()
	return strings.TrimSpace(gitCmd(t, dir, "rev-parse", rev))
}

// TestGitFetchPullPush: fetch lists what changed, pull fast-forwards,
// push is offered only with AllowPush and pushes the branch.
func TestGitFetchPullPush(t *testing.T) {
	repo, bare, other := withRemote(t)
	write(t, other, "new.txt", "from the other clone\n")
	gitCmd(t, other, "add", "new.txt")
	commitAt(t, other, "from other", "2024-02-01T10:00:00+00:00")
	gitCmd(t, other, "push", "-q", "origin", "main")
	s := serve(t, repo, nil)
	if text := s.ok(git.ToolFetch, m{}); !strings.Contains(text, "updated refs/remotes/origin/main") {
		t.Errorf("fetch: %q", text)
	}
	if text := s.ok(git.ToolFetch, m{"remote": "origin"}); !strings.Contains(text, "already up to date") {
		t.Errorf("second fetch: %q", text)
	}
	if text := s.ok(git.ToolPull, m{}); !strings.Contains(text, "Fast-forwarded to refs/remotes/origin/main") {
		t.Errorf("pull: %q", text)
	}
	if head(t, repo, "HEAD") != head(t, other, "HEAD") {
		t.Error("pull did not bring the other clone's commit")
	}
	for tool, err := range s.sess.Tools(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == git.ToolPush {
			t.Error("git_push is offered without AllowPush")
		}
	}
	write(t, repo, "mine.txt", "mine\n")
	gitCmd(t, repo, "add", "mine.txt")
	commitAt(t, repo, "mine", "2024-03-01T10:00:00+00:00")
	p := serve(t, repo, &git.Options{AllowPush: true})
	if text := p.ok(git.ToolPush, m{}); !strings.HasPrefix(text, "Pushed 'main' to 'origin'") {
		t.Errorf("push: %q", text)
	}
	if head(t, bare, "main") != head(t, repo, "HEAD") {
		t.Error("the remote did not get the commit")
	}
	// Diverged: pull refuses, push refuses (never forced), nothing changes.
	write(t, other, "other2.txt", "x\n")
	gitCmd(t, other, "add", "other2.txt")
	commitAt(t, other, "other 2", "2024-04-01T10:00:00+00:00")
	gitCmd(t, other, "pull", "-q", "--no-rebase", "origin", "main")
	gitCmd(t, other, "push", "-q", "origin", "main")
	gitCmd(t, repo, "commit", "-q", "--allow-empty", "-m", "local only")
	before := head(t, repo, "HEAD")
	if text := p.refused(git.ToolPull, m{}); !strings.Contains(text, "nothing was changed") {
		t.Errorf("pull of a diverged branch: %q", text)
	}
	if text := p.refused(git.ToolPush, m{"branch": "main"}); !strings.Contains(text, "rejected") && !strings.Contains(text, "non-fast-forward") {
		t.Errorf("push of a diverged branch: %q", text)
	}
	if head(t, repo, "HEAD") != before || head(t, bare, "main") == before {
		t.Error("a refused pull or push changed something")
	}
	if _, err := os.Lstat(filepath.Join(repo, ".git", "MERGE_HEAD")); err == nil {
		t.Error("a refused pull left a merge in progress")
	}
}

// TestGitRemoteArgumentsCannotInject: no URL, option, transport, refspec
// or path reaches git as a remote or a branch.
func TestGitRemoteArgumentsCannotInject(t *testing.T) {
	repo, bare, _ := withRemote(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	s := serve(t, repo, &git.Options{AllowPush: true})
	before := gitCmd(t, bare, "for-each-ref")
	for _, remote := range []string{
		"--upload-pack=touch " + marker, "-oProxyCommand=touch " + marker, "--receive-pack=touch " + marker,
		"ext::sh -c touch% " + marker, "ext::sh", "file://" + bare, bare, "../remote.git", "https://example.com/r.git",
		"origin --upload-pack=x", "origin\n--upload-pack=x", "origin\x00x", "ORIGIN", "origin/", ".",
	} {
		for _, tool := range []string{git.ToolFetch, git.ToolPull, git.ToolPush} {
			if text := s.refused(tool, m{"remote": remote}); !strings.Contains(text, "remote") {
				t.Errorf("%s remote %q: %q", tool, remote, text)
			}
		}
	}
	for _, branch := range []string{
		"+refs/*:refs/*", "+main", "main:main", "main:refs/heads/x", "refs/heads/main", "refs/*", "*", "-f", "--force",
		"--upload-pack=touch " + marker, "main~1", "main^", "HEAD@{1}", "../x", "a..b", "main lock", "",
	} {
		for _, tool := range []string{git.ToolPull, git.ToolPush} {
			args := m{"branch": branch}
			if branch == "" {
				continue
			}
			s.refused(tool, args)
		}
		s.refused(git.ToolMerge, m{"branch": branch})
		s.refused(git.ToolTag, m{"action": "create", "name": branch})
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Fatal("a command ran")
	}
	if after := gitCmd(t, bare, "for-each-ref"); after != before {
		t.Errorf("the remote's refs changed:\n%s\n%s", before, after)
	}
	if text := s.refused(git.ToolFetch, m{"branch": "main"}); !strings.Contains(text, `unexpected property "branch"`) {
		t.Errorf("fetch with a branch: %q", text)
	}
}

// TestGitNeverPrompts: a remote that asks for credentials gets none, at
// once: no terminal, no askpass program, no credential helper that asks;
// the credentials in a remote's URL never show in a result.
func TestGitNeverPrompts(t *testing.T) {
	repo := newRepo(t)
	marker := filepath.Join(t.TempDir(), "asked")
	askpass := filepath.Join(t.TempDir(), "askpass.sh")
	if err := os.WriteFile(askpass, []byte("#!/bin/sh\ntouch "+marker+"\necho secret\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	gitCmd(t, repo, "remote", "add", "origin", srv.URL+"/repo.git")
	gitCmd(t, repo, "remote", "add", "withcreds", strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)+"/repo.git")
	gitCmd(t, repo, "config", "core.askPass", askpass)
	gitCmd(t, repo, "config", "credential.helper", "!"+askpass)
	t.Setenv("GIT_ASKPASS", askpass)
	t.Setenv("SSH_ASKPASS", askpass)
	s := serve(t, repo, &git.Options{RemoteTimeout: 20 * time.Second})
	start := time.Now()
	text := s.refused(git.ToolFetch, m{})
	if time.Since(start) > 15*time.Second {
		t.Errorf("fetch took %v: something waited", time.Since(start))
	}
	if _, err := os.Lstat(marker); err == nil {
		t.Errorf("an askpass program or credential helper was run; fetch said %q", text)
	}
	text = s.refused(git.ToolFetch, m{"remote": "withcreds"})
	if strings.Contains(text, "hunter2") {
		t.Errorf("the URL's password shows: %q", text)
	}
}

// TestGitRemoteTimeout: a remote that never answers is given up after
// Options.RemoteTimeout.
func TestGitRemoteTimeout(t *testing.T) {
	repo := newRepo(t)
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(done)
	gitCmd(t, repo, "remote", "add", "origin", srv.URL+"/repo.git")
	s := serve(t, repo, &git.Options{RemoteTimeout: time.Second})
	start := time.Now()
	if text := s.refused(git.ToolFetch, m{}); !strings.Contains(text, "took longer than 1s") {
		t.Errorf("fetch of a silent remote: %q", text)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("fetch took %v", d)
	}
}

// TestGitReadOnlyWithholdsWriters: with ReadOnly, only the tools that
// cannot write are offered.
func TestGitReadOnlyWithholdsWriters(t *testing.T) {
	s := serve(t, newRepo(t), &git.Options{ReadOnly: true, AllowPush: true})
	var names []string
	for tool, err := range s.sess.Tools(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		if !*tool.Annotations.ReadOnlyHint {
			t.Errorf("%s is offered and may write", tool.Name)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	want := []string{git.ToolBranch, git.ToolDiff, git.ToolDiffStaged, git.ToolDiffUnstaged, git.ToolLog, git.ToolShow, git.ToolStatus}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("read-only tools: %v, want %v", names, want)
	}
}
