package filesystem

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
)

// flagsTree makes {root}/rw (allowed), {root}/ro and {root}/rw/lib/ro
// (read-only), and a link from rw into ro.
func flagsTree(t *testing.T, root string) {
	t.Helper()
	for name, content := range map[string]string{
		"rw/a.txt":        "a\n",
		"rw/lib/x.txt":    "x\n",
		"rw/lib/ro/y.txt": "y\n",
		"ro/f.txt":        "f\n",
		"ro/sub/g.txt":    "g\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../ro", filepath.Join(root, "rw", "to-ro")); err != nil {
		t.Fatal(err)
	}
}

// flagsArgs is the command line of both servers: options after a
// directory, as 2.3.0 allows.
func flagsArgs(root string) []string {
	return []string{filepath.Join(root, "rw"), "--read-only-dir", filepath.Join(root, "ro"), "--read-only-dir", filepath.Join(root, "rw", "lib", "ro")}
}

var flagSteps = []step{
	{tool: "list_allowed_directories", args: a()},
	{tool: "read_text_file", args: p("{root}/ro/f.txt")},
	{tool: "read_text_file", args: p("{root}/rw/to-ro/f.txt")},
	{tool: "write_file", args: a("path", "{root}/ro/new.txt", "content", "x")},
	{tool: "write_file", args: a("path", "{root}/ro/f.txt", "content", "x")},
	{tool: "write_file", args: a("path", "{root}/rw/to-ro/new.txt", "content", "x")},
	{tool: "write_file", args: a("path", "{root}/rw/lib/ro/y.txt", "content", "x")},
	{tool: "append_file", args: a("path", "{root}/ro/f.txt", "content", "x")},
	{tool: "edit_file", args: a("path", "{root}/ro/f.txt", "edits", []map[string]any{{"oldText": "f", "newText": "F"}}, "dryRun", true)},
	{tool: "create_directory", args: p("{root}/ro/made")},
	{tool: "create_directory", args: p("{root}/rw/to-ro/made")},
	{tool: "copy_file", args: a("source", "{root}/ro/f.txt", "destination", "{root}/rw/f-copy.txt")},
	{tool: "copy_file", args: a("source", "{root}/rw/a.txt", "destination", "{root}/ro/a.txt")},
	{tool: "move_file", args: a("source", "{root}/ro/f.txt", "destination", "{root}/rw/f.txt")},
	{tool: "move_file", args: a("source", "{root}/rw/a.txt", "destination", "{root}/ro/sub/a.txt")},
	{tool: "move_file", args: a("source", "{root}/rw/lib", "destination", "{root}/rw/lib2")},
	{tool: "move_file", args: a("source", "{root}/rw/a.txt", "destination", "{root}/rw/b.txt")},
	{tool: "write_file", args: a("path", "{root}/rw/lib/x.txt", "content", "written\n")},
	{tool: "list_directory", args: p("{root}/rw")},
}

// TestDifferentialFlags runs calls against both servers started with
// --read-only-dir (twice, after a directory: options anywhere), in both
// eras, as mcpwire serve filesystem: the refusals, their texts and the
// trees left behind must agree.
func TestDifferentialFlags(t *testing.T) {
	for _, version := range []mcp.Version{"2025-11-25", "2026-07-28"} {
		t.Run(string(version), func(t *testing.T) {
			official, mine := filepath.Join(t.TempDir(), "tree"), filepath.Join(t.TempDir(), "tree")
			for _, d := range []string{official, mine} {
				flagsTree(t, d)
			}
			theirs := startOfficialArgs(t, flagsArgs(official), version, nil)
			ours := startServe(t, flagsArgs(mine), false, version, nil)
			for i, s := range flagSteps {
				compare(t, i, s, callTool(t, theirs, official, s.tool, s.args), callTool(t, ours, mine, s.tool, s.args))
			}
			if d := diffSnapshots(snapshot(t, official), snapshot(t, mine)); d != "" {
				t.Errorf("the trees differ after the calls (official vs ours):\n%s", d)
			}
		})
	}
}

// TestReadOnlyListsTheSameTools: with --read-only both servers list the
// same tools (those that cannot write), and a write tool is unknown.
func TestReadOnlyListsTheSameTools(t *testing.T) {
	dir := t.TempDir()
	names := func(cs *client.Session) []string {
		var out []string
		for tool, err := range cs.Tools(t.Context()) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tool.Name)
		}
		slices.Sort(out)
		return out
	}
	want := names(startOfficialArgs(t, []string{"--read-only", dir}, "2025-11-25", nil))
	ours := startServe(t, []string{dir, "--read-only"}, false, "2026-07-28", nil)
	if got := names(ours); !slices.Equal(got, want) {
		t.Errorf("--read-only lists %v, official %v", got, want)
	}
	if len(want) == 0 || slices.Contains(want, "write_file") {
		t.Errorf("the official --read-only list is %v", want)
	}
}
