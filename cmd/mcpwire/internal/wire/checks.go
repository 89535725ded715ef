package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/internal/jsonschema"
	"github.com/mcpwire/mcpwire/mcp"
)

// Saved checks are calls with the result they must give, kept in a file
// (mcpwire inspect saves them from the page; mcpwire verify runs them in
// CI):
//
//	{"checks": [
//	  {"name": "echo says hello",
//	   "method": "tools/call",
//	   "params": {"name": "echo", "arguments": {"text": "hello"}},
//	   "expect": {"result": {"content": [{"type": "text", "text": "hello"}]},
//	              "ignore": ["content[*].annotations"]}},
//	  {"name": "weather has a temperature",
//	   "method": "tools/call",
//	   "params": {"name": "weather", "arguments": {"city": "Paris"}},
//	   "expect": {"schema": {"type": "object", "required": ["structuredContent"]}}}
//	]}
//
// method is tools/call, resources/read or prompts/get. expect has a
// result, compared as mcpwire replay compares (members in any order,
// "_meta", "resultType" and RFC 3339 timestamps ignored: a check saved in
// one protocol era holds in the other) but for the paths of ignore
// (a.b[0].c; [*] for any index); or a schema (JSON Schema 2020-12) the
// result must meet; or both.

// Bounds of a checks file.
const (
	// MaxChecksFile bounds a checks file, in bytes.
	MaxChecksFile = 16 << 20
	// MaxChecks bounds the checks of a file.
	MaxChecks = 10000
	// MaxWhy bounds why a check failed (CheckResult.Why), which quotes
	// the server's result and errors.
	MaxWhy = 4 << 10
)

// A CheckFile is a file of saved checks.
type CheckFile struct {
	Checks []Check `json:"checks"`
}

