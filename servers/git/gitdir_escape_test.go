package git_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/servers/git"
)

// The tests of this file try the class of CVE-2026-134465 (mcp-server-git):
// a .git file whose "gitdir:" line points outside the served repository,
// or a setting that moves git's work tree, makes git work on another
// repository or tree than the one it was started for. Each variant must be
// refused (core.worktree, which git is no longer left to read, stays
// confined to the served tree); no result may show anything of the
// repository outside (its commits, its files, its HEAD), and nothing
// outside may change.

// outside is a repository beside the served one, with a secret.
type outside struct {
	dir, head string
	before    map[string]string
}

func newOutside(t *testing.T) *outside {
	t.Helper()
	dir := newRepo(t)
	write(t, dir, "secret.txt", "OUTSIDE-SECRET\n")
	gitCmd(t, dir, "add", "secret.txt")
	commitAt(t, dir, "outside secret commit", "2024-02-01T10:00:00+00:00")
	write(t, dir, "secret.txt", "OUTSIDE-SECRET changed\n")
	o := &outside{dir: dir, head: strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))}
	o.before = tree(t, dir)
	return o
}

// gitDir is the outside repository's git directory.
func (o *outside) gitDir() string { return filepath.Join(o.dir, ".git") }

// unseen fails if text shows anything of the outside repository.
func (o *outside) unseen(t *testing.T, what, text string) {
	t.Helper()
	for _, secret := range []string{"OUTSIDE-SECRET", "outside secret commit", o.head, o.head[:7]} {
		if strings.Contains(text, secret) {
			t.Errorf("%s shows %q of the repository outside:\n%s", what, secret, text)
		}
	}
}

// unchanged fails if a file of the outside repository, its git directory
// included, was changed, added or removed.
func (o *outside) unchanged(t *testing.T) {
	t.Helper()
	now := tree(t, o.dir)
	for p, sum := range o.before {
		if now[p] != sum {
			t.Errorf("outside, %s changed", p)
		}
	}
	for p := range now {
		if _, ok := o.before[p]; !ok {
			t.Errorf("outside, %s appeared", p)
		}
	}
}

// tree maps every file under dir to a digest of its kind and content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil && d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = d.Type().String() + hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// everyTool is a call of each of the twelve tools, with arguments that
// would succeed on an ordinary repository.
func everyTool() []struct {
	name string
	args m
} {
	return []struct {
		name string
		args m
	}{
		{"git_status", m{}}, {"git_diff_unstaged", m{}}, {"git_diff_staged", m{}}, {"git_diff", m{"target": "main"}},
		{"git_log", m{}}, {"git_show", m{"revision": "HEAD"}}, {"git_branch", m{"branch_type": "all"}},
		{"git_add", m{"files": []string{"hello.txt"}}}, {"git_reset", m{}}, {"git_commit", m{"message": "m"}},
		{"git_create_branch", m{"branch_name": "made"}}, {"git_checkout", m{"branch_name": "main"}},
	}
}

// TestCVE2026134465NestedGitFile: a directory of the tree whose .git file
// points to a repository outside. repo_path naming it is refused in every
// tool; git_add of it, of a path inside it, or of a directory holding it
// is refused (git would record the outside repository's HEAD); git_status
// shows the directory, nothing of what it points to.
func TestCVE2026134465NestedGitFile(t *testing.T) {
	o := newOutside(t)
	real, err := filepath.EvalSymlinks(o.gitDir())
	if err != nil {
		t.Fatal(err)
	}
	// Absolute, and relative to the nested directory (.../00N/repo/nested
	// to .../00M/repo/.git).
	for _, gitdir := range []string{o.gitDir(), "../../../" + filepath.Base(filepath.Dir(o.dir)) + "/repo/.git"} {
		dir := newRepo(t)
		write(t, dir, "nested/.git", "gitdir: "+gitdir+"\n")
		write(t, dir, "nested/file.txt", "nested\n")
		write(t, dir, "deeper/nested/.git", "gitdir: "+o.gitDir()+"\n")
		if got := strings.TrimSpace(gitCmd(t, filepath.Join(dir, "nested"), "rev-parse", "--absolute-git-dir")); got != real {
			t.Fatalf("git finds the nested repository's git directory at %s, not outside at %s", got, real)
		}
		s := serve(t, dir, nil)
		before := take(t, dir)
		for _, c := range everyTool() {
			c.args["repo_path"] = filepath.Join(dir, "nested")
			text := s.refused(c.name, c.args)
			o.unseen(t, c.name+" in nested", text)
		}
		for _, p := range []string{"nested", "nested/", "nested/file.txt", "nested/.git", ".", "deeper", "deeper/nested", filepath.Join(dir, "nested")} {
			text := s.refused("git_add", m{"files": []string{p}})
			o.unseen(t, "git_add "+p, text)
		}
		before.same(t, dir, "git_add of a nested repository")
		text, _ := s.call("git_status", m{})
		o.unseen(t, "git_status", text)
		for _, c := range everyTool() {
			text, _ := s.call(c.name, c.args)
			o.unseen(t, c.name, text)
		}
	}
	o.unchanged(t)
}

