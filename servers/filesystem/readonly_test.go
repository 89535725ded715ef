package filesystem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyDirFollowsRenames: a read-only directory stays read-only
// when it is renamed, or a directory above it is, to a place inside the
// allowed directories (by another process: move_file refuses to), and
// when it is reached through a symbolic link.
func TestReadOnlyDirFollowsRenames(t *testing.T) {
	root := t.TempDir()
	flagsTree(t, root)
	rw, ro := filepath.Join(root, "rw"), filepath.Join(root, "rw", "lib", "ro")
	cs := startOurs(t, []string{rw}, &Options{ReadOnlyDirs: []string{ro}}, "2025-11-25", nil)
	refused := func(path string) {
		t.Helper()
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"write_file", a("path", path, "content", "x")},
			{"append_file", a("path", path, "content", "x")},
			{"edit_file", a("path", path, "edits", []map[string]any{{"oldText": "y", "newText": "Y"}}, "dryRun", true)},
			{"copy_file", a("source", filepath.Join(rw, "a.txt"), "destination", path+".copy")},
		} {
			if r := callTool(t, cs, "", c.tool, c.args); !r.IsError || !strings.HasPrefix(r.Text, "Access denied - read-only directory: ") {
				t.Errorf("%s %s: %+v", c.tool, path, r)
			}
		}
		if b, _ := os.ReadFile(path); string(b) != "y\n" {
			t.Errorf("%s was changed: %q", path, b)
		}
	}
	refused(filepath.Join(ro, "y.txt"))
	if err := os.Symlink(ro, filepath.Join(rw, "link-to-ro")); err != nil {
		t.Fatal(err)
	}
	refused(filepath.Join(rw, "link-to-ro", "y.txt"))
	// Renamed itself, then a directory above it.
	moved := filepath.Join(rw, "moved-ro")
	if err := os.Rename(ro, moved); err != nil {
		t.Fatal(err)
	}
	refused(filepath.Join(moved, "y.txt"))
	if err := os.Rename(filepath.Join(rw, "lib"), filepath.Join(rw, "lib-renamed")); err != nil {
		t.Fatal(err)
	}
	refused(filepath.Join(moved, "y.txt"))
	// A move whose source holds it is refused too.
	if err := os.Rename(moved, filepath.Join(rw, "lib-renamed", "deep-ro")); err != nil {
		t.Fatal(err)
	}
	if r := callTool(t, cs, "", "move_file", a("source", filepath.Join(rw, "lib-renamed"), "destination", filepath.Join(rw, "elsewhere"))); !r.IsError || !strings.Contains(r.Text, " contains ") {
		t.Errorf("moving a directory that holds the renamed read-only one: %+v", r)
	}
	// Writing beside it is still allowed.
	if r := callTool(t, cs, "", "write_file", a("path", filepath.Join(rw, "lib-renamed", "free.txt"), "content", "ok")); r.IsError {
		t.Errorf("a write beside the read-only directory: %+v", r)
	}
}