// A Check is one call and what its result must be.
type Check struct {
	Name   string          `json:"name"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Expect Expectation     `json:"expect"`
}

// An Expectation is what a check's result must be.
type Expectation struct {
	// Result is the result, exactly, but for Ignore.
	Result json.RawMessage `json:"result,omitempty"`
	// Ignore are paths of Result not compared.
	Ignore []string `json:"ignore,omitempty"`
	// Schema is a JSON Schema the result must meet.
	Schema json.RawMessage `json:"schema,omitempty"`
}

// checkMethods are the methods a check may call.
var checkMethods = map[string]bool{mcp.MethodCallTool: true, mcp.MethodReadResource: true, mcp.MethodGetPrompt: true}

// ignorePath is the syntax of an ignored path.
var ignorePath = regexp.MustCompile(`^[A-Za-z0-9_$-]+(\[(\d+|\*)\]|\.[A-Za-z0-9_$-]+)*$`)

// Validate checks a check: its name, method, params and expectation.
func (c *Check) Validate() error {
	switch {
	case strings.TrimSpace(c.Name) == "":
		return errors.New("a check has no name")
	case len(c.Name) > 200:
		return fmt.Errorf("check %.40q…: a name is at most 200 bytes", c.Name)
	case !checkMethods[c.Method]:
		return fmt.Errorf("check %q: method %q: want tools/call, resources/read or prompts/get", c.Name, c.Method)
	case len(c.Params) == 0 || c.Params[0] != '{':
		return fmt.Errorf("check %q: params must be an object", c.Name)
	case len(c.Expect.Result) == 0 && len(c.Expect.Schema) == 0:
		return fmt.Errorf("check %q: expect has neither a result nor a schema", c.Name)
	}
	for _, p := range c.Expect.Ignore {
		if !ignorePath.MatchString(p) {
			return fmt.Errorf("check %q: ignore %q: want a path such as content[0].text or content[*].annotations", c.Name, p)
		}
	}
	if len(c.Expect.Schema) > 0 {
		if _, err := jsonschema.Compile(c.Expect.Schema, nil); err != nil {
			return fmt.Errorf("check %q: schema: %v", c.Name, err)
		}
	}
	return nil
}

// ReadChecks reads a checks file: strictly (unknown members are errors),
// at most MaxChecksFile bytes and MaxChecks checks, each valid, names
// unique.
func ReadChecks(r io.Reader) (*CheckFile, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxChecksFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxChecksFile {
		return nil, fmt.Errorf("a checks file is at most %d bytes", MaxChecksFile)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f CheckFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a checks file: %v", err)
	}
	if dec.More() {
		return nil, errors.New("not a checks file: data after the object")
	}
	if len(f.Checks) > MaxChecks {
		return nil, fmt.Errorf("a checks file holds at most %d checks", MaxChecks)
	}
	seen := map[string]bool{}
	for i := range f.Checks {
		if err := f.Checks[i].Validate(); err != nil {
			return nil, err
		}
		if seen[f.Checks[i].Name] {
			return nil, fmt.Errorf("two checks are named %q", f.Checks[i].Name)
		}
		seen[f.Checks[i].Name] = true
	}
	return &f, nil
}

// A CheckResult is the outcome of one check.
type CheckResult struct {
	Name string  `json:"name"`
	Pass bool    `json:"pass"`
	Why  string  `json:"why,omitempty"` // why it failed
	MS   float64 `json:"ms"`
}

// RunChecks runs the checks of f on sess, in order; each is bounded by
// timeout (0: none but ctx).
func RunChecks(ctx context.Context, sess *client.Session, f *CheckFile, timeout time.Duration) []CheckResult {
	out := make([]CheckResult, 0, len(f.Checks))
	for i := range f.Checks {
		c := &f.Checks[i]
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			cctx, cancel = context.WithTimeout(ctx, timeout)
		}
		start := time.Now()
		why := c.run(cctx, sess)
		cancel()
		out = append(out, CheckResult{Name: c.Name, Pass: why == "", Why: why, MS: float64(time.Since(start).Microseconds()) / 1000})
	}
	return out
}

// run runs one check and returns why it failed, or "".
func (c *Check) run(ctx context.Context, sess *client.Session) string {
	got, err := c.call(ctx, sess)
	if err != nil {
		return clipText("the call failed: "+err.Error(), MaxWhy)
	}
	return c.Expect.Judge(got)
}

// Judge returns why result does not meet the expectation, or "": at
// most MaxWhy bytes.
func (e *Expectation) Judge(result json.RawMessage) string {
	var whys []string
	if len(e.Schema) > 0 {
		s, err := jsonschema.Compile(e.Schema, nil)
		if err != nil {
			return "the schema: " + err.Error()
		}
		if err := s.Validate(result); err != nil {
			var ve *jsonschema.ValidationError
			if errors.As(err, &ve) {
				whys = append(whys, "the result does not meet the schema: "+ve.Message("result"))
			} else {
				whys = append(whys, "the result does not meet the schema: "+err.Error())
			}
		}
	}
	if len(e.Result) > 0 {
		rp := &Replay{subst: map[string]string{}}
		var diffs []PathDiff
		want, got := decodeAny(e.Result), decodeAny(result)
		for _, v := range []any{want, got} {
			if m, ok := v.(map[string]any); ok {
				delete(m, "resultType") // the envelope of the 2026-07-28 era, not the result
			}
		}
		rp.diff(&diffs, "", want, got)
		for _, d := range diffs {
			if ignored(d.Path, e.Ignore) {
				continue
			}
			whys = append(whys, fmt.Sprintf("%s: want %s, got %s", clipText(orRoot(d.Path), 200), orAbsent(d.Recorded), orAbsent(d.Actual)))
			if len(whys) >= 10 {
				whys = append(whys, "…")
				break
			}
		}
	}
	return clipText(strings.Join(whys, "; "), MaxWhy)
}

func orRoot(p string) string {
	if p == "" {
		return "the result"
	}
	return p
}

// ignored reports whether path is one of ignore, or inside one; [*]
// matches any index.
func ignored(path string, ignore []string) bool {
	for _, p := range ignore {
		re := "^" + strings.ReplaceAll(regexp.QuoteMeta(p), `\[\*\]`, `\[\d+\]`) + `($|[.\[])`
		if ok, _ := regexp.MatchString(re, path); ok {
			return true
		}
	}
	return false
}

// call makes the check's call and returns the result as JSON.
func (c *Check) call(ctx context.Context, sess *client.Session) (json.RawMessage, error) {
	var res any
	var err error
	switch c.Method {
	case mcp.MethodCallTool:
		var p mcp.CallToolParams
		if err := json.Unmarshal(c.Params, &p); err != nil {
			return nil, fmt.Errorf("params: %v", err)
		}
		var oe *client.OutputSchemaError
		res, err = sess.CallTool(ctx, &p)
		if errors.As(err, &oe) {
			res, err = oe.Result, nil // the expectation judges the result
		}
	case mcp.MethodReadResource:
		var p mcp.ReadResourceParams
		if err := json.Unmarshal(c.Params, &p); err != nil {
			return nil, fmt.Errorf("params: %v", err)
		}
		res, err = sess.ReadResource(ctx, &p)
	case mcp.MethodGetPrompt:
		var p mcp.GetPromptParams
		if err := json.Unmarshal(c.Params, &p); err != nil {
			return nil, fmt.Errorf("params: %v", err)
		}
		res, err = sess.GetPrompt(ctx, &p)
	default:
		return nil, fmt.Errorf("method %q cannot be checked", c.Method)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// WriteJUnit writes results as a JUnit XML report (one testsuite, a
// testcase per check), which CI systems read.
func WriteJUnit(w io.Writer, suite string, results []CheckResult) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
	}
	type testsuite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Time     string     `xml:"time,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	s := testsuite{Name: suite, Tests: len(results)}
	var total float64
	for _, r := range results {
		tc := testcase{Name: r.Name, Classname: suite, Time: fmt.Sprintf("%.3f", r.MS/1000)}
		total += r.MS
		if !r.Pass {
			s.Failures++
			tc.Failure = &failure{Message: clipText(r.Why, 200), Text: r.Why}
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Time = fmt.Sprintf("%.3f", total/1000)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(&s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// clipText shortens s to n bytes.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n-- // on a character's boundary
	}
	return s[:n] + "…"
}
