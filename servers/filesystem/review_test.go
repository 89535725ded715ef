package filesystem

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExcludePatternsBoundedTogether: each of directory_tree's and
// search_files' exclude patterns was compiled on its own, in three forms
// (p, **/p, **/p/**), each brace-expanded up to 1024 patterns, and every
// entry of the walk matched against all of them: a call could ask for
// millions of compiled patterns, matched against each of 200,000 entries.
// The patterns of one call now share one budget of expanded bytes.
func TestExcludePatternsBoundedTogether(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := startOurs(t, []string{dir}, nil, "2025-11-25", nil)
	var many []string
	for i := range 2000 {
		many = append(many, fmt.Sprintf("name-%d-{a,b,c,d}", i))
	}
	for _, tool := range []string{"directory_tree", "search_files"} {
		args := a("path", dir, "excludePatterns", many, "pattern", "**/*.txt")
		if tool == "directory_tree" {
			args = a("path", dir, "excludePatterns", many)
		}
		start := time.Now()
		got := callTool(t, cs, dir, tool, args)
		if !got.IsError || !strings.Contains(got.Text, "Too many or too large exclude patterns") {
			t.Errorf("%s with 2000 exclude patterns of 4 expansions each (24,000 patterns): isError %v after %v, %.200q; want the patterns refused", tool, got.IsError, time.Since(start), got.Text)
		}
		// A usual list is taken.
		args["excludePatterns"] = []string{"node_modules", "**/*.{js,ts,jsx,tsx}", "dist/**", ".git"}
		if got := callTool(t, cs, dir, tool, args); got.IsError {
			t.Errorf("%s with four usual exclude patterns: %s", tool, got.Text)
		}
	}
}

// TestEditMatchingWorkBounded: edit_file's whitespace-tolerant matcher
// compared every line of oldText at every line of the file, without
// bound: an oldText of thousands of lines "x" against a file of tens of
// thousands of lines "x" (the last line of oldText differing) took
// seconds, and grows as the product (hours within the message and file
// bounds); so did thousands of edits of a large file. The edits of a call
// now share a work budget.
func TestEditMatchingWorkBounded(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat("x\n", 40_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := startOurs(t, []string{dir}, nil, "2025-11-25", nil)
	old := strings.Repeat("x\n", 2000) + "y"
	start := time.Now()
	got := callTool(t, cs, dir, "edit_file", a("path", file, "edits", []map[string]any{{"oldText": old, "newText": "z"}}, "dryRun", true))
	if !got.IsError || !strings.Contains(got.Text, "The edits need too much work") {
		t.Errorf("an oldText of 2,000 lines against 40,000 similar lines: isError %v after %v, %.120q; want the work bound's error", got.IsError, time.Since(start), got.Text)
	}
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("x\n", 2<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	var many []map[string]any
	for range 1000 {
		many = append(many, map[string]any{"oldText": "x", "newText": "x"})
	}
	start = time.Now()
	got = callTool(t, cs, dir, "edit_file", a("path", big, "edits", many, "dryRun", true))
	if !got.IsError || !strings.Contains(got.Text, "The edits need too much work") {
		t.Errorf("1,000 edits of a 4 MiB file: isError %v after %v, %.120q; want the work bound's error", got.IsError, time.Since(start), got.Text)
	}
}

// TestEditReindentationBounded: the replacement lines of a
// whitespace-tolerant match take the indentation of the file's line, so
// a line of 100,000 spaces and a newText of 300 lines made a 30 MB text
// from a 1 KB request, and a dry run returned its diff whatever the
// size (a file line of megabytes and a newText of a million lines:
// terabytes). The edited text is now bounded by MaxWriteBytes as it is
// built, in a dry run too.
func TestEditReindentationBounded(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "indented.txt")
	if err := os.WriteFile(file, []byte(strings.Repeat(" ", 100_000)+"x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := startOurs(t, []string{dir}, &Options{MaxWriteBytes: 1 << 20}, "2025-11-25", nil)
	for _, dry := range []bool{true, false} {
		start := time.Now()
		got := callTool(t, cs, dir, "edit_file", a("path", file, "edits", []map[string]any{{"oldText": "x  ", "newText": strings.Repeat("a\n", 300)}}, "dryRun", dry))
		if !got.IsError || !strings.Contains(got.Text, "Content too large") {
			t.Errorf("dryRun %v: a newText of 300 lines reindented by 100,000 spaces each: isError %v after %v, %d bytes of text; want Content too large", dry, got.IsError, time.Since(start), len(got.Text))
		}
	}
	if b, _ := os.ReadFile(file); len(b) != 100_002 {
		t.Errorf("the file has %d bytes, want it unchanged", len(b))
	}
}

// TestEditMatchingTrimsEachLineOnce: the work budget counted 128 bytes
// for each comparison of a line of oldText with a line of the file, but
// each comparison trimmed the file's line again, however long it was: a
// file of 8,000 lines of 1,000 spaces and an oldText of 3,999 blank
// lines and one that differs took 33 s within the budget, and grows with
// the square of the size. Each line is now trimmed once per edit, and a
// comparison counts the bytes it compares.
func TestEditMatchingTrimsEachLineOnce(t *testing.T) {
	content := strings.Repeat(strings.Repeat(" ", 1000)+"\n", 8000)
	old := strings.Repeat("\n", 3999) + "y"
	start := time.Now()
	_, err := applyEdits(content, []edit{{OldText: old, NewText: "z"}}, 1<<30)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("an oldText of 4,000 lines against 8,000 lines of 1,000 spaces took %v (%v); want well under 5 s", took, err)
	}
	// Equal long lines are compared byte by byte: that is counted too.
	content = strings.Repeat(strings.Repeat("x", 1000)+"\n", 8000)
	old = strings.Repeat(strings.Repeat("x", 1000)+"\n", 3999) + "y"
	start = time.Now()
	_, err = applyEdits(content, []edit{{OldText: old, NewText: "z"}}, 1<<30)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("an oldText of 4,000 long lines against 8,000 equal ones took %v (%v); want well under 5 s", took, err)
	}
}
