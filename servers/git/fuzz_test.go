package git

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRepoRelative checks the property git_add relies on: a path that
// repoRelative accepts names something inside the working tree, outside
// .git, reached through no symbolic link.
func FuzzRepoRelative(f *testing.F) {
	root := f.TempDir()
	for _, d := range []string{"a/b", ".git/refs", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, "a", "b", "f.txt"), nil, 0o644)
	os.Symlink(os.TempDir(), filepath.Join(root, "out"))
	os.Symlink("a", filepath.Join(root, "in"))
	r := &Repository{root: root}
	for _, s := range []string{".", "a/b/f.txt", "../x", "a/../../x", "/etc/passwd", root + "/a", root + "/../x", "out/x", "in/b", ".git/config", "a/.GIT/x", "c/./../a//b/", "-x", "a\x00b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rt, err := os.OpenRoot(root)
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		rel, err := r.repoRelative(rt, p)
		if err != nil {
			return
		}
		if rel != "." && !filepath.IsLocal(rel) {
			t.Fatalf("%q accepted as %q, which leaves the tree", p, rel)
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		for i, part := range parts {
			if strings.EqualFold(part, ".git") {
				t.Fatalf("%q accepted as %q, inside .git", p, rel)
			}
			if i == len(parts)-1 {
				break
			}
			if info, err := os.Lstat(filepath.Join(root, filepath.Join(parts[:i+1]...))); err == nil && info.Mode()&os.ModeSymlink != 0 {
				t.Fatalf("%q accepted as %q, through a symbolic link", p, rel)
			}
		}
	})
}

// FuzzParseLog checks that any output of git log, whole or cut anywhere,
// parses into whole commits without a panic.
func FuzzParseLog(f *testing.F) {
	f.Add("h1\x00A\x00a@x\x002024-01-01T00:00:00Z\x00msg\n\x00h2\x00B\x00b@x\x002024-01-02T00:00:00Z\x00two\n\nbody\n", false)
	f.Add("h1\x00A\x00a@x\x002024", true)
	f.Fuzz(func(t *testing.T, text string, cut bool) {
		commits := parseLog(text, cut)
		if !cut && len(commits) != (strings.Count(text, "\x00")+1)/5 {
			t.Fatalf("%d commits from %q", len(commits), text)
		}
		for _, c := range commits {
			if strings.Contains(c.Hash+c.Author+c.Email+c.Date+c.Message, "\x00") {
				t.Fatalf("a field holds a NUL: %+v", c)
			}
		}
	})
}