// TestCVE2026134465TopGitFile: the repository's own .git is a file (or a
// link) pointing outside, or a directory whose commondir file does. Open
// refuses it; and if it becomes one after Open, every tool refuses to run.
func TestCVE2026134465TopGitFile(t *testing.T) {
	o := newOutside(t)
	ctx := context.Background()
	plant := map[string]func(t *testing.T, dir string){
		"a .git file": func(t *testing.T, dir string) {
			write(t, dir, ".git", "gitdir: "+o.gitDir()+"\n")
		},
		"a .git link": func(t *testing.T, dir string) {
			if err := os.Symlink(o.gitDir(), filepath.Join(dir, ".git")); err != nil {
				t.Fatal(err)
			}
		},
		"a commondir file": func(t *testing.T, dir string) {
			gitCmd(t, dir, "init", "-q")
			write(t, dir, ".git/commondir", o.gitDir()+"\n")
		},
	}
	for name, plant := range plant {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "repo")
			write(t, dir, "hello.txt", "hello\n")
			plant(t, dir)
			if r, err := git.Open(ctx, dir, nil); err == nil {
				s := serve(t, dir, nil)
				text, _ := s.call("git_log", m{})
				t.Errorf("Open accepted %s pointing outside (root %s); git_log: %s", name, r.Root(), text)
			} else if !strings.Contains(err.Error(), "git directory") {
				t.Errorf("Open: %v", err)
			}

			dir = newRepo(t)
			s := serve(t, dir, nil)
			if err := os.Rename(filepath.Join(dir, ".git"), filepath.Join(dir, "real.git")); err != nil {
				t.Fatal(err)
			}
			if name == "a commondir file" {
				os.Rename(filepath.Join(dir, "real.git"), filepath.Join(dir, ".git"))
			}
			plant(t, dir)
			for _, c := range everyTool() {
				text := s.refused(c.name, c.args)
				o.unseen(t, c.name, text)
			}
		})
	}
	t.Run("another directory", func(t *testing.T) {
		dir := newRepo(t)
		s := serve(t, dir, nil)
		os.Rename(filepath.Join(dir, ".git"), filepath.Join(dir, "real.git"))
		gitCmd(t, dir, "init", "-q")
		for _, c := range everyTool() {
			s.refused(c.name, c.args)
		}
	})
	o.unchanged(t)
}

// TestCVE2026134465CoreWorktree: core.worktree in the repository's
// configuration names a directory outside. Open refuses it (the top of
// the work tree is not the directory given); set after Open, git is given
// the served tree explicitly and never reads or writes the other:
// git_status and the diffs show nothing of it, git_add cannot stage its
// files and git_checkout does not write there.
func TestCVE2026134465CoreWorktree(t *testing.T) {
	o := newOutside(t)
	dir := newRepo(t)
	gitCmd(t, dir, "config", "core.worktree", o.dir)
	if _, err := git.Open(context.Background(), dir, nil); err == nil || !strings.Contains(err.Error(), "not the top directory") {
		t.Errorf("Open with core.worktree outside: %v", err)
	}
	gitCmd(t, dir, "config", "--unset", "core.worktree")
	gitCmd(t, dir, "checkout", "-q", "-b", "other")
	write(t, dir, "hello.txt", "other branch\n")
	write(t, dir, "secret.txt", "the served repository's own\n")
	gitCmd(t, dir, "add", "hello.txt", "secret.txt")
	commitAt(t, dir, "other", "2024-01-02T10:00:00+00:00")
	gitCmd(t, dir, "checkout", "-q", "main")
	s := serve(t, dir, nil)
	gitCmd(t, dir, "config", "core.worktree", o.dir)

	s.refused("git_add", m{"files": []string{"secret.txt"}}) // only outside
	for _, c := range everyTool() {
		text, _ := s.call(c.name, c.args)
		o.unseen(t, c.name, text)
	}
	s.ok("git_checkout", m{"branch_name": "other"})
	if b, _ := os.ReadFile(filepath.Join(dir, "hello.txt")); string(b) != "other branch\n" {
		t.Errorf("git_checkout did not write the served tree: hello.txt = %q", b)
	}
	s.ok("git_checkout", m{"branch_name": "main"})
	text, _ := s.call("git_status", m{})
	if !strings.Contains(text, "nothing to commit, working tree clean") {
		t.Errorf("git_status of the served tree:\n%s", text)
	}
	o.unchanged(t)
}

