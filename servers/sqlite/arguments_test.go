package sqlite_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/servers/sqlite"
)

// TestNumericArgumentsRefused: the tools take no number (every argument
// is a string), so a number where a string goes, or a numeric argument
// the tool does not have (a row limit, say), whatever its value (1e300,
// -1, 1.5, 2^64), is a tool error naming the argument: never a panic, a
// wrap, or a default taken in silence.
func TestNumericArgumentsRefused(t *testing.T) {
	s := serve(t, newDB(t), nil)
	numbers := []string{"1e300", "-1", "1.5", "18446744073709551617", "-0", "0"}
	for tool, arg := range map[string]string{
		"read_query": "query", "write_query": "query", "create_table": "query",
		"describe_table": "table_name", "append_insight": "insight", "list_tables": "",
	} {
		for _, n := range numbers {
			var args []string
			if arg != "" {
				args = append(args, `{"`+arg+`":`+n+`}`)
			}
			for _, extra := range []string{"limit", "max_rows", "maxBytes", "timeout"} {
				if arg == "" {
					args = append(args, `{"`+extra+`":`+n+`}`)
				} else {
					args = append(args, `{"`+arg+`":"SELECT 1","`+extra+`":`+n+`}`)
				}
			}
			for _, a := range args {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				res, err := s.sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(a)})
				cancel()
				if err != nil {
					t.Errorf("%s %s: a protocol error, not a tool error: %v", tool, a, err)
					continue
				}
				if text := strings.Join(texts(res), "\n"); !res.IsError || !strings.Contains(text, "invalid arguments") {
					t.Errorf("%s %s: %v %s", tool, a, res.IsError, text)
				}
			}
		}
	}
	s.ok("read_query", m{"query": "SELECT 1"}) // still serving
}

// TestOpenRefusesOutOfRangeOptions: a negative limit in Options was taken
// as "use the default" in silence; zero means the default, anything below
// is an error that names the option.
func TestOpenRefusesOutOfRangeOptions(t *testing.T) {
	db := newDB(t)
	for name, o := range map[string]sqlite.Options{
		"MaxRows":         {MaxRows: -1},
		"MaxBytes":        {MaxBytes: -1},
		"Timeout":         {Timeout: -time.Second},
		"MaxInsights":     {MaxInsights: -1},
		"MaxInsightBytes": {MaxInsightBytes: -5},
	} {
		d, err := sqlite.Open(context.Background(), db, &o)
		if err == nil {
			d.Close()
			t.Errorf("Open with a negative %s succeeded", name)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("Open with a negative %s: %v", name, err)
		}
	}
}
