package git_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestGitStashPopUndoWithAFileWhereADirWas: a stash whose untracked
// files include sub/a.txt, popped where the user now has a file named
// sub: the check of what the pop would create took any error of Lstat
// (here ENOTDIR) for "missing", so the undo tried to remove sub/a.txt,
// failed on ENOTDIR, and said "undoing the pop failed too" though the
// undo had worked. Only a missing file is now one the pop creates.
func TestGitStashPopUndoWithAFileWhereADirWas(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	write(t, dir, "hello.txt", "hello\nstashed\n")
	write(t, dir, "sub/a.txt", "a\n")
	s.ok(git.ToolStash, m{"action": "push", "include_untracked": true})
	write(t, dir, "hello.txt", "hello\ncommitted meanwhile\n")
	gitCmd(t, dir, "commit", "-q", "-am", "meanwhile")
	write(t, dir, "sub", "the user's file\n")
	text := s.refused(git.ToolStash, m{"action": "pop"})
	if strings.Contains(text, "undoing the pop failed") {
		t.Errorf("a pop refused where a file stands for a directory of the stash: %q; want the pop undone without error", text)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub")); err != nil || string(b) != "the user's file\n" {
		t.Errorf("the user's file: %q, %v", b, err)
	}
	if st := gitCmd(t, dir, "status", "--porcelain"); st != "?? sub\n" {
		t.Errorf("after the undone pop, git status says:\n%s\nwant only the user's own untracked file", st)
	}
}

// TestGitKilledAtItsTimeLeavesNoLock: git was killed with SIGKILL at its
// time limit (or when the call was cancelled), so it could not remove
// the lock files it held: a merge stopped while a ref was being updated
// left .git/HEAD.lock or refs/heads/main.lock, and every later command
// that writes the ref failed ("Unable to create '.../HEAD.lock': File
// exists"), the undo of the merge first. Git is now asked to stop
// (SIGTERM, on which it removes its locks) before it is killed.
func TestGitKilledAtItsTimeLeavesNoLock(t *testing.T) {
	dir := newRepo(t)
	gitCmd(t, dir, "checkout", "-q", "-b", "feature")
	write(t, dir, "hello.txt", "hello\nfeature\n")
	gitCmd(t, dir, "commit", "-q", "-am", "feature")
	gitCmd(t, dir, "checkout", "-q", "main")
	marker := filepath.Join(t.TempDir(), "slow")
	hook := "#!/bin/sh\nif [ \"$1\" = prepared ] && [ -e '" + marker + "' ]; then sleep 30; fi\ncat >/dev/null\n"
	if err := os.WriteFile(filepath.Join(dir, ".git", "hooks", "reference-transaction"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	s := serve(t, dir, &git.Options{Timeout: 2 * time.Second})
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	text := s.refused(git.ToolMerge, m{"branch": "feature"})
	os.Remove(marker)
	var locks []string
	filepath.WalkDir(filepath.Join(dir, ".git"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".lock") {
			locks = append(locks, strings.TrimPrefix(p, dir+string(filepath.Separator)))
		}
		return nil
	})
	if len(locks) > 0 {
		t.Errorf("a merge stopped at its time limit left %v; the call said: %q", locks, text)
	}
	// The repository is usable: the same merge succeeds.
	if text := s.ok(git.ToolMerge, m{"branch": "feature"}); !strings.HasPrefix(text, "Merged 'feature'") {
		t.Errorf("the merge after: %q", text)
	}
}
