package git_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/servers/git"
)

// TestGitStash: push, list, show and pop; a pop that conflicts is
// undone and its entry kept.
func TestGitStash(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	if text := s.ok(git.ToolStash, m{"action": "list"}); text != "No stash entries" {
		t.Errorf("empty list: %q", text)
	}
	write(t, dir, "hello.txt", "hello\nstashed\n")
	write(t, dir, "untracked.txt", "u\n")
	s.ok(git.ToolStash, m{"action": "push", "message": "--not-an-option", "include_untracked": true})
	if _, err := os.Lstat(filepath.Join(dir, "untracked.txt")); err == nil {
		t.Error("include_untracked left the untracked file")
	}
	if text := s.ok(git.ToolStash, m{"action": "list"}); !strings.Contains(text, "stash@{0}: On main: --not-an-option") {
		t.Errorf("list: %q", text)
	}
	if text := s.ok(git.ToolStash, m{"action": "show"}); !strings.Contains(text, "+stashed") {
		t.Errorf("show: %q", text)
	}
	s.ok(git.ToolStash, m{"action": "pop"})
	if b, _ := os.ReadFile(filepath.Join(dir, "hello.txt")); string(b) != "hello\nstashed\n" {
		t.Errorf("after pop: %q", b)
	}
	// A conflicting pop: undone, entry kept.
	gitCmd(t, dir, "stash", "push", "-q")
	write(t, dir, "hello.txt", "hello\ncommitted meanwhile\n")
	gitCmd(t, dir, "commit", "-q", "-am", "meanwhile")
	if text := s.refused(git.ToolStash, m{"action": "pop"}); !strings.Contains(text, "the pop was undone") {
		t.Errorf("conflicting pop: %q", text)
	}
	if st := gitCmd(t, dir, "status", "--porcelain", "--untracked-files=no"); st != "" {
		t.Errorf("the conflicting pop left changes:\n%s", st)
	}
	if list := gitCmd(t, dir, "stash", "list"); !strings.Contains(list, "stash@{0}") {
		t.Error("the conflicting pop lost the entry")
	}
	// On a dirty tree pop refuses before it starts.
	write(t, dir, "hello.txt", "dirty\n")
	if text := s.refused(git.ToolStash, m{"action": "pop"}); !strings.Contains(text, "tracked files have changes") {
		t.Errorf("pop on a dirty tree: %q", text)
	}
	for _, bad := range []m{{"action": "drop"}, {"action": "pop", "index": 5}, {"action": "list", "index": 0}, {"action": "pop", "message": "x"}} {
		s.refused(git.ToolStash, bad)
	}
}

// TestGitMergeFailureLeavesNothing: a merge that is not a fast-forward
// is refused unless asked; one that conflicts is aborted, leaving no
// merge in progress and no changed file.
func TestGitMergeFailureLeavesNothing(t *testing.T) {
	dir := newRepo(t)
	gitCmd(t, dir, "checkout", "-q", "-b", "feature")
	write(t, dir, "hello.txt", "hello\nfeature\n")
	gitCmd(t, dir, "commit", "-q", "-am", "feature")
	gitCmd(t, dir, "checkout", "-q", "main")
	s := serve(t, dir, nil)
	if text := s.ok(git.ToolMerge, m{"branch": "feature"}); !strings.HasPrefix(text, "Merged 'feature'") {
		t.Errorf("fast-forward: %q", text)
	}
	gitCmd(t, dir, "reset", "-q", "--hard", "HEAD~1")
	write(t, dir, "hello.txt", "hello\nmain\n")
	gitCmd(t, dir, "commit", "-q", "-am", "main side")
	before := head(t, dir, "HEAD")
	if text := s.refused(git.ToolMerge, m{"branch": "feature"}); !strings.Contains(text, "allow_merge_commit") {
		t.Errorf("not a fast-forward: %q", text)
	}
	if text := s.refused(git.ToolMerge, m{"branch": "feature", "allow_merge_commit": true}); !strings.Contains(text, "the merge was aborted") {
		t.Errorf("conflicting merge: %q", text)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git", "MERGE_HEAD")); err == nil {
		t.Error("a merge is left in progress")
	}
	if st := gitCmd(t, dir, "status", "--porcelain"); st != "" || head(t, dir, "HEAD") != before {
		t.Errorf("the aborted merge left changes:\n%s", st)
	}
	if text := s.refused(git.ToolMerge, m{"branch": "origin/main"}); !strings.Contains(text, "no local branch") {
		t.Errorf("a branch that is not local: %q", text)
	}
}

// TestGitTag: list, create lightweight and annotated, refuse a name that
// exists or is not a tag name.
func TestGitTag(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	if text := s.ok(git.ToolTag, m{"action": "list"}); text != "No tags" {
		t.Errorf("list: %q", text)
	}
	s.ok(git.ToolTag, m{"action": "create", "name": "v1"})
	s.ok(git.ToolTag, m{"action": "create", "name": "v2", "target": "HEAD", "message": "-release two"})
	if text := s.ok(git.ToolTag, m{"action": "list"}); text != "v1\nv2" {
		t.Errorf("list: %q", text)
	}
	if typ := strings.TrimSpace(gitCmd(t, dir, "cat-file", "-t", "v2")); typ != "tag" {
		t.Errorf("v2 is a %s, want an annotated tag", typ)
	}
	if text := s.refused(git.ToolTag, m{"action": "create", "name": "v1"}); !strings.Contains(text, "already exists") {
		t.Errorf("existing tag: %q", text)
	}
	s.refused(git.ToolTag, m{"action": "create", "name": "v3", "target": "--all"})
	s.refused(git.ToolTag, m{"action": "delete", "name": "v1"})
}
