// Package argtest holds what the tests of the servers under servers/
// check alike about their tools' arguments. It is test support: only
// tests import it.
package argtest

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// A Caller calls a tool with raw arguments. A non-nil error is a
// protocol error (a panic in a handler becomes -32603).
type Caller func(tool string, args json.RawMessage) (*mcp.CallToolResult, error)

// A value is a JSON number sent to a numeric argument: its text, its
// value as a float64 (±Inf past float64's range) and whether it is a
// whole number. JSON Schema calls 1.0 and 1e1 integers; 1e-999999999
// rounds to 0 as a float64 but is not one.
type value struct {
	raw      string
	f        float64
	integral bool
}

// hostile are the numbers every numeric argument is tried with, beside its
// bounds and the numbers just past them.
var hostile = []value{
	{"1e300", 1e300, true},
	{"-1e300", -1e300, true},
	{"-1", -1, true},
	{"0", 0, true},
	{"-0", 0, true},
	{"1.5", 1.5, false},
	{"0.5", 0.5, false},
	{"9007199254740993", 9007199254740993, true}, // 2^53+1: no float64 holds it
	{"18446744073709551617", 18446744073709551617, true},
	{"-9223372036854775809", -9223372036854775809, true},
	{"1e999999999", math.Inf(1), true},
	{"-1e999999999", math.Inf(-1), true},
	{"1E+400", math.Inf(1), true},
	{"1e-999999999", 0, false},
	{"1.0", 1, true}, // a whole number, in JSON Schema's sense
	{"1e1", 10, true},
}

// A numeric is an integer or number property of a tool's input schema.
type numeric struct {
	tool, name string
	integer    bool
	min, max   *float64
	rawMin     string
	rawMax     string
}

// numerics lists the integer and number properties of the tools.
func numerics(t testing.TB, tools []*mcp.Tool) []numeric {
	t.Helper()
	var out []numeric
	for _, tool := range tools {
		var schema struct {
			Properties map[string]struct {
				Type    json.RawMessage `json:"type"`
				Minimum json.Number     `json:"minimum"`
				Maximum json.Number     `json:"maximum"`
			} `json:"properties"`
		}
		d := json.NewDecoder(strings.NewReader(string(tool.InputSchema)))
		d.UseNumber()
		if err := d.Decode(&schema); err != nil {
			t.Fatalf("tool %s: input schema: %v", tool.Name, err)
		}
		for name, p := range schema.Properties {
			var types []string
			if json.Unmarshal(p.Type, &types) != nil {
				var one string
				json.Unmarshal(p.Type, &one)
				types = []string{one}
			}
			n := numeric{tool: tool.Name, name: name, rawMin: p.Minimum.String(), rawMax: p.Maximum.String()}
			for _, typ := range types {
				switch typ {
				case "integer":
					n.integer = true
					fallthrough
				case "number":
					n.min, n.max = bound(p.Minimum), bound(p.Maximum)
				}
			}
			if n.min != nil || n.max != nil || n.integer || slices.Contains(types, "number") {
				out = append(out, n)
			}
		}
	}
	return out
}

func ptr(f float64) *float64 { return &f }

func bound(n json.Number) *float64 {
	if n == "" {
		return nil
	}
	f, err := n.Float64()
	if err != nil {
		return nil
	}
	return &f
}

// CheckNumbers calls, for every integer or number property of every tool,
// the tool with base[tool] and that property set to each hostile number,
// to its bounds and to the whole numbers just past them. Every property
// must declare a minimum and a maximum. A number outside them, or not
// whole for an integer, must give an error result that names the
// property and the bound it breaks (or "integer"); a number inside them
// must give a result that is not an error. No call may fail with a
// protocol error. It returns how many calls it made.
func CheckNumbers(t *testing.T, tools []*mcp.Tool, base map[string]map[string]any, call Caller) int {
	t.Helper()
	calls := 0
	for _, n := range numerics(t, tools) {
		if n.min == nil || n.max == nil {
			// Still try the numbers, a missing bound taken as infinite.
			t.Errorf("tool %s: %s has no minimum or no maximum in its schema: every numeric argument must be bounded", n.tool, n.name)
		}
		if n.min == nil {
			n.min, n.rawMin = ptr(math.Inf(-1)), "-Inf"
		}
		if n.max == nil {
			n.max, n.rawMax = ptr(math.Inf(1)), "+Inf"
		}
		args, ok := base[n.tool]
		if !ok {
			t.Fatalf("tool %s has a numeric argument (%s) but the test gives no base arguments for it", n.tool, n.name)
		}
		values := append([]value(nil), hostile...)
		if n.integer {
			// The bounds and the integers just past them.
			if lo, err := strconv.ParseInt(n.rawMin, 10, 64); err == nil && lo > math.MinInt64 {
				values = append(values, value{n.rawMin, float64(lo), true}, value{strconv.FormatInt(lo-1, 10), float64(lo - 1), true})
			}
			if hi, err := strconv.ParseInt(n.rawMax, 10, 64); err == nil && hi < math.MaxInt64 {
				values = append(values, value{n.rawMax, float64(hi), true}, value{strconv.FormatInt(hi+1, 10), float64(hi + 1), true})
			}
		}
		for _, v := range values {
			raw := map[string]json.RawMessage{}
			for k, x := range args {
				b, err := json.Marshal(x)
				if err != nil {
					t.Fatal(err)
				}
				raw[k] = b
			}
			raw[n.name] = json.RawMessage(v.raw)
			b, _ := json.Marshal(raw)
			calls++
			res, err := call(n.tool, b)
			where := n.tool + " " + string(b)
			if err != nil {
				t.Errorf("%s: a protocol error, not a tool result: %v", where, err)
				continue
			}
			text := resultText(res)
			below, above := v.f < *n.min, v.f > *n.max
			fraction := n.integer && !v.integral
			switch {
			case !below && !above && !fraction:
				if res.IsError {
					t.Errorf("%s: %s is within %s..%s, yet the call failed: %s", where, v.raw, n.rawMin, n.rawMax, text)
				}
			case !res.IsError:
				t.Errorf("%s: %s is outside %s..%s (or not whole), yet the call succeeded: %.200s", where, v.raw, n.rawMin, n.rawMax, text)
			case !strings.Contains(text, n.name):
				t.Errorf("%s: the error does not name the argument %s: %s", where, n.name, text)
			case fraction && !strings.Contains(text, "integer"):
				t.Errorf("%s: the error does not say that %s must be an integer: %s", where, n.name, text)
			case !fraction && below && !strings.Contains(text, n.rawMin):
				t.Errorf("%s: the error does not name the minimum %s: %s", where, n.rawMin, text)
			case !fraction && above && !strings.Contains(text, n.rawMax):
				t.Errorf("%s: the error does not name the maximum %s: %s", where, n.rawMax, text)
			}
		}
	}
	return calls
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
