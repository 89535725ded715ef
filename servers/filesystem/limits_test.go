package filesystem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("big.txt", strings.Repeat("x", 200))
	write("long-lines.txt", strings.Repeat("y", 80)+"\n"+strings.Repeat("y", 80)+"\n")
	write("a.txt", strings.Repeat("a", 60))
	write("b.txt", strings.Repeat("b", 60))
	write("small.txt", "small\n")
	os.Mkdir(filepath.Join(dir, "many"), 0o755)
	for _, n := range []string{"1", "2", "3", "4", "5", "6"} {
		os.WriteFile(filepath.Join(dir, "many", n), nil, 0o644)
	}
	cs := startOurs(t, []string{dir}, &Options{MaxReadBytes: 100, MaxWriteBytes: 10, MaxEntries: 5}, "2025-11-25", nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_text_file", a("path", "big.txt"), "File too large: {root}/big.txt has 200 bytes, more than the limit of 100 bytes for one call; read part of it with head or tail"},
		{"read_media_file", a("path", "big.txt"), "File too large"},
		{"read_text_file", a("path", "long-lines.txt", "head", 2), "the first 2 lines of {root}/long-lines.txt are more than the limit of 100 bytes"},
		{"read_text_file", a("path", "long-lines.txt", "tail", 2), "the last 2 lines of {root}/long-lines.txt are more than the limit of 100 bytes"},
		{"write_file", a("path", "new.txt", "content", "0123456789X"), "Content too large: 11 bytes, more than the limit of 10 bytes that write_file writes"},
		{"edit_file", a("path", "small.txt", "edits", []map[string]any{{"oldText": "small", "newText": "much larger"}}), "the edited file would have 12 bytes"},
		{"list_directory", a("path", "many"), "Too many entries: this call would list or visit more than 5 directory entries"},
		{"list_directory_with_sizes", a("path", "many"), "Too many entries"},
		{"directory_tree", a("path", "."), "Too many entries"},
		{"search_files", a("path", ".", "pattern", "**"), "Too many entries"},
	} {
		r := callTool(t, cs, dir, c.tool, c.args)
		if !r.IsError || !strings.Contains(r.Text, c.want) {
			t.Errorf("%s %v: %+v, want an error with %q", c.tool, c.args, r, c.want)
		}
	}
	r := callTool(t, cs, dir, "read_multiple_files", a("paths", []string{"a.txt", "b.txt"}))
	if !strings.Contains(r.Text, "a.txt:\n"+strings.Repeat("a", 60)) || !strings.Contains(r.Text, "b.txt: Error - File too large: {root}/b.txt has 60 bytes; with the files before it, that is more than the limit of 100 bytes") {
		t.Errorf("read_multiple_files over the limit: %s", r.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Error("a write over the limit created its file")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "small.txt")); string(b) != "small\n" {
		t.Errorf("an edit over the limit changed the file: %q", b)
	}
}

func TestEditRefusesInvalidUTF8(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "latin1.txt")
	os.WriteFile(p, []byte("caf\xe9\nabc\n"), 0o644)
	cs := startOurs(t, []string{dir}, nil, "2025-11-25", nil)
	r := callTool(t, cs, dir, "edit_file", a("path", "latin1.txt", "edits", []map[string]any{{"oldText": "abc", "newText": "xyz"}}))
	if !r.IsError || !strings.Contains(r.Text, "not UTF-8") {
		t.Errorf("edit of a Latin-1 file: %+v", r)
	}
	if b, _ := os.ReadFile(p); string(b) != "caf\xe9\nabc\n" {
		t.Errorf("the file changed: %q", b)
	}
}
