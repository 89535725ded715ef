package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchReport is what the tests read of mcpwire bench --json.
type benchReport struct {
	Server    string  `json:"server"`
	Protocol  string  `json:"protocol"`
	Requests  int64   `json:"requests"`
	Errors    int64   `json:"errors"`
	DurationS float64 `json:"duration_s"`
	RPS       float64 `json:"rps"`
	LatencyMS struct {
		P50, P90, P99, Max float64
	} `json:"latency_ms"`
	Generator struct {
		CPUUsPerCall float64 `json:"cpu_us_per_call"`
	} `json:"generator"`
}

// runBench runs mcpwire bench --json with args and decodes its report.
func runBench(t *testing.T, args ...string) *benchReport {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append([]string{"bench", "--json"}, args...)
	if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("mcpwire %s: exit %d; stderr: %s", strings.Join(args, " "), code, stderr.String())
	}
	var r benchReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("mcpwire %s: %v\n%s", strings.Join(args, " "), err, stdout.String())
	}
	l := r.LatencyMS
	if r.Requests == 0 || r.Errors != 0 || r.RPS <= 0 || r.DurationS <= 0 || !(0 < l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max) {
		t.Fatalf("mcpwire %s: a report without calls or with errors: %+v", strings.Join(args, " "), r)
	}
	return &r
}

// buildEverything builds the conformance everything-server.
func buildEverything(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the everything-server")
	}
	bin := filepath.Join(t.TempDir(), "everything-server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../../conformance/everything-server").CombinedOutput(); err != nil {
		t.Fatalf("building the everything-server: %v\n%s", err, out)
	}
	return bin
}

// referenceServer returns the command line of the official reference
// server, or skips the test without it.
func referenceServer(t *testing.T) []string {
	t.Helper()
	node, everything := os.Getenv("NODE22"), os.Getenv("SERVER_EVERYTHING")
	if node == "" || everything == "" {
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatal("NODE22 and SERVER_EVERYTHING are not set: run eval \"$(scripts/install-peers.sh)\"")
		}
		t.Skip("NODE22 and SERVER_EVERYTHING are not set; run eval \"$(scripts/install-peers.sh)\" to test against the reference server")
	}
	return []string{node, everything, "stdio"}
}

// TestBenchEverythingServer loads the conformance everything-server over
// stdio in both eras, closed loop and at a rate, then over Streamable HTTP
// in both eras, and logs the rate reached and the generator's cost.
func TestBenchEverythingServer(t *testing.T) {
	bin := buildEverything(t)
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			r := runBench(t, "--protocol", protocol, "--tool", "test_simple_text", "-c", "4", "-d", "1s", "--", bin, "-stdio")
			if r.Protocol != protocol || !strings.Contains(r.Server, "everything-server") {
				t.Errorf("protocol %s, server %q", r.Protocol, r.Server)
			}
			t.Logf("%s: %.0f calls/s, p50 %.3f ms, p99 %.3f ms, generator %.1f µs of CPU per call", protocol, r.RPS, r.LatencyMS.P50, r.LatencyMS.P99, r.Generator.CPUUsPerCall)
		})
	}
	r := runBench(t, "--tool", "test_simple_text", "--rate", "200", "-n", "100", "--sessions", "2", "--", bin, "-stdio")
	if r.Requests != 100 {
		t.Errorf("--rate 200 -n 100: %d calls", r.Requests)
	}
	url := serveEverythingHTTP(t, bin)
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		r := runBench(t, "--protocol", protocol, "--tool", "test_simple_text", "-c", "4", "--sessions", "2", "-n", "500", "--url", url)
		if r.Protocol != protocol || r.Requests != 500 {
			t.Errorf("over HTTP in %s: protocol %s, %d calls", protocol, r.Protocol, r.Requests)
		}
		t.Logf("HTTP %s: %.0f calls/s, p50 %.3f ms, p99 %.3f ms, generator %.1f µs of CPU per call", protocol, r.RPS, r.LatencyMS.P50, r.LatencyMS.P99, r.Generator.CPUUsPerCall)
	}
}

// TestBenchReferenceServer loads the official reference server's echo
// tool with arguments that change on every call.
func TestBenchReferenceServer(t *testing.T) {
	server := referenceServer(t)
	r := runBench(t, append([]string{"--tool", "echo", "--args", `{"message":"call {{seq}} {{randstr 8}}"}`, "-c", "4", "-d", "1s", "--"}, server...)...)
	if r.Protocol != "2025-11-25" || !strings.Contains(r.Server, "everything") {
		t.Errorf("protocol %s, server %q", r.Protocol, r.Server)
	}
	t.Logf("reference server: %.0f calls/s, p50 %.3f ms, p99 %.3f ms, generator %.1f µs of CPU per call", r.RPS, r.LatencyMS.P50, r.LatencyMS.P99, r.Generator.CPUUsPerCall)
}
