package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgainstEverythingServer runs the commands against the conformance
// everything-server over stdio, in both protocol eras: tools are listed
// and called, resources read and prompts rendered.
func TestAgainstEverythingServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the everything-server")
	}
	bin := filepath.Join(t.TempDir(), "everything-server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../../conformance/everything-server").CombinedOutput(); err != nil {
		t.Fatalf("building the everything-server: %v\n%s", err, out)
	}
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			run := func(want int, args ...string) string {
				t.Helper()
				var stdout, stderr bytes.Buffer
				args = append(append([]string{"--protocol", protocol}, args...), "--", bin, "-stdio")
				if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != want {
					t.Fatalf("mcpwire %s: exit %d, want %d; stderr: %s", strings.Join(args, " "), code, want, stderr.String())
				}
				return stdout.String()
			}
			out := run(0, "tools")
			for _, name := range []string{"test_simple_text", "test_image_content", "json_schema_2020_12_tool"} {
				if !strings.Contains(out, name) {
					t.Errorf("tools: %s missing from\n%s", name, out)
				}
			}
			if out := run(0, "call", "test_simple_text"); !strings.Contains(out, "This is a simple text response for testing.") {
				t.Errorf("call test_simple_text:\n%s", out)
			}
			if out := run(0, "call", "test_image_content"); !strings.Contains(out, "[image image/png") {
				t.Errorf("call test_image_content:\n%s", out)
			}
			run(3, "call", "test_error_handling")
			if out := run(0, "resources"); !strings.Contains(out, "test://static-text") || !strings.Contains(out, "test://template/{id}/data") {
				t.Errorf("resources:\n%s", out)
			}
			if out := run(0, "read", "test://static-text"); !strings.Contains(out, "This is the content of the static text resource.") {
				t.Errorf("read:\n%s", out)
			}
			if out := run(0, "read", "test://template/42/data"); !strings.Contains(out, `"id":"42"`) {
				t.Errorf("read template:\n%s", out)
			}
			if out := run(0, "prompts"); !strings.Contains(out, "test_prompt_with_arguments") {
				t.Errorf("prompts:\n%s", out)
			}
			if out := run(0, "get", "test_prompt_with_arguments", "--args", `{"arg1":"a","arg2":"b"}`); !strings.Contains(out, "arg1='a', arg2='b'") {
				t.Errorf("get:\n%s", out)
			}
		})
	}
}

// TestAgainstReferenceServer runs the commands, without flags, against
// the official TypeScript reference server (@modelcontextprotocol/
// server-everything, installed by scripts/install-peers.sh): the client
// probes the stateless era, falls back to 2025-11-25, and every command
// works.
func TestAgainstReferenceServer(t *testing.T) {
	node, everything := os.Getenv("NODE22"), os.Getenv("SERVER_EVERYTHING")
	if node == "" || everything == "" {
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatal("NODE22 and SERVER_EVERYTHING are not set: run eval \"$(scripts/install-peers.sh)\"")
		}
		t.Skip("NODE22 and SERVER_EVERYTHING are not set; run eval \"$(scripts/install-peers.sh)\" to test against the reference server")
	}
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args = append(args, "--", node, everything, "stdio")
		if code := Main(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("mcpwire %s: exit %d; stderr: %s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	if out := run("tools"); !strings.Contains(out, "echo") || !strings.Contains(out, "get-sum") {
		t.Errorf("tools:\n%s", out)
	}
	if out := run("call", "echo", "--args", `{"message":"from mcpwire"}`); !strings.Contains(out, "from mcpwire") {
		t.Errorf("call echo:\n%s", out)
	}
	if out := run("call", "get-sum", "--args", `{"a":2,"b":40}`); !strings.Contains(out, "42") {
		t.Errorf("call get-sum:\n%s", out)
	}
	out := run("resources")
	uri := ""
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "demo://") {
			uri = f
			break
		}
	}
	if uri == "" {
		t.Fatalf("resources lists no demo:// resource:\n%s", out)
	}
	run("read", uri)
	if out := run("prompts"); !strings.Contains(out, "simple-prompt") {
		t.Errorf("prompts:\n%s", out)
	}
	run("get", "simple-prompt")
	if out := run("--json", "call", "echo", "--args", `{"message":"json"}`); !strings.Contains(out, `"content"`) {
		t.Errorf("--json:\n%s", out)
	}
}
