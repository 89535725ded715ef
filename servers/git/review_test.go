package git_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/servers/git"
)

// TestGitStashPopUndoRemovesRestoredUntracked: a pop of a stash made
// with include_untracked restores its untracked files, then stops on a
// conflict in a tracked file; the undo (reset --hard) put the tracked
// files back but left the restored untracked ones, while the tool said
// "the working tree is as it was" and kept the entry, whose next pop then
// failed on them ("already exists"). The undo now removes the stash's
// untracked files that the pop created, and only those.
func TestGitStashPopUndoRemovesRestoredUntracked(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	write(t, dir, "hello.txt", "hello\nstashed\n")
	write(t, dir, "untracked.txt", "u\n")
	s.ok(git.ToolStash, m{"action": "push", "include_untracked": true})
	write(t, dir, "hello.txt", "hello\ncommitted meanwhile\n")
	gitCmd(t, dir, "commit", "-q", "-am", "meanwhile")
	write(t, dir, "mine.txt", "an untracked file of the user's\n")
	if text := s.refused(git.ToolStash, m{"action": "pop"}); !strings.Contains(text, "the pop was undone") {
		t.Fatalf("conflicting pop: %q", text)
	}
	if st := gitCmd(t, dir, "status", "--porcelain"); st != "?? mine.txt\n" {
		t.Errorf("after the undone pop, git status says:\n%s\nwant only the user's own untracked file", st)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "mine.txt")); err != nil || string(b) != "an untracked file of the user's\n" {
		t.Errorf("the user's untracked file: %q, %v", b, err)
	}
	// A pop that fails because one of its untracked files exists leaves
	// that file alone.
	write(t, dir, "untracked.txt", "the user's own\n")
	s.refused(git.ToolStash, m{"action": "pop"})
	if b, _ := os.ReadFile(filepath.Join(dir, "untracked.txt")); string(b) != "the user's own\n" {
		t.Errorf("an untracked file that was there before the pop: %q", b)
	}
	os.Remove(filepath.Join(dir, "untracked.txt"))
	// The entry is kept, whole, and pops once the conflict is gone.
	gitCmd(t, dir, "reset", "-q", "--hard", "HEAD~1")
	s.ok(git.ToolStash, m{"action": "pop"})
	if b, _ := os.ReadFile(filepath.Join(dir, "untracked.txt")); string(b) != "u\n" {
		t.Errorf("the kept entry's untracked file after a second pop: %q", b)
	}
}
