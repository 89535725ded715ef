package git_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tests of this file try the classes of attack the official server
// was found open to (CVE-2026-27735 and the argument-injection fixes that
// followed it): every one must be refused with a tool error and leave the
// repository and the file system as they were.

// snapshot records what an attack must not change: the refs, HEAD, the
// index, and a canary path outside the repository that must not appear.
type snapshot struct {
	refs, head, index string
}

func take(t *testing.T, dir string) snapshot {
	t.Helper()
	return snapshot{
		refs:  gitCmd(t, dir, "for-each-ref"),
		head:  gitCmd(t, dir, "rev-parse", "--symbolic-full-name", "HEAD") + gitCmd(t, dir, "rev-parse", "HEAD"),
		index: gitCmd(t, dir, "ls-files", "--stage"),
	}
}

func (s snapshot) same(t *testing.T, dir, what string) {
	t.Helper()
	if now := take(t, dir); now != s {
		t.Errorf("%s changed the repository:\nbefore %+v\nafter  %+v", what, s, now)
	}
}

func absent(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("%s created %s", what, path)
	}
}

// optionValues are values that git would read as options; the ones with
// a path write a file when git takes them as an option.
func optionValues(out string) []string {
	return []string{"--output=" + out, "-p", "--help", "-f", "--orphan=evil", "-D", "--exec=touch " + out, "--upload-pack=touch " + out, "-o" + out, "-"}
}

func TestGitDiffRefusesOptionTarget(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	out := filepath.Join(t.TempDir(), "pwned")
	before := take(t, dir)
	for _, v := range optionValues(out) {
		if got := s.refused("git_diff", m{"target": v}); !strings.Contains(got, "cannot start with '-'") {
			t.Errorf("git_diff %q: %s", v, got)
		}
	}
	absent(t, out, "git_diff")
	before.same(t, dir, "git_diff")
}

func TestGitCheckoutRefusesOptionBranch(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	out := filepath.Join(t.TempDir(), "pwned")
	before := take(t, dir)
	for _, v := range optionValues(out) {
		s.refused("git_checkout", m{"branch_name": v})
	}
	absent(t, out, "git_checkout")
	before.same(t, dir, "git_checkout")
}

func TestGitShowRefusesOptionRevision(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	out := filepath.Join(t.TempDir(), "pwned")
	before := take(t, dir)
	for _, v := range optionValues(out) {
		s.refused("git_show", m{"revision": v})
	}
	absent(t, out, "git_show")
	before.same(t, dir, "git_show")
}

func TestGitCreateBranchRefusesOptionNames(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	out := filepath.Join(t.TempDir(), "pwned")
	before := take(t, dir)
	for _, v := range optionValues(out) {
		s.refused("git_create_branch", m{"branch_name": v})
		s.refused("git_create_branch", m{"branch_name": "ok", "base_branch": v})
	}
	absent(t, out, "git_create_branch")
	before.same(t, dir, "git_create_branch")
}

func TestGitLogRefusesOptionTimestamps(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	out := filepath.Join(t.TempDir(), "pwned")
	before := take(t, dir)
	for _, v := range optionValues(out) {
		s.refused("git_log", m{"start_timestamp": v})
		s.refused("git_log", m{"end_timestamp": v})
	}
	absent(t, out, "git_log")
	before.same(t, dir, "git_log")
}

func TestGitBranchRefusesOptionCommits(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	out := filepath.Join(t.TempDir(), "pwned")
	before := take(t, dir)
	for _, v := range optionValues(out) {
		s.refused("git_branch", m{"branch_type": "local", "contains": v})
		s.refused("git_branch", m{"branch_type": "local", "not_contains": v})
	}
	absent(t, out, "git_branch")
	before.same(t, dir, "git_branch")
}

