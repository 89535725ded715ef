package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/mcp"
)

// parseCall runs the command line args with mcpwire call only, and
// returns the options it parsed (nil if it failed) and the exit code.
func parseCall(t *testing.T, e *testEnv, args ...string) (*callOptions, int) {
	t.Helper()
	var got *callOptions
	code := e.executeWith(func(a *app) []*cobra.Command {
		return []*cobra.Command{newCallCmd(a, func(_ context.Context, o *callOptions) error { got = o; return nil })}
	}, args...)
	return got, code
}

func TestCallParse(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "args.json")
	if err := os.WriteFile(file, []byte("{\n  \"text\": \"from a file\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string // the arguments, compact
	}{
		{"default", []string{"call", "echo", "--", "srv"}, "", `{}`},
		{"inline", []string{"call", "echo", "--args", `{ "text": "hi" }`, "--", "srv"}, "", `{"text":"hi"}`},
		{"equals", []string{"call", "--args={\"a\":1}", "add", "--", "srv"}, "", `{"a":1}`},
		{"file", []string{"call", "echo", "--args", "@" + file, "--", "srv"}, "", `{"text":"from a file"}`},
		{"stdin", []string{"call", "echo", "--args", "-", "--", "srv"}, `{"text": "piped"}`, `{"text":"piped"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, testServerOptions{})
			e.app.stdin = strings.NewReader(tt.stdin)
			got, code := parseCall(t, e, tt.args...)
			if code != exitOK || got == nil {
				t.Fatalf("exit %d, stderr %q", code, e.stderr.String())
			}
			if string(got.Arguments) != tt.want {
				t.Errorf("arguments %s, want %s", got.Arguments, tt.want)
			}
		})
	}
}

func TestCallParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string // the error line
	}{
		{"no tool", []string{"call", "--", "srv"}, "",
			"mcpwire: missing TOOL (usage: mcpwire call TOOL [flags] (--url URL | -- COMMAND [ARG...]))\n"},
		{"no server", []string{"call", "echo"}, "",
			"mcpwire: no server given: name its command after -- (as in: mcpwire tools -- go run ./examples/hello) or its URL with --url\n"},
		{"server without --", []string{"call", "echo", "srv"}, "",
			"mcpwire: unexpected argument \"srv\": name the server after --, as in: mcpwire call echo -- srv\n"},
		{"invalid JSON", []string{"call", "echo", "--args", `{"text": }`, "--", "srv"}, "",
			"mcpwire: --args: invalid JSON at line 1, column 10: invalid character '}' looking for beginning of value\n"},
		{"truncated JSON", []string{"call", "echo", "--args", `{"text": "hi"`, "--", "srv"}, "",
			"mcpwire: --args: invalid JSON at the end of the input: unexpected end of JSON input\n"},
		{"not an object", []string{"call", "echo", "--args", `["hi"]`, "--", "srv"}, "",
			"mcpwire: --args: want a JSON object, got an array\n"},
		{"stdin", []string{"call", "echo", "--args", "-", "--", "srv"}, "{\n  \"text\": 'hi'\n}",
			"mcpwire: --args - (standard input): invalid JSON at line 2, column 11: invalid character '\\'' looking for beginning of value\n"},
		{"empty stdin", []string{"call", "echo", "--args", "-", "--", "srv"}, "",
			"mcpwire: --args - (standard input): no JSON given; want an object such as {\"name\": \"value\"}\n"},
		{"missing file", []string{"call", "echo", "--args", "@/nonexistent/args.json", "--", "srv"}, "",
			"mcpwire: --args: /nonexistent/args.json: no such file or directory\n"},
		{"unknown flag", []string{"call", "echo", "--arg", "{}", "--", "srv"}, "",
			"mcpwire: unknown flag: --arg (see mcpwire call --help)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, testServerOptions{})
			e.app.stdin = strings.NewReader(tt.stdin)
			got, code := parseCall(t, e, tt.args...)
			if code != exitUsage || got != nil {
				t.Errorf("exit %d, options %+v; want exit 2", code, got)
			}
			checkOutput(t, "stderr", e.stderr.String(), tt.want)
			checkOutput(t, "stdout", e.stdout.String(), "")
		})
	}
}

func TestRunCall(t *testing.T) {
	tests := []struct {
		tool, args, want string
	}{
		{"echo", `{"text":"hi","times":2}`, "hi hi\n"},
		// The text block that repeats the structured content is left out.
		{"add", `{"a":1,"b":2}`, "{\n  \"sum\": 3\n}\n"},
		{"media", `{}`, `Here is the logo:
[image image/png, 70 bytes]
[audio audio/wav, 1.5 KB]
[resource link test://logo, image/png, 70 bytes]
[resource test://readme, text/plain]
Hello from the test server.
[resource test://logo, image/png, 70 bytes]
`},
	}
	for _, v := range eras {
		for _, tt := range tests {
			t.Run(string(v)+"/"+tt.tool, func(t *testing.T) {
				e := newTestEnv(t, testServerOptions{})
				e.app.global.Protocol = v
				if err := runCall(context.Background(), e.app, &callOptions{Tool: tt.tool, Arguments: json.RawMessage(tt.args)}); err != nil {
					t.Fatal(err)
				}
				checkOutput(t, "stdout", e.stdout.String(), tt.want)
				checkOutput(t, "stderr", e.stderr.String(), "")
			})
		}
	}
}

// TestRunCallIsError: the tool's text goes to stderr, and the exit code
// is 3 with nothing more printed.
func TestRunCallIsError(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	err := runCall(context.Background(), e.app, &callOptions{Tool: "fail", Arguments: json.RawMessage(`{}`)})
	if c := exitCode(err); c != exitToolError || message(err) != "" {
		t.Errorf("error %v: exit %d, message %q; want exit 3, no message", err, c, message(err))
	}
	checkOutput(t, "stdout", e.stdout.String(), "")
	checkOutput(t, "stderr", e.stderr.String(), "it broke: the disk is full\n")
}

// TestCallInvalidArguments: arguments the tool's schema rejects are a
// tool error (the server's validation), exit 3.
func TestCallInvalidArguments(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	code := e.execute("call", "echo", "--args", `{"text": 5}`, "--", "srv")
	if code != exitToolError {
		t.Errorf("exit %d, want 3", code)
	}
	if !strings.Contains(e.stderr.String(), `invalid arguments for tool "echo"`) {
		t.Errorf("stderr %q", e.stderr.String())
	}
}

func TestRunCallJSON(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	e.app.global.JSON = true
	e.app.global.Protocol = mcp.LatestLegacy // no _meta in the result
	if err := runCall(context.Background(), e.app, &callOptions{Tool: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}); err != nil {
		t.Fatal(err)
	}
	checkOutput(t, "stdout", e.stdout.String(), `{
  "content": [
    {
      "type": "text",
      "text": "{\"sum\":3}"
    }
  ],
  "structuredContent": {
    "sum": 3
  }
}
`)
}

func TestRunCallJSONIsError(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	code := e.execute("call", "fail", "--json", "--protocol", string(mcp.LatestLegacy), "--", "srv")
	if code != exitToolError {
		t.Errorf("exit %d, want 3", code)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(e.stdout.Bytes(), &res); err != nil || !res.IsError {
		t.Errorf("stdout %q: %v", e.stdout.String(), err)
	}
	checkOutput(t, "stderr", e.stderr.String(), "mcpwire: tool \"fail\" reported an error\n")
}

func TestCallUnknownTool(t *testing.T) {
	for _, v := range eras {
		t.Run(string(v), func(t *testing.T) {
			e := newTestEnv(t, testServerOptions{})
			e.app.global.Protocol = v
			err := runCall(context.Background(), e.app, &callOptions{Tool: "nope", Arguments: json.RawMessage(`{}`)})
			if exitCode(err) != exitFailure {
				t.Errorf("exit %d, want 1", exitCode(err))
			}
			if got, want := message(err), `server error: Invalid params: unknown tool "nope" (code -32602)`; got != want {
				t.Errorf("message %q, want %q", got, want)
			}
		})
	}
}

func TestCallTimeout(t *testing.T) {
	e := newTestEnv(t, testServerOptions{})
	code := e.execute("call", "slow", "--timeout", "300ms", "--", "srv")
	if code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	checkOutput(t, "stderr", e.stderr.String(), "mcpwire: timed out after 300ms (see --timeout)\n")
}
