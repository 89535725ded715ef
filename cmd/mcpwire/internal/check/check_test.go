package check

import (
	"encoding/json"
	"encoding/xml"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// report is what the tests read of mcpwire check --json.
type report struct {
	Summary map[Status]int `json:"summary"`
	Results []jsonResult   `json:"results"`
}

// statuses returns the statuses of the check id, in every era.
func (r *report) statuses(id string) []Status {
	var out []Status
	for _, x := range r.Results {
		if x.ID == id {
			out = append(out, x.Status)
		}
	}
	return out
}

// result returns the first result of check id with status st.
func (r *report) result(id string, st Status) *jsonResult {
	for i := range r.Results {
		if r.Results[i].ID == id && r.Results[i].Status == st {
			return &r.Results[i]
		}
	}
	return nil
}

// runCheck runs mcpwire check --json ARGS and decodes its report.
func runCheckJSON(t *testing.T, want int, args ...string) *report {
	t.Helper()
	e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	code := e.Execute(append([]string{"check", "--json"}, args...)...)
	if code != want {
		t.Fatalf("mcpwire check %s: exit %d, want %d; stderr: %s\n%s", strings.Join(args, " "), code, want, e.Stderr.String(), e.Stdout.String())
	}
	var r report
	if err := json.Unmarshal(e.Stdout.Bytes(), &r); err != nil {
		t.Fatalf("--json: %v\n%s", err, e.Stdout.String())
	}
	return &r
}

// checkBroken checks the broken server with defects over stdio.
func checkBroken(t *testing.T, defects string, want int, args ...string) *report {
	t.Helper()
	return runCheckJSON(t, want, append(args, "--", os.Args[0], brokenArg, defects)...)
}

// TestHealthyBrokenServerPasses checks the broken server with no defect:
// every check passes or is skipped, in both eras, so that each failure
// below is the defect's alone.
func TestHealthyBrokenServerPasses(t *testing.T) {
	r := checkBroken(t, "ok", 0, "--call-read-only")
	for _, x := range r.Results {
		if x.Status != Pass && x.Status != Skip {
			t.Errorf("%s [%s]: %s: %s", x.ID, x.Era, x.Status, x.Detail)
		}
	}
	for _, id := range []string{"lifecycle.initialize", "lifecycle.discover", "jsonrpc.parse-error", "tools.list", "tools.call", "notifications.listen", "prompts.arguments"} {
		if st := r.statuses(id); len(st) == 0 || st[0] != Pass {
			t.Errorf("%s: %v, want it to pass", id, st)
		}
	}
}

// TestBrokenServerFailsTheRightCheck switches on each defect of the broken
// server and checks that mcpwire check fails (exit 1), naming the check
// that catches it, with the detail that says why.
func TestBrokenServerFailsTheRightCheck(t *testing.T) {
	for _, tc := range []struct {
		defect, check, detail string
		args                  []string
	}{
		{"wrong-codes", "jsonrpc.unknown-method", "answered -32603 Internal error", nil},
		{"wrong-codes", "jsonrpc.parse-error", "want -32700 Parse error", nil},
		{"die-on-bad-json", "jsonrpc.parse-error", "the server exited", nil},
		{"silent-unknown", "jsonrpc.unknown-method", "nothing answered; want -32601", []string{"--response-timeout", "2s"}},
		{"echo-version", "lifecycle.negotiation", `accepted the unknown revision "1999-01-01"`, nil},
		{"no-ping", "ping.answered", "-32601", nil},
		{"schema-not-object", "tools.input-schema", `stringly: the root has type "string", not "type": "object"`, nil},
		{"invalid-schema", "tools.input-schema", "typo:", nil},
		{"output-not-object", "tools.output-schema", `listy: the root has type "array"`, nil},
		{"pagination-loop", "tools.list", `nextCursor "page-2" came back on page 2: the pages loop`, nil},
		{"refuse-own-cursor", "tools.list", `the server refused its own nextCursor "page-2"`, nil},
		{"bad-template", "resources.templates", `"test://items/{id" is not an RFC 6570 URI template`, nil},
		{"bad-blob", "resources.read", "blob is not base64", nil},
		{"undeclared-changes", "notifications.list-changed", "notifications/tools/list_changed (1×) without declaring listChanged", nil},
		{"not-found-32002", "resources.not-found", "-32002 in the 2026-07-28 revision", nil},
		{"wrong-version-code", "lifecycle.unsupported-version", "not -32022", nil},
		{"no-result-type", "lifecycle.result-meta", "had no resultType", nil},
		{"no-ttl", "lifecycle.result-meta", "had no ttlMs or cacheScope (the first: tools/list)", nil},
		{"bad-header-param", "tools.input-schema", `region: invalid x-mcp-header annotation: x-mcp-header "Lat" annotates`, nil},
		{"no-ack", "notifications.listen", "not notifications/subscriptions/acknowledged", nil},
		{"bad-structured", "tools.call", "structuredContent does not match the outputSchema", []string{"--call-read-only"}},
	} {
		t.Run(tc.defect+"/"+tc.check, func(t *testing.T) {
			t.Parallel()
			r := checkBroken(t, tc.defect, app.ExitFailure, tc.args...)
			f := r.result(tc.check, Fail)
			if f == nil {
				t.Fatalf("%s does not fail: %v", tc.check, r.statuses(tc.check))
			}
			if !strings.Contains(f.Detail, tc.detail) {
				t.Errorf("%s: detail %q, want %q", tc.check, f.Detail, tc.detail)
			}
			// The checks of what the whole session showed have no frames
			// of their own.
			derived := tc.check == "notifications.list-changed" || tc.check == "lifecycle.result-meta"
			if f.Spec == "" || (len(f.Frames) == 0 && !derived) {
				t.Errorf("%s: a failure without its spec section (%q) or frames (%d)", tc.check, f.Spec, len(f.Frames))
			}
		})
	}
}

// TestCheckGoesOnAfterACrash checks that once the server died on a frame,
// a new one is started and the checks that follow run.
func TestCheckGoesOnAfterACrash(t *testing.T) {
	r := checkBroken(t, "die-on-bad-json", app.ExitFailure, "--protocol", "2025-11-25")
	for _, id := range []string{"jsonrpc.invalid-request", "jsonrpc.unknown-method", "tools.list", "prompts.get"} {
		if st := r.statuses(id); len(st) != 1 || st[0] != Pass {
			t.Errorf("%s after the crash: %v, want pass", id, st)
		}
	}
	if st := r.statuses("lifecycle.discover"); len(st) != 0 {
		t.Errorf("--protocol 2025-11-25 ran the modern era: %v", st)
	}
}

// TestCheckOverHTTP checks the broken server over HTTP: healthy, every
// check passes; ignoring headers, the header checks fail.
func TestCheckOverHTTP(t *testing.T) {
	healthy := httptest.NewServer(brokenHandler("ok"))
	defer healthy.Close()
	r := runCheckJSON(t, 0, "--url", healthy.URL+"/mcp")
	for _, x := range r.Results {
		if x.Status != Pass && x.Status != Skip {
			t.Errorf("healthy over HTTP: %s [%s]: %s: %s", x.ID, x.Era, x.Status, x.Detail)
		}
	}
	for _, id := range []string{"http.protocol-version", "http.session", "http.origin", "http.method-header", "http.name-header", "http.version-header", "http.unknown-method", "notifications.listen"} {
		if st := r.statuses(id); len(st) == 0 || st[0] != Pass {
			t.Errorf("%s: %v, want it to pass", id, st)
		}
	}

	careless := httptest.NewServer(brokenHandler("ignore-headers"))
	defer careless.Close()
	r = runCheckJSON(t, app.ExitFailure, "--url", careless.URL+"/mcp")
	for _, id := range []string{"http.protocol-version", "http.origin", "http.method-header", "http.name-header", "http.version-header"} {
		if r.result(id, Fail) == nil {
			t.Errorf("ignoring headers: %s does not fail: %v", id, r.statuses(id))
		}
	}
	if r.result("http.session", Warn) == nil {
		t.Errorf("ignoring the session: http.session %v, want a warning (a SHOULD)", r.statuses("http.session"))
	}
}

// TestTwoInstances checks two instances of a stateless server: alike,
// they pass; when one lists other tools, stateless.same-answers fails.
func TestTwoInstances(t *testing.T) {
	a := httptest.NewServer(brokenHandler("ok"))
	defer a.Close()
	b := httptest.NewServer(brokenHandler("ok"))
	defer b.Close()
	r := runCheckJSON(t, 0, "--protocol", "2026-07-28", "--url", a.URL+"/mcp", "--url", b.URL+"/mcp")
	for _, id := range []string{"stateless.same-answers", "stateless.cursors"} {
		if st := r.statuses(id); len(st) != 1 || st[0] != Pass {
			t.Errorf("%s: %v, want pass", id, st)
		}
	}
	other := httptest.NewServer(brokenHandler("schema-not-object"))
	defer other.Close()
	r = runCheckJSON(t, app.ExitFailure, "--protocol", "2026-07-28", "--url", a.URL+"/mcp", "--url", other.URL+"/mcp")
	if f := r.result("stateless.same-answers", Fail); f == nil || !strings.Contains(f.Detail, "tools/list") {
		t.Errorf("instances with other tools: %+v", f)
	}
}

// TestReports checks the text report and the JUnit XML of a failing run.
func TestReports(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "check.xml")
	e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	if code := e.Execute("check", "--protocol", "2025-11-25", "--junit", junit, "--", os.Args[0], brokenArg, "wrong-codes"); code != app.ExitFailure {
		t.Fatalf("exit %d: %s", code, e.Stderr.String())
	}
	out := e.Stdout.String()
	for _, want := range []string{
		"JSON-RPC\n",
		"  fail  2025-11-25  jsonrpc.unknown-method: an unknown method gets -32601 Method not found, with the request's id [2025-11-25 §A.2, §A.4 #7; 2026-07-28 §2.3]\n",
		"answered -32603 Internal error (Method not found); want -32601 Method not found",
		"→ mcpwire-check/no-such-method",
		"← (response)",
		" fail, ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(e.Stderr.String(), "check(s) failed: jsonrpc.parse-error") {
		t.Errorf("stderr: %s", e.Stderr.String())
	}
	raw, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var x junitSuites
	if err := xml.Unmarshal(raw, &x); err != nil {
		t.Fatalf("JUnit: %v\n%s", err, raw)
	}
	if x.Failures == 0 || x.Tests < 10 || len(x.Suites) < 3 {
		t.Errorf("JUnit: %d tests, %d failures, %d suites", x.Tests, x.Failures, len(x.Suites))
	}
	found := false
	for _, s := range x.Suites {
		for _, c := range s.Cases {
			if c.Name == "jsonrpc.unknown-method [2025-11-25]" && c.Failure != nil && strings.Contains(c.Failure.Text, "§A.2") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("JUnit: no failure for jsonrpc.unknown-method:\n%s", raw)
	}
}

// Regression (issue 18): mcpwire check against a program that does not
// speak JSON-RPC (it prints text, and never answers) ran until --timeout
// (2 minutes unless given) and said only "the check did not finish":
// the wire dropped the lines that were not messages, and waited for an
// answer as long as a server may take to start, in each era. Once the
// program has written something, it has started; when all it writes is
// not JSON-RPC, the check stops within seconds, quoting the first line.
func TestCheckOfAProgramThatDoesNotSpeakJSONRPC(t *testing.T) {
	for _, tc := range []struct{ defect, want string }{
		{"text-only", `mcpwire: cannot check the server: it answered initialize with nothing but output that is not JSON-RPC, the first: not JSON: unexpected character 'W' at offset 0 (message 1 from the server, 27 bytes: "Welcome to the \x1b[1mREPL\x1b[0m")` + "\n"},
		{"batch-only", `mcpwire: cannot check the server: it answered initialize with nothing but output that is not JSON-RPC, the first: a batch (a JSON array), which MCP allows in 2025-03-26 only (message 1 from the server, 21 bytes: "[1,\"two\",{\"three\":3}]")` + "\n"},
	} {
		t.Run(tc.defect, func(t *testing.T) {
			t.Parallel()
			e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
			start := time.Now()
			code := e.Execute("check", "--timeout", "30s", "--", os.Args[0], brokenArg, tc.defect)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the check took %v", d.Round(time.Millisecond))
			}
			if code != app.ExitConnect {
				t.Errorf("exit %d, want %d", code, app.ExitConnect)
			}
			clitest.CheckOutput(t, "stderr", e.Stderr.String(), tc.want)
			clitest.CheckOutput(t, "stdout", e.Stdout.String(), "")
		})
	}
	// A server that prints a banner on stdout, then serves, is checked.
	r := checkBroken(t, "banner", 0)
	if st := r.statuses("lifecycle.initialize"); len(st) != 1 || st[0] != Pass {
		t.Errorf("a server with a banner: lifecycle.initialize %v, want pass", st)
	}
}