// TestOptionLikeRefThatExists plants a ref whose name starts with '-' in
// .git, as a malicious clone or a file-writing tool could: the tools still
// refuse the name instead of passing it to git.
func TestOptionLikeRefThatExists(t *testing.T) {
	dir := newRepo(t)
	head := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
	for _, name := range []string{"-evil", "--orphan=x"} {
		p := filepath.Join(dir, ".git", "refs", "heads", name)
		if err := os.WriteFile(p, []byte(head+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := serve(t, dir, nil)
	before := take(t, dir)
	for _, name := range []string{"-evil", "--orphan=x"} {
		s.refused("git_checkout", m{"branch_name": name})
		s.refused("git_diff", m{"target": name})
		s.refused("git_show", m{"revision": name})
		s.refused("git_create_branch", m{"branch_name": "x", "base_branch": name})
		s.refused("git_branch", m{"contains": name})
	}
	before.same(t, dir, "an option-like ref")
}

// TestGitAddOutsideRepository is CVE-2026-27735: git_add staged files
// outside the repository.
func TestGitAddOutsideRepository(t *testing.T) {
	dir := newRepo(t)
	parent := filepath.Dir(dir)
	write(t, parent, "outside.txt", "secret\n")
	outsideDir := t.TempDir()
	write(t, outsideDir, "secret.txt", "secret\n")
	if err := os.Symlink(outsideDir, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "inner/file.txt", "in\n")
	if err := os.Symlink(filepath.Join(dir, "inner"), filepath.Join(dir, "innerlink")); err != nil {
		t.Fatal(err)
	}
	s := serve(t, dir, nil)
	before := take(t, dir)
	for _, p := range []string{
		"../outside.txt",                        // .. out of the tree
		"inner/../../outside.txt",               // .. after a real directory
		filepath.Join(parent, "outside.txt"),    // absolute, outside
		dir + "/../outside.txt",                 // absolute, through ..
		filepath.Join(outsideDir, "secret.txt"), // absolute, elsewhere
		"linkdir/secret.txt",                    // through a symbolic link out of the tree
		"innerlink/file.txt",                    // through a symbolic link inside it (git refuses it too)
		".git/config",                           // the repository's own files
		".GIT/hooks/pre-commit",                 // the same on a case-insensitive file system
		"inner/../.git/HEAD",                    // the same, through ..
	} {
		if got := s.refused("git_add", m{"files": []string{"hello.txt", p}}); got == "" {
			t.Errorf("git_add %q: empty error", p)
		}
	}
	before.same(t, dir, "git_add outside the repository")
	if staged := gitCmd(t, dir, "ls-files"); strings.Contains(staged, "secret") || strings.Contains(staged, "outside") {
		t.Errorf("staged: %s", staged)
	}
}

// TestGitAddStagesASymlinkItself: a symbolic link pointing out of the
// tree is staged as a link (its target's path), never the file it points
// to, as git does.
func TestGitAddStagesASymlinkItself(t *testing.T) {
	dir := newRepo(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret\n"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "link"))
	s := serve(t, dir, nil)
	s.ok("git_add", m{"files": []string{"link"}})
	mode := strings.Fields(gitCmd(t, dir, "ls-files", "--stage", "link"))[0]
	blob := gitCmd(t, dir, "cat-file", "-p", ":link")
	if mode != "120000" || blob != outside {
		t.Errorf("staged link: mode %s, content %q", mode, blob)
	}
}

// TestGitAddOptionLikeAndMagicPaths: paths are never options ("--") nor
// pathspec magic (--literal-pathspecs): a file named "--all" stages only
// itself, and ":(glob)*" or ":/" match nothing but files of that name.
func TestGitAddOptionLikeAndMagicPaths(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, "--all", "x\n")
	write(t, dir, "other.txt", "x\n")
	s := serve(t, dir, nil)
	s.ok("git_add", m{"files": []string{"--all"}})
	if got := gitCmd(t, dir, "diff", "--cached", "--name-only"); got != "--all\n" {
		t.Errorf("staged after adding --all: %q", got)
	}
	for _, p := range []string{":(glob)*", ":/", ":(top)other.txt", "*.txt"} {
		s.refused("git_add", m{"files": []string{p}})
	}
	if got := gitCmd(t, dir, "diff", "--cached", "--name-only"); got != "--all\n" {
		t.Errorf("staged after pathspec magic: %q", got)
	}
}

// TestRepoPathOutsideRepository: repo_path cannot move the tools to
// another repository, by a path elsewhere, "..", a symbolic link or a
// directory inside the served one.
func TestRepoPathOutsideRepository(t *testing.T) {
	dir := newRepo(t)
	other := newRepo(t)
	write(t, other, "hello.txt", "changed in the other repository\n")
	os.Symlink(other, filepath.Join(dir, "escape_link"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	s := serve(t, dir, nil)
	paths := []string{
		other,
		dir + "/../" + filepath.Base(filepath.Dir(other)) + "/repo",
		filepath.Join(dir, "escape_link"),
		filepath.Join(dir, "sub"),
		"/",
		filepath.Join(dir, "missing"),
		"relative/elsewhere",
	}
	tools := map[string]m{
		"git_status": {}, "git_diff_unstaged": {}, "git_diff_staged": {}, "git_diff": {"target": "HEAD"},
		"git_commit": {"message": "x"}, "git_add": {"files": []string{"hello.txt"}}, "git_reset": {},
		"git_log": {}, "git_create_branch": {"branch_name": "x"}, "git_checkout": {"branch_name": "main"},
		"git_show": {"revision": "HEAD"}, "git_branch": {"branch_type": "local"},
	}
	before, beforeOther := take(t, dir), take(t, other)
	for name, args := range tools {
		for _, p := range paths {
			a := m{"repo_path": p}
			for k, v := range args {
				a[k] = v
			}
			if got := s.refused(name, a); !strings.Contains(got, "repository") {
				t.Errorf("%s repo_path %s: %s", name, p, got)
			}
		}
	}
	before.same(t, dir, "repo_path")
	beforeOther.same(t, other, "repo_path")
}

// TestGitEnvironmentCannotRedirect: GIT_DIR, GIT_WORK_TREE and
// GIT_INDEX_FILE in the server's environment do not move the tools to
// another repository.
func TestGitEnvironmentCannotRedirect(t *testing.T) {
	dir := newRepo(t)
	other := newRepo(t)
	write(t, dir, "mine.txt", "x\n")
	s := serve(t, dir, nil)
	beforeOther := take(t, other)
	for k, v := range map[string]string{"GIT_DIR": filepath.Join(other, ".git"), "GIT_WORK_TREE": other, "GIT_INDEX_FILE": filepath.Join(other, ".git", "index")} {
		t.Setenv(k, v)
	}
	s.ok("git_add", m{"files": []string{"mine.txt"}})
	status := s.ok("git_status", m{})
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"} {
		os.Unsetenv(k)
	}
	if !strings.Contains(status, "new file:   mine.txt") {
		t.Errorf("git_status did not see the served repository:\n%s", status)
	}
	beforeOther.same(t, other, "GIT_* variables")
}

// TestCommitMessageIsNotAnOption: a message that looks like options is a
// message.
func TestCommitMessageIsNotAnOption(t *testing.T) {
	dir := newRepo(t)
	s := serve(t, dir, nil)
	first := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD"))
	write(t, dir, "a.txt", "a\n")
	s.ok("git_add", m{"files": []string{"a.txt"}})
	s.ok("git_commit", m{"message": "--amend --no-edit --author=evil <e@x>"})
	if parent := strings.TrimSpace(gitCmd(t, dir, "rev-parse", "HEAD~1")); parent != first {
		t.Errorf("the commit amended the previous one")
	}
	if got := gitCmd(t, dir, "log", "-1", "--format=%an|%B"); got != "Test Author|--amend --no-edit --author=evil <e@x>\n\n" {
		t.Errorf("commit = %q", got)
	}
}