// TestCVE2026134465Submodule: a submodule whose .git file points to a
// repository outside. repo_path naming the submodule is refused in every
// tool; git_add of it, of a path in it, or of "." is refused; git_status,
// the diffs of the working tree and git_commit with nothing staged do not
// look into it (git would run git status in the outside repository and
// show its HEAD).
func TestCVE2026134465Submodule(t *testing.T) {
	o := newOutside(t)
	dir := newRepo(t)
	recorded := strings.TrimSpace(gitCmd(t, o.dir, "rev-parse", "HEAD~1")) // what the served repository records
	write(t, dir, ".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = ./sub\n\tignore = none\n")
	write(t, dir, "sub/.git", "gitdir: "+o.gitDir()+"\n")
	write(t, dir, "sub/secret.txt", "checked out\n")
	gitCmd(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+recorded+",sub")
	gitCmd(t, dir, "add", ".gitmodules")
	commitAt(t, dir, "with a submodule", "2024-03-01T10:00:00+00:00")
	s := serve(t, dir, nil)
	before := take(t, dir)
	for _, c := range everyTool() {
		c.args["repo_path"] = filepath.Join(dir, "sub")
		s.refused(c.name, c.args)
	}
	for _, p := range []string{"sub", "sub/secret.txt", ".", filepath.Join(dir, "sub")} {
		text := s.refused("git_add", m{"files": []string{p}})
		o.unseen(t, "git_add "+p, text)
	}
	before.same(t, dir, "git_add of a submodule outside")
	for _, c := range everyTool() {
		text, _ := s.call(c.name, c.args)
		o.unseen(t, c.name, text)
	}
	for _, c := range []struct {
		name string
		args m
	}{{"git_status", m{}}, {"git_diff_unstaged", m{}}, {"git_diff", m{"target": "HEAD~1"}}, {"git_commit", m{"message": "nothing staged"}}} {
		text, _ := s.call(c.name, c.args)
		for _, sign := range []string{"-dirty", "modified content", "new commits"} {
			if strings.Contains(text, sign) {
				t.Errorf("%s looked into the submodule (%q):\n%s", c.name, sign, text)
			}
		}
	}
	o.unchanged(t)
}

// TestSubmoduleInsideIsStaged: a submodule whose git directory is inside
// the repository (.git/modules, as git submodule absorbgitdirs leaves it)
// is the repository's own: git_add stages its new commit.
func TestSubmoduleInsideIsStaged(t *testing.T) {
	dir := newRepo(t)
	sub := newRepo(t)
	gitCmd(t, dir, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", sub, "sub")
	commitAt(t, dir, "with a submodule", "2024-03-01T10:00:00+00:00")
	if b, err := os.ReadFile(filepath.Join(dir, "sub", ".git")); err != nil || !strings.HasPrefix(string(b), "gitdir: ../.git/modules/sub") {
		t.Fatalf("sub/.git = %q, %v; want a gitdir inside the repository", b, err)
	}
	subDir := filepath.Join(dir, "sub")
	gitCmd(t, subDir, "config", "user.name", "Test Author")
	gitCmd(t, subDir, "config", "user.email", "author@example.com")
	write(t, subDir, "new.txt", "new\n")
	gitCmd(t, subDir, "add", "new.txt")
	commitAt(t, subDir, "new in sub", "2024-03-02T10:00:00+00:00")
	head := strings.TrimSpace(gitCmd(t, subDir, "rev-parse", "HEAD"))
	s := serve(t, dir, nil)
	s.ok("git_add", m{"files": []string{"sub"}})
	if staged := gitCmd(t, dir, "ls-files", "--stage", "sub"); !strings.Contains(staged, head) {
		t.Errorf("the submodule's new commit is not staged: %s", staged)
	}
}