// Regression (issue 20, item 2): the check closed each server process it
// started by closing its stdin and waiting 2 s for it to exit, whatever
// --timeout had left: a server that does not exit when its stdin ends
// (the check starts several) held the check seconds past its bound.
// The wait for the exit ends with --timeout, then the process is killed.
func TestCheckCloseIsBoundedByTimeout(t *testing.T) {
	const timeout = 2 * time.Second
	e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	start := time.Now()
	code := e.Execute("check", "--timeout", timeout.String(), "--", os.Args[0], brokenArg, "linger")
	// The bound, and at most a second to kill a process and read the
	// end of its output (exec.Cmd.WaitDelay), and slack for a busy
	// machine; each close past the bound takes 2 s more.
	if d := time.Since(start); d > timeout+1500*time.Millisecond {
		t.Errorf("mcpwire check --timeout %v took %v (exit %d): %s", timeout, d.Round(time.Millisecond), code, e.Stderr.String())
	}
	if code != app.ExitFailure || !strings.Contains(e.Stderr.String(), "did not finish within 2s (see --timeout)") {
		t.Errorf("exit %d, stderr %q; want %d and the bound named", code, e.Stderr.String(), app.ExitFailure)
	}
}

// Regression (issue 19): mcpwire check --help said that --timeout is "2
// minutes unless given", and listed it among the global flags with
// "(default 30s)". check's --timeout is a flag of its own, whose default
// the help shows; it bounds the check, as the global one bounds the
// other commands.
func TestCheckHelpShowsItsTimeout(t *testing.T) {
	e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	if code := e.Execute("check", "--help"); code != 0 {
		t.Fatalf("exit %d: %s", code, e.Stderr.String())
	}
	var lines []string
	for l := range strings.Lines(e.Stdout.String()) {
		if strings.Contains(l, "--timeout duration") {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) != 1 || !strings.HasSuffix(lines[0], "(default 2m0s)") {
		t.Errorf("the help's --timeout: %q, want one line, (default 2m0s)", lines)
	}
	// A negative bound is refused as the global one is; 0 lifts it.
	e = clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	if code := e.Execute("check", "--timeout", "-1s", "--", "srv"); code != app.ExitUsage || !strings.Contains(e.Stderr.String(), "--timeout must not be negative") {
		t.Errorf("--timeout -1s: exit %d, %s", code, e.Stderr.String())
	}
}

// TestCheckUsage checks the mistakes of a command line.
func TestCheckUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--url", "http://a/mcp", "--url", "http://b/mcp", "--url", "http://c/mcp"}, "give --url once, or twice"},
		{[]string{"check", "--call", "=x", "--", "server"}, "want TOOL=ARGS"},
		{[]string{"check", "--call", "t=[1]", "--", "server"}, "--call t: want a JSON object"},
		{[]string{"check", "--response-timeout", "0", "--", "server"}, "--response-timeout must be positive"},
	} {
		e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
		if code := e.Execute(tc.args...); code != app.ExitUsage || !strings.Contains(e.Stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, e.Stderr.String(), tc.want)
		}
	}
	e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	if code := e.Execute("check", "--", filepath.Join(t.TempDir(), "no-such-server")); code != app.ExitConnect {
		t.Errorf("a server that cannot start: exit %d, %s", code, e.Stderr.String())
	}
}
