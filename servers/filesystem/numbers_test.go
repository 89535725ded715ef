package filesystem

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/internal/argtest"
)

// TestNumericArgumentsAreRangeChecked walks every tool of tools/list and
// sends each integer or number argument hostile values (1e300, -1e300, -1,
// 0, 1.5, 2^53+1, huge exponents, the bounds and just past them): each
// must be an error result naming the argument and the bound, or a normal
// result when it is within the bounds, never a panic or a protocol error
// (read_text_file with tail -1e300 panicked: the float64 count became
// int64 without a range check, and a slice index went negative).
func TestNumericArgumentsAreRangeChecked(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lines.txt"), []byte(strings.Repeat("a line\n", 50)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, version := range []mcp.Version{"2025-11-25", "2026-07-28"} {
		t.Run(string(version), func(t *testing.T) {
			cs := startOurs(t, []string{dir}, nil, version, nil)
			var tools []*mcp.Tool
			for tool, err := range cs.Tools(t.Context()) {
				if err != nil {
					t.Fatal(err)
				}
				tools = append(tools, tool)
			}
			file := map[string]any{"path": filepath.Join(dir, "lines.txt")}
			base := map[string]map[string]any{"read_text_file": file, "read_file": file, "directory_tree": {"path": dir}}
			n := argtest.CheckNumbers(t, tools, base, func(tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				return cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			})
			if n == 0 {
				t.Error("no numeric argument found: head and tail of read_text_file, depth of directory_tree are")
			}
		})
	}
}

// TestLineCountRefusesWhatTheSchemaRefuses: the conversion of head and
// tail to an int64 checks the range itself, whatever reaches it.
func TestLineCountRefusesWhatTheSchemaRefuses(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1e300, 1e300, -1, 0, 0.5, 1.5, maxLines + 1, 1 << 63} {
		if n, err := lineCount("tail", v); err == nil || !strings.Contains(err.Error(), "tail must be a whole number of lines from 1 to 9007199254740991") {
			t.Errorf("lineCount(%v) = %d, %v; want an error naming the range", v, n, err)
		}
	}
	for _, v := range []float64{1, 2, 1e6, maxLines} {
		if n, err := lineCount("head", v); err != nil || float64(n) != v {
			t.Errorf("lineCount(%v) = %d, %v", v, n, err)
		}
	}
}
