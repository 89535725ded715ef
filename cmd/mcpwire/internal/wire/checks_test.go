package wire

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestVerifyChecks runs a checks file on the test server: an exact
// result, one with an ignored path, a schema, and checks that fail (a
// changed result, a schema not met, an isError result); the lines, the
// count, the JUnit report and exit 1; then a file that passes: exit 0.
func TestVerifyChecks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "checks.json")
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"checks": [
  {"name": "echo exact", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}},
   "expect": {"result": {"content": [{"type": "text", "text": "hi"}]}}},
  {"name": "echo ignored", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi", "times": 2}},
   "expect": {"result": {"content": [{"type": "text", "text": "anything"}]}, "ignore": ["content[*].text"]}},
  {"name": "add schema", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
   "expect": {"schema": {"type": "object", "required": ["structuredContent"], "properties": {"structuredContent": {"properties": {"sum": {"const": 5}}}}}}},
  {"name": "echo changed", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}},
   "expect": {"result": {"content": [{"type": "text", "text": "bye"}]}}},
  {"name": "add schema not met", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 2}},
   "expect": {"schema": {"properties": {"structuredContent": {"properties": {"sum": {"const": 5}}}}}}},
  {"name": "readme", "method": "resources/read", "params": {"uri": "test://readme"},
   "expect": {"schema": {"required": ["contents"]}}}
]}`)
	e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	junit := filepath.Join(dir, "report.xml")
	code := e.Execute("verify", file, "--junit", junit, "--", "testserver")
	out := e.Stdout.String()
	for _, want := range []string{"PASS echo exact (", "PASS echo ignored (", "PASS add schema (", "PASS readme (",
		`FAIL echo changed: content[0].text: want "bye", got "hi"`,
		"FAIL add schema not met: the result does not meet the schema: result/structuredContent/sum: must be 5",
		"4 passed, 2 failed\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if code != app.ExitFailure {
		t.Errorf("exit %d, want 1; stderr %s", code, e.Stderr.String())
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(data, &suite); err != nil || suite.Tests != 6 || suite.Failures != 2 || suite.Cases[3].Failure == nil || suite.Cases[0].Failure != nil {
		t.Errorf("the JUnit report: %v %+v\n%s", err, suite, data)
	}

	write(`{"checks": [{"name": "echo exact", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}, "expect": {"result": {"content": [{"type": "text", "text": "hi"}]}}}]}`)
	e = clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	if code := e.Execute("verify", file, "--", "testserver"); code != app.ExitOK || !strings.Contains(e.Stdout.String(), "1 passed, 0 failed") {
		t.Errorf("exit %d: %s %s", code, e.Stdout.String(), e.Stderr.String())
	}
}

// TestChecksFileRefused: a checks file that is not valid says why.
func TestChecksFileRefused(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"checks": [{"name": "x", "method": "tools/call", "params": {}, "expect": {}}]}`, `check "x": expect has neither a result nor a schema`},
		{`{"checks": [{"name": "x", "method": "tools/list", "params": {}, "expect": {"result": {}}}]}`, `check "x": method "tools/list": want tools/call, resources/read or prompts/get`},
		{`{"checks": [{"name": "x", "method": "tools/call", "params": {}, "expect": {"result": {}, "ignore": ["a..b"]}}]}`, `check "x": ignore "a..b"`},
		{`{"checks": [{"name": "x", "method": "tools/call", "params": {}, "expect": {"schema": {"type": 5}}}]}`, `check "x": schema:`},
		{`{"checks": [], "extra": 1}`, `not a checks file: json: unknown field "extra"`},
		{`{"checks": [{"name": "x", "method": "tools/call", "params": {}, "expect": {"result": {}}}, {"name": "x", "method": "tools/call", "params": {}, "expect": {"result": {}}}]}`, `two checks are named "x"`},
		{`{"checks": [{"name": "", "method": "tools/call", "params": {}, "expect": {"result": {}}}]}`, `a check has no name`},
	} {
		_, err := ReadChecks(strings.NewReader(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.file, err, c.want)
		}
	}
	if _, err := ReadChecks(strings.NewReader(`{"checks":[` + strings.Repeat(" ", MaxChecksFile) + `]}`)); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("a huge file: %v", err)
	}
}

// TestCheckWhyBounded: why a check failed quotes the server's result
// (its member names, its values), clipped: a result with a 100 KiB
// member name gives a reason of at most MaxWhy bytes.
func TestCheckWhyBounded(t *testing.T) {
	long := strings.Repeat("k", 100<<10)
	e := &Expectation{Result: json.RawMessage(`{"content":[]}`)}
	why := e.Judge(json.RawMessage(`{"content":[],"` + long + `":1,"` + long + `x":2}`))
	if why == "" || len(why) > 4<<10 {
		t.Errorf("why the check failed: %d bytes, want some, at most %d", len(why), 4<<10)
	}
}
