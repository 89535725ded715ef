package git_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/git"
	"github.com/mcpwire/mcpwire/servers/internal/argtest"
)

// TestNumericArgumentsAreRangeChecked walks every tool of tools/list and
// sends each integer argument hostile values (1e300, -1e300, -1, 0, 1.5,
// 2^53+1, huge exponents, the bounds and just past them): each must be an
// error result naming the argument and the bound, or a normal result when
// it is within the bounds (1.0 and 1e1 are integers: JSON Schema says
// so), never a panic or a protocol error.
func TestNumericArgumentsAreRangeChecked(t *testing.T) {
	dir := newRepo(t)
	for i := range 4 { // stash@{0} to stash@{3}: every index git_stash show may take
		write(t, dir, "hello.txt", "hello\nstash "+string(rune('a'+i))+"\n")
		gitCmd(t, dir, "stash", "push", "-q")
	}
	write(t, dir, "hello.txt", "hello\nchanged\n")
	s := serve(t, dir, &git.Options{MaxLogCount: 50, MaxContextLines: 100, MaxStashIndex: 3})
	var tools []*mcp.Tool
	for tool, err := range s.sess.Tools(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	base := map[string]map[string]any{
		git.ToolDiffUnstaged: {},
		git.ToolDiffStaged:   {},
		git.ToolDiff:         {"target": "HEAD"},
		git.ToolLog:          {},
		git.ToolStash:        {"action": "show"},
	}
	n := argtest.CheckNumbers(t, tools, base, func(tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return s.sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	})
	if n == 0 {
		t.Error("no numeric argument found: context_lines and max_count are")
	}
}
