package talk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
)

// parseCall runs the command line args with mcpwire call only, and
// returns the options it parsed (nil if it failed) and the exit code.
func parseCall(t *testing.T, e *clitest.Env, args ...string) (*callOptions, int) {
	t.Helper()
	var got *callOptions
	code := e.ExecuteWith(func(a *app.App) []*cobra.Command {
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
			e := newTestEnv(t, clitest.ServerOptions{})
			e.App.Stdin = strings.NewReader(tt.stdin)
			got, code := parseCall(t, e, tt.args...)
			if code != app.ExitOK || got == nil {
				t.Fatalf("exit %d, stderr %q", code, e.Stderr.String())
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
			"mcpwire: missing TOOL (usage: mcpwire call TOOL [flags] (@NAME | --url URL | -- COMMAND [ARG...]))\n"},
		{"no server", []string{"call", "echo"}, "",
			"mcpwire: no server given: name its command after -- (as in: mcpwire tools -- go run ./examples/hello), its URL with --url, or a server of your hosts' configuration with @NAME (see mcpwire servers)\n"},
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
			"mcpwire: unknown flag: --arg; did you mean --args? (see mcpwire call --help)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t, clitest.ServerOptions{})
			e.App.Stdin = strings.NewReader(tt.stdin)
			got, code := parseCall(t, e, tt.args...)
			if code != app.ExitUsage || got != nil {
				t.Errorf("exit %d, options %+v; want exit 2", code, got)
			}
			clitest.CheckOutput(t, "stderr", e.Stderr.String(), tt.want)
			clitest.CheckOutput(t, "stdout", e.Stdout.String(), "")
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
				e := newTestEnv(t, clitest.ServerOptions{})
				e.App.Global.Protocol = v
				if err := runCall(context.Background(), e.App, &callOptions{Tool: tt.tool, Arguments: json.RawMessage(tt.args)}); err != nil {
					t.Fatal(err)
				}
				clitest.CheckOutput(t, "stdout", e.Stdout.String(), tt.want)
				clitest.CheckOutput(t, "stderr", e.Stderr.String(), "")
			})
		}
	}
}

// TestRunCallIsError: the tool's text goes to stderr, and the exit code
// is 3 with nothing more printed.
func TestRunCallIsError(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	err := runCall(context.Background(), e.App, &callOptions{Tool: "fail", Arguments: json.RawMessage(`{}`)})
	if c := app.ExitCode(err); c != app.ExitToolError || app.Message(err) != "" {
		t.Errorf("error %v: exit %d, message %q; want exit 3, no message", err, c, app.Message(err))
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), "")
	clitest.CheckOutput(t, "stderr", e.Stderr.String(), "it broke: the disk is full\n")
}

// TestCallInvalidArguments: arguments the tool's schema rejects are a
// tool error (the server's validation), exit 3.
func TestCallInvalidArguments(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	code := e.Execute("call", "echo", "--args", `{"text": 5}`, "--", "srv")
	if code != app.ExitToolError {
		t.Errorf("exit %d, want 3", code)
	}
	if !strings.Contains(e.Stderr.String(), `invalid arguments for tool "echo"`) {
		t.Errorf("stderr %q", e.Stderr.String())
	}
}

