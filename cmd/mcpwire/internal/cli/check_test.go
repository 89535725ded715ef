package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// checkReport is what the tests read of mcpwire check --json.
type checkReport struct {
	Summary map[string]int `json:"summary"`
	Results []struct {
		ID, Era, Status, Detail, Spec string
	} `json:"results"`
}

// runCheck runs mcpwire check --json with args and decodes its report; a
// failed check fails the test, and the warnings are logged.
func runCheck(t *testing.T, args ...string) *checkReport {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append([]string{"check", "--json"}, args...)
	code := Main(args, strings.NewReader(""), &stdout, &stderr)
	var r checkReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("mcpwire %s: exit %d, %v; stderr: %s\n%s", strings.Join(args, " "), code, err, stderr.String(), stdout.String())
	}
	for _, x := range r.Results {
		switch x.Status {
		case "fail":
			t.Errorf("%s [%s] fails: %s (%s)", x.ID, x.Era, x.Detail, x.Spec)
		case "warn":
			t.Logf("%s [%s] warns: %s", x.ID, x.Era, strings.ReplaceAll(x.Detail, "\n", "; "))
		}
		if x.Spec == "" {
			t.Errorf("%s has no spec section", x.ID)
		}
	}
	if code != 0 {
		t.Errorf("mcpwire %s: exit %d; stderr: %s", strings.Join(args, " "), code, stderr.String())
	}
	return &r
}

// passes checks that the checks ids ran and passed in era.
func (r *checkReport) passes(t *testing.T, era string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		found := false
		for _, x := range r.Results {
			if x.ID == id && x.Era == era {
				found = true
				if x.Status != "pass" {
					t.Errorf("%s [%s]: %s, want pass: %s", id, era, x.Status, x.Detail)
				}
			}
		}
		if !found {
			t.Errorf("%s [%s] did not run", id, era)
		}
	}
}

// TestCheckEverythingServer checks the conformance everything-server over
// stdio and over Streamable HTTP: no check fails, in either era.
func TestCheckEverythingServer(t *testing.T) {
	bin := buildEverything(t)
	t.Run("stdio", func(t *testing.T) {
		r := runCheck(t, "--call-read-only", "--call", "test_simple_text", "--", bin, "-stdio")
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			r.passes(t, era, "jsonrpc.parse-error", "jsonrpc.invalid-request", "jsonrpc.unknown-method", "jsonrpc.invalid-params",
				"tools.list", "tools.input-schema", "resources.templates", "prompts.arguments", "tools.call")
		}
		r.passes(t, "2026-07-28", "lifecycle.discover", "lifecycle.unsupported-version", "notifications.listen", "ping.removed")
		r.passes(t, "2025-11-25", "lifecycle.initialize", "lifecycle.negotiation", "ping.answered")
	})
	t.Run("http", func(t *testing.T) {
		url := serveEverythingHTTP(t, bin)
		r := runCheck(t, "--url", url, "--url", url)
		r.passes(t, "2026-07-28", "http.method-header", "http.name-header", "http.version-header", "http.unknown-method", "http.origin", "stateless.same-answers")
		r.passes(t, "2025-11-25", "http.protocol-version", "http.session", "http.origin")
	})
}

// serveEverythingHTTP starts the everything-server over HTTP on a free
// port and returns its URL; the server is stopped when the test ends.
func serveEverythingHTTP(t *testing.T, bin string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-http", "127.0.0.1:0", "-v")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		serving := regexp.MustCompile(`msg=serving url=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case url, ok := <-found:
		if !ok {
			t.Fatal("the everything-server ended without serving")
		}
		return url
	case <-time.After(30 * time.Second):
		t.Fatal("the everything-server did not say where it serves within 30s")
	}
	return ""
}

// TestCheckReferenceServer checks the official reference server over
// stdio: no check fails (it speaks the legacy revisions only, and its
// warnings are logged), and its read-only tools are called.
func TestCheckReferenceServer(t *testing.T) {
	server := referenceServer(t)
	r := runCheck(t, append([]string{"--call", `get-sum={"a": 2, "b": 40}`, "--call", `get-structured-content={"location": "New York"}`, "--"}, server...)...)
	r.passes(t, "2025-11-25", "lifecycle.initialize", "lifecycle.negotiation", "ping.answered", "jsonrpc.unknown-method",
		"tools.list", "tools.input-schema", "tools.output-schema", "resources.list", "resources.read", "resources.templates", "prompts.get", "tools.call")
	for _, x := range r.Results {
		if x.ID == "lifecycle.discover" && x.Status != "skip" {
			t.Errorf("lifecycle.discover: %s, want skip (the reference server speaks no 2026-07-28)", x.Status)
		}
	}
}
