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
