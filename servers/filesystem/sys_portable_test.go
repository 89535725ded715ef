package filesystem

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPortableSys: the forms of the system-dependent operations that
// macOS and Windows run, tested here on any system.
func TestPortableSys(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	sub, err := root.OpenRoot("sub")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	t.Run("renameNoReplace", func(t *testing.T) {
		if err := portableRenameNoReplace(root, "a.txt", root, "b.txt"); !errors.Is(err, fs.ErrExist) {
			t.Errorf("onto an existing file: %v, want fs.ErrExist", err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(b) != "b.txt" {
			t.Errorf("b.txt was replaced: %q", b)
		}
		if err := portableRenameNoReplace(root, "a.txt", sub, "a.txt"); err == nil {
			t.Error("a move between two directories succeeded; it is refused off Linux")
		}
		if err := portableRenameNoReplace(root, "a.txt", root, "c.txt"); err != nil {
			t.Errorf("to a new name: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "c.txt")); err != nil {
			t.Errorf("c.txt: %v", err)
		}
	})
	t.Run("listDir", func(t *testing.T) {
		f, err := root.Open(".")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		got, err := portableListDir(root, f, 10)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range got {
			names = append(names, e.name)
			if e.name == "sub" && !e.typ.IsDir() {
				t.Errorf("sub is listed as %v", e.typ)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"b.txt", "c.txt", "sub"}) {
			t.Errorf("listed %v", names)
		}
		f2, err := root.Open(".")
		if err != nil {
			t.Fatal(err)
		}
		defer f2.Close()
		if _, err := portableListDir(root, f2, 2); err == nil {
			t.Error("3 entries with a limit of 2: no error")
		}
	})
	t.Run("stat", func(t *testing.T) {
		fi, err := root.Lstat("b.txt")
		if err != nil {
			t.Fatal(err)
		}
		perm, atime, links := portableStatDetails(fi)
		if perm != 0o640 || !atime.Equal(fi.ModTime()) || links != 1 {
			t.Errorf("statDetails = %o, %v, %d", perm, atime, links)
		}
		if bt := portableBirthTime(root, "b.txt"); !bt.Equal(fi.ModTime()) {
			t.Errorf("birthTime = %v, want the modification time %v", bt, fi.ModTime())
		}
		if bt := portableBirthTime(root, "nothing"); !bt.Equal(time.Unix(0, 0)) {
			t.Errorf("birthTime of nothing = %v", bt)
		}
	})
	t.Run("currentPath", func(t *testing.T) {
		f, err := root.Open("sub")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if p, ok := portableCurrentPath(f); ok || p != "" {
			t.Errorf("currentPath = %q, %v; it cannot tell off Linux", p, ok)
		}
	})
}
