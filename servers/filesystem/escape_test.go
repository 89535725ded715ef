package filesystem

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
)

// escapeFixture makes an allowed directory and, beside it, an outside
// directory that no call may touch, with links from the one to the other.
func escapeFixture(t *testing.T) (allowed, outside string) {
	t.Helper()
	base := t.TempDir()
	allowed, outside = filepath.Join(base, "allowed"), filepath.Join(base, "outside")
	for _, d := range []string{allowed, outside, filepath.Join(outside, "dir"), filepath.Join(allowed, "sub"), filepath.Join(allowed, "real")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.txt"), "line: TOP SECRET\n")
	write(filepath.Join(outside, "dir", "f.txt"), "line: TOP SECRET\n")
	write(filepath.Join(allowed, "inside.txt"), "line: inside\n")
	write(filepath.Join(allowed, "real", "f.txt"), "line: inside\n")
	links := map[string]string{
		"out":         outside,      // absolute, to a directory
		"rel-out":     "../outside", // relative, to a directory
		"secret-link": filepath.Join(outside, "secret.txt"),
		"dangling":    filepath.Join(outside, "new.txt"), // leads to nothing, outside
		"chain":       "chain2",
		"chain2":      "rel-out/secret.txt",
		"sub/up":      "../../outside/dir",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(allowed, name)); err != nil {
			t.Fatal(err)
		}
	}
	return allowed, outside
}

// TestEscapes tries to leave the allowed directory with every tool, by
// .., absolute paths and links: each attempt fails with a tool error and
// the outside tree is left byte for byte as it was.
func TestEscapes(t *testing.T) {
	allowed, outside := escapeFixture(t)
	before := snapshot(t, outside)
	cs := startOurs(t, []string{allowed}, nil, "2025-11-25", nil)
	paths := []string{
		"../outside/secret.txt",
		"{root}/../outside/secret.txt",
		"sub/../../outside/secret.txt",
		outside + "/secret.txt",
		"/etc/passwd",
		"out/secret.txt",
		"out/dir",
		"rel-out/secret.txt",
		"secret-link",
		"dangling",
		"chain",
		"sub/up/f.txt",
		"out",
		"out/new-dir/x",
		"rel-out/dir/new.txt",
	}
	for _, p := range paths {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"read_text_file", a("path", p)},
			{"read_text_file", a("path", p, "tail", 1)},
			{"read_text_file", a("path", p, "head", 1)},
			{"read_file", a("path", p)},
			{"read_media_file", a("path", p)},
			{"write_file", a("path", p, "content", "PWNED")},
			{"edit_file", a("path", p, "edits", []map[string]any{{"oldText": "line:", "newText": "PWNED:"}})},
			{"create_directory", a("path", p)},
			{"list_directory", a("path", p)},
			{"list_directory_with_sizes", a("path", p)},
			{"directory_tree", a("path", p)},
			{"search_files", a("path", p, "pattern", "**")},
			{"get_file_info", a("path", p)},
			{"move_file", a("source", p, "destination", "{root}/stolen")},
			{"move_file", a("source", "{root}/inside.txt", "destination", p)},
		} {
			r := callTool(t, cs, allowed, c.tool, c.args)
			if !r.IsError {
				t.Errorf("%s %v succeeded: %s", c.tool, c.args, r.Text)
			}
			if strings.Contains(r.Text, "TOP SECRET") {
				t.Errorf("%s %v revealed the outside: %s", c.tool, c.args, r.Text)
			}
		}
	}
	// read_multiple_files reports each failure in its text.
	r := callTool(t, cs, allowed, "read_multiple_files", a("paths", paths))
	if strings.Contains(r.Text, "TOP SECRET") || strings.Count(r.Text, "Error - ") != len(paths) {
		t.Errorf("read_multiple_files: %s", r.Text)
	}
	// Searches and listings of the allowed directory neither follow nor
	// reveal the links that lead out.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"search_files", a("path", "{root}", "pattern", "**")},
		{"directory_tree", a("path", "{root}")},
		{"list_directory_with_sizes", a("path", "{root}")},
	} {
		r := callTool(t, cs, allowed, c.tool, c.args)
		if r.IsError || strings.Contains(r.Text, "secret.txt") || strings.Contains(r.Text, "f.txt\n") && c.tool == "search_files" && strings.Contains(r.Text, "up/f.txt") {
			t.Errorf("%s: %s", c.tool, r.Text)
		}
		if c.tool == "list_directory_with_sizes" && !regexp.MustCompile(`\[FILE\] secret-link +unknown\n`).MatchString(r.Text) {
			t.Errorf("a link leading out shows a size:\n%s", r.Text)
		}
	}
	if d := diffSnapshots(before, snapshot(t, outside)); d != "" {
		t.Errorf("the outside tree changed:\n%s", d)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("a write through a dangling link created a file outside")
	}
}

// TestEscapeDetection checks that os.Root still words its refusal of an
// escaping path as isEscape expects.
func TestEscapeDetection(t *testing.T) {
	r, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.Open("../x")
	if !isEscape(err) {
		t.Errorf("isEscape(%v) = false", err)
	}
}

var _ = client.Options{}
