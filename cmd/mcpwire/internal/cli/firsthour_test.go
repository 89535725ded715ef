package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// The mistakes of a newcomer's first hour (issue 19, "The first hour"):
// each error says what to do instead.

// Regression (issue 19): a mistyped flag was "unknown flag: --urll"
// alone; the nearest flag of the command is named.
func TestUnknownFlagNamesTheNearest(t *testing.T) {
	c := newCLIEnv(t)
	c.Fails(app.ExitUsage, `mcpwire: unknown flag: --urll; did you mean --url? (see mcpwire tools --help)`, "tools", "--urll", "http://localhost:3000/mcp")
	c.Fails(app.ExitUsage, `mcpwire: unknown flag: --arg; did you mean --args? (see mcpwire call --help)`, "call", "greet", "--arg", "{}", "--", "testserver")
	c.Fails(app.ExitUsage, `mcpwire: unknown flag: --tiemout; did you mean --timeout? (see mcpwire check --help)`, "check", "--tiemout", "1s", "--", "testserver")
	c.Fails(app.ExitUsage, `mcpwire: unknown flag: --frobnicate (see mcpwire tools --help)`, "tools", "--frobnicate", "--", "testserver")
}

// Regression (issue 19): "--trace jsonl" left "jsonl" as an argument of
// its own ("unexpected argument"), since --trace alone means the pretty
// format: the error says to write --trace=jsonl.
func TestTraceFormatAfterASpace(t *testing.T) {
	c := newCLIEnv(t)
	c.Fails(app.ExitUsage, `mcpwire: unexpected argument "jsonl": a format goes after --trace with "=", as in --trace=jsonl`, "tools", "--trace", "jsonl", "--", "testserver")
	c.Fails(app.ExitUsage, `mcpwire: unexpected argument "jsonl": a format goes after --trace with "=", as in --trace=jsonl`, "call", "echo", "--trace", "jsonl", "--", "testserver")
}

// Regression (issue 19): --url http://localhost:3000, the address of
// examples/http without its path, was two 404s in one line; the error
// names the endpoint to try.
func TestURLWithoutAPathSuggestsMCP(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{})
	base := strings.TrimSuffix(s.URL, "/mcp")
	c := newCLIEnv(t)
	c.NoBrowser = true
	for _, u := range []string{base, base + "/"} {
		c.Fails(app.ExitConnect, "mcpwire: "+u+` answered 404 Not Found (nothing is served there): MCP endpoints have a path; try --url `+base+`/mcp`, "tools", "--url", u)
	}
	// Another path is the user's choice: its 404 is told as it is.
	c.Fails(app.ExitConnect, `mcpwire: POST `+base+`/api: HTTP 404 Not Found…`, "tools", "--url", base+"/api")
}

// Regression (issue 19): --args name=Ada was refused with Go's "invalid
// character 'a' in literal null"; the error says that the arguments are a
// JSON object, and shows the one meant.
func TestArgsThatAreNotJSONShowAnObject(t *testing.T) {
	c := newCLIEnv(t)
	c.Fails(app.ExitUsage, `mcpwire: --args: the arguments are a JSON object, not name=Ada: --args '{"name":"Ada"}'`, "call", "echo", "--args", "name=Ada", "--", "testserver")
	c.Fails(app.ExitUsage, `mcpwire: --args: the arguments are a JSON object, not text=hi,times=2: --args '{"text":"hi","times":2}'`, "call", "echo", "--args", "text=hi,times=2", "--", "testserver")
	c.Fails(app.ExitUsage, `mcpwire: --args: the arguments are a JSON object, not who=Ada: --args '{"who":"Ada"}'`, "get", "greet", "--args", "who=Ada", "--", "testserver")
	c.Fails(app.ExitUsage, `mcpwire: --args: invalid JSON at line 1, column 1: invalid character 'h' looking for beginning of value; the arguments are a JSON object, such as {"name": "value"}`, "call", "echo", "--args", "hi", "--", "testserver")
}

// Regression (issue 19): -- ./examples/hello, a directory, was "permission
// denied"; the error says it is a directory, and how to run the Go program
// in it.
func TestServerThatIsADirectory(t *testing.T) {
	dir := t.TempDir()
	goDir := filepath.Join(dir, "hello")
	if err := os.Mkdir(goDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(goDir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newCLIEnv(t)
	c.Fails(app.ExitConnect, `mcpwire: cannot start the server "`+goDir+`": it is a directory, not a program; to run the Go program in it: -- go run `+goDir, "tools", "--", goDir)
	c.Fails(app.ExitConnect, `mcpwire: cannot start the server "`+dir+`": it is a directory, not a program`, "tools", "--", dir)
	// check starts its servers itself, and says the same.
	c.Fails(app.ExitConnect, `mcpwire: cannot start the server "`+goDir+`": it is a directory, not a program; to run the Go program in it: -- go run `+goDir, "check", "--", goDir)
	// A relative path is run as one: go run needs the "./".
	c.Dir = dir
	t.Chdir(dir)
	c.Fails(app.ExitConnect, `mcpwire: cannot start the server "hello/": it is a directory, not a program; to run the Go program in it: -- go run ./hello/`, "tools", "--", "hello/")
}

// Regression (issue 19): a call of a tool the server does not have said
// only the server's words ("unknown tool"); it names the nearest tools,
// and mcpwire tools.
func TestUnknownToolNamesTheNearest(t *testing.T) {
	c := newCLIEnv(t)
	c.Fails(app.ExitFailure, `mcpwire: server error: Invalid params: unknown tool "ech" (code -32602); the server has no tool "ech": did you mean "echo"? (mcpwire tools lists them)`, "call", "ech", "--", "testserver")
	c.Fails(app.ExitFailure, `mcpwire: server error: Invalid params: unknown tool "serch" (code -32602); the server has no tool "serch": did you mean "search"? (mcpwire tools lists them)`, "call", "serch", "--protocol", "2025-11-25", "--", "testserver")
	c.Fails(app.ExitFailure, `mcpwire: server error: Invalid params: unknown tool "translate" (code -32602); the server has no tool "translate" (mcpwire tools lists them)`, "call", "translate", "--", "testserver")
}