func TestRunCallJSON(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	e.App.Global.JSON = true
	e.App.Global.Protocol = mcp.LatestLegacy // no _meta in the result
	if err := runCall(context.Background(), e.App, &callOptions{Tool: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}); err != nil {
		t.Fatal(err)
	}
	clitest.CheckOutput(t, "stdout", e.Stdout.String(), `{
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
	e := newTestEnv(t, clitest.ServerOptions{})
	code := e.Execute("call", "fail", "--json", "--protocol", string(mcp.LatestLegacy), "--", "srv")
	if code != app.ExitToolError {
		t.Errorf("exit %d, want 3", code)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(e.Stdout.Bytes(), &res); err != nil || !res.IsError {
		t.Errorf("stdout %q: %v", e.Stdout.String(), err)
	}
	clitest.CheckOutput(t, "stderr", e.Stderr.String(), "mcpwire: tool \"fail\" reported an error\n")
}

// Regression (issue 18): mcpwire call printed a result whose
// structuredContent breaks the tool's outputSchema as if it were valid,
// with exit 0: the client checks results against the schemas it learned
// from tools/list, which call never asked. call learns the tool's schema
// first, and a result that breaks it fails, in both eras, with or
// without --json.
func TestCallChecksTheOutputSchema(t *testing.T) {
	for _, v := range eras {
		for _, js := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/json=%v", v, js), func(t *testing.T) {
				e := newTestEnv(t, clitest.ServerOptions{Lying: true})
				e.App.Global.Protocol = v
				e.App.Global.JSON = js
				err := runCall(context.Background(), e.App, &callOptions{Tool: "liar", Arguments: json.RawMessage(`{}`)})
				want := `the result of tool "liar" does not match its outputSchema: structuredContent/sum: `
				if err == nil {
					t.Fatalf("a result that breaks the outputSchema was printed as valid, exit 0; stdout %q", e.Stdout.String())
				}
				if app.ExitCode(err) != app.ExitFailure || !strings.HasPrefix(app.Message(err), want) {
					t.Errorf("error %v: exit %d, message %q; want exit 1, %q…", err, app.ExitCode(err), app.Message(err), want)
				}
				clitest.CheckOutput(t, "stdout", e.Stdout.String(), "")
			})
		}
	}
}

// Regression (issue 18): a tool that asks the user a question
// (elicitation) failed differently in each era, and neither said what to
// do: exit 1 "Missing required client capability" in the stateless one,
// exit 3 with the tool's own error text in a session. Both eras give the
// same exit code and message, which names what can answer; so does a
// tool that asks the model (sampling).
func TestCallOfAToolThatAsks(t *testing.T) {
	for _, tc := range []struct{ tool, want string }{
		{"ask", `tool "ask" asks the user a question ("What is your name?"), which mcpwire call cannot answer: call it from mcpwire inspect, which shows the question and sends your answer`},
		{"think", `tool "think" asks the model for a completion (sampling), which mcpwire call cannot answer: call it from mcpwire inspect, where you answer as the model`},
	} {
		for _, v := range []mcp.Version{mcp.Latest, mcp.LatestLegacy} {
			t.Run(tc.tool+"/"+string(v), func(t *testing.T) {
				e := newTestEnv(t, clitest.ServerOptions{Asking: true})
				code := e.Execute("call", tc.tool, "--protocol", string(v), "--", "srv")
				if code != app.ExitFailure {
					t.Errorf("exit %d, want %d", code, app.ExitFailure)
				}
				clitest.CheckOutput(t, "stderr", e.Stderr.String(), "mcpwire: "+tc.want+"\n")
				clitest.CheckOutput(t, "stdout", e.Stdout.String(), "")
			})
		}
	}
}

// Regression (issue 20, item 3): a prompt or a resource may ask too, but
// only call said what a question needs: get and read failed in the
// words of the server (a session: the error the handler returned when
// the client refused; the stateless era: "Missing required client
// capability"), differently in each era, naming nothing to do.
func TestGetAndReadOfAPromptOrResourceThatAsks(t *testing.T) {
	const user, model = "asks the user a question (\"Which topic?\")", "asks the model for a completion (sampling)"
	for _, tc := range []struct{ args, want string }{
		{"get ask", `prompt "ask" ` + user + `, which mcpwire get cannot answer: get it from mcpwire inspect, which shows the question and sends your answer`},
		{"get think", `prompt "think" ` + model + `, which mcpwire get cannot answer: get it from mcpwire inspect, where you answer as the model`},
		{"read test://ask", `resource "test://ask" ` + user + `, which mcpwire read cannot answer: read it from mcpwire inspect, which shows the question and sends your answer`},
		{"read test://think", `resource "test://think" ` + model + `, which mcpwire read cannot answer: read it from mcpwire inspect, where you answer as the model`},
	} {
		for _, v := range []mcp.Version{mcp.Latest, mcp.LatestLegacy} {
			t.Run(tc.args+"/"+string(v), func(t *testing.T) {
				e := newTestEnv(t, clitest.ServerOptions{Asking: true})
				code := e.Execute(append(strings.Fields(tc.args), "--protocol", string(v), "--", "srv")...)
				if code != app.ExitFailure {
					t.Errorf("exit %d, want %d", code, app.ExitFailure)
				}
				clitest.CheckOutput(t, "stderr", e.Stderr.String(), "mcpwire: "+tc.want+"\n")
				clitest.CheckOutput(t, "stdout", e.Stdout.String(), "")
			})
		}
	}
}

func TestCallUnknownTool(t *testing.T) {
	for _, v := range eras {
		t.Run(string(v), func(t *testing.T) {
			e := newTestEnv(t, clitest.ServerOptions{})
			e.App.Global.Protocol = v
			err := runCall(context.Background(), e.App, &callOptions{Tool: "nope", Arguments: json.RawMessage(`{}`)})
			if app.ExitCode(err) != app.ExitFailure {
				t.Errorf("exit %d, want 1", app.ExitCode(err))
			}
			if got, want := app.Message(err), `server error: Invalid params: unknown tool "nope" (code -32602); the server has no tool "nope" (mcpwire tools lists them)`; got != want {
				t.Errorf("message %q, want %q", got, want)
			}
		})
	}
}

func TestCallTimeout(t *testing.T) {
	e := newTestEnv(t, clitest.ServerOptions{})
	code := e.Execute("call", "slow", "--timeout", "300ms", "--", "srv")
	if code != app.ExitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	clitest.CheckOutput(t, "stderr", e.Stderr.String(), "mcpwire: timed out after 300ms (see --timeout)\n")
}

// TestWriteToolResult: text that repeats the structured content is left
// out; other text stays; structured content comes last, indented, under
// a line that labels it.
func TestWriteToolResult(t *testing.T) {
	var b bytes.Buffer
	err := writeToolResult(&b, &mcp.CallToolResult{
		Content: mcp.ContentList{
			&mcp.TextContent{Text: "Found 1 city."},
			&mcp.TextContent{Text: `{"cities": ["Paris"]}`},
		},
		StructuredContent: json.RawMessage(`{"cities":["Paris"]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	clitest.CheckOutput(t, "result", b.String(), "Found 1 city.\n[structured content]\n{\n  \"cities\": [\n    \"Paris\"\n  ]\n}\n")
}

// Regression (issue 19): mcpwire call read_text_file printed the file,
// then the same text again as structured content ({"content": "..."}).
// Structured content that only restates the text (an object of one
// string, the text) is left out; structured content that says more is
// printed after a line that labels it.
func TestToolResultPrintedOnceAndLabelled(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"restated text", &mcp.CallToolResult{
			Content:           mcp.ContentList{&mcp.TextContent{Text: "# notes\nbuy milk"}},
			StructuredContent: json.RawMessage(`{"content":"# notes\nbuy milk"}`),
		}, "# notes\nbuy milk\n"},
		{"text and more", &mcp.CallToolResult{
			Content:           mcp.ContentList{&mcp.TextContent{Text: "Found 1 city."}},
			StructuredContent: json.RawMessage(`{"cities":["Paris"]}`),
		}, "Found 1 city.\n[structured content]\n{\n  \"cities\": [\n    \"Paris\"\n  ]\n}\n"},
		{"structured alone", &mcp.CallToolResult{
			Content:           mcp.ContentList{&mcp.TextContent{Text: `{"sum":3}`}},
			StructuredContent: json.RawMessage(`{"sum":3}`),
		}, "{\n  \"sum\": 3\n}\n"},
		{"another string", &mcp.CallToolResult{
			Content:           mcp.ContentList{&mcp.TextContent{Text: "done"}},
			StructuredContent: json.RawMessage(`{"content":"other"}`),
		}, "done\n[structured content]\n{\n  \"content\": \"other\"\n}\n"},
	} {
		var b bytes.Buffer
		if err := writeToolResult(&b, tc.res); err != nil {
			t.Fatal(err)
		}
		clitest.CheckOutput(t, tc.name, b.String(), tc.want)
	}
}

// TestQuoteClipped: a server's question is quoted (control characters
// escaped) and cut at a character boundary.
func TestQuoteClipped(t *testing.T) {
	for in, want := range map[string]string{
		"Name?":                        `"Name?"`,
		"\x1b[31mred\x1b[0m":           `"\x1b[31mred\x1b[0m"`,
		strings.Repeat("é", 100):       `"` + strings.Repeat("é", 60) + `"...`,
		strings.Repeat("x", 119) + "é": `"` + strings.Repeat("x", 119) + `"...`,
	} {
		if got := quoteClipped(in, 120); got != want {
			t.Errorf("quoteClipped(%.20q) = %s, want %s", in, got, want)
		}
	}
}
