package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readAll reads f and fails the test on an error.
func readAll(t *testing.T, f *File) []*Server {
	t.Helper()
	servers, ok, err := Read(f)
	if err != nil || !ok {
		t.Fatalf("Read(%s): ok %v, %v", f.Path, ok, err)
	}
	for _, s := range servers {
		if s.Err != nil {
			t.Errorf("server %s: %v", s.Name, s.Err)
		}
	}
	return servers
}

// entry is what a test expects of a server as written.
type entry struct {
	Name    string
	Line    int
	Kind    Kind
	Command string
	Args    []string
	Env     []EnvVar
	EnvFile string
	Cwd     string
	URL     string
	Headers []Header
}

func entries(servers []*Server) []entry {
	var out []entry
	for _, s := range servers {
		out = append(out, entry{s.Name, s.Line, s.Kind, s.Command, s.Args, s.Env, s.EnvFile, s.Cwd, s.URL, s.Headers})
	}
	return out
}

func checkEntries(t *testing.T, got []*Server, want []entry) {
	t.Helper()
	g := entries(got)
	if len(g) != len(want) {
		t.Fatalf("%d servers, want %d: %+v", len(g), len(want), g)
	}
	for i := range want {
		if !reflect.DeepEqual(g[i], want[i]) {
			t.Errorf("server %d:\n got %+v\nwant %+v", i, g[i], want[i])
		}
	}
}

// TestReadClaudeDesktop: the example of the MCP documentation's "Connect
// to local MCP servers", and the APPDATA workaround it gives for Windows.
func TestReadClaudeDesktop(t *testing.T) {
	f := &File{Path: filepath.Join("testdata", "claude", "claude_desktop_config.json"), Host: ClaudeDesktop}
	checkEntries(t, readAll(t, f), []entry{
		{Name: "filesystem", Line: 3, Kind: Stdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/username/Desktop", "/Users/username/Downloads"}},
		{Name: "brave-search", Line: 12, Kind: Stdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-brave-search"},
			Env: []EnvVar{{Name: "APPDATA", Value: `C:\Users\user\AppData\Roaming\`}, {Name: "BRAVE_API_KEY", Value: "BSA-literal-key-123"}}},
		{Name: "literal", Line: 20, Kind: Stdio, Command: "echo", Args: []string{"${HOME}", "${env:HOME}"}},
	})
}

// TestReadCursor: stdio with env and envFile, remote with url and
// headers, Cursor's auth object ignored, comments and trailing commas.
func TestReadCursor(t *testing.T) {
	f := &File{Path: filepath.Join("testdata", "cursor", ".cursor", "mcp.json"), Host: Cursor, Project: true, Workspace: filepath.Join("testdata", "cursor")}
	checkEntries(t, readAll(t, f), []entry{
		{Name: "server-name", Line: 4, Kind: Stdio, Command: "npx", Args: []string{"-y", "mcp-server"}, Env: []EnvVar{{Name: "API_KEY", Value: "${env:MY_API_KEY}"}}},
		{Name: "local", Line: 11, Kind: Stdio, Command: "${workspaceFolder}/bin/server",
			Args: []string{"--root", "${userHome}${/}notes", "--name", "${workspaceFolderBasename}"}, EnvFile: ".env"},
		{Name: "remote", Line: 17, Kind: HTTP, URL: "https://api.example.com/mcp?key=${env:REMOTE_KEY}",
			Headers: []Header{{Name: "Authorization", Value: "Bearer ${env:MY_SERVICE_TOKEN}"}}},
	})
}

// TestReadVSCode: the examples of VS Code's MCP configuration reference:
// inputs, a stdio server with env (a number, and null to unset), cwd, dev
// and sandbox (ignored), http and sse servers, a server without a type.
func TestReadVSCode(t *testing.T) {
	f := &File{Path: filepath.Join("testdata", "vscode", ".vscode", "mcp.json"), Host: VSCode, Project: true, Workspace: filepath.Join("testdata", "vscode")}
	servers := readAll(t, f)
	checkEntries(t, servers, []entry{
		{Name: "perplexity", Line: 17, Kind: Stdio, Command: "npx", Args: []string{"-y", "server-perplexity-ask", "--region", "${input:region}"},
			Env: []EnvVar{{Name: "PERPLEXITY_API_KEY", Value: "${input:perplexity-key}"}, {Name: "PORT", Value: "3000"}, {Name: "NODE_OPTIONS", Unset: true}},
			Cwd: "${workspaceFolder}/tools"},
		{Name: "context7", Line: 31, Kind: HTTP, URL: "https://mcp.context7.com/mcp", Headers: []Header{{Name: "Authorization", Value: "Bearer ${input:api-token}"}}},
		{Name: "memory", Line: 36, Kind: Stdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"}},
		{Name: "legacy", Line: 40, Kind: SSE, URL: "http://localhost:3000/sse"},
	})
	if in := servers[0].inputs; len(in) != 2 || in[0].ID != "perplexity-key" || in[0].Description != "Perplexity API Key" || in[1].Default != "eu" || !in[1].HasDefault {
		t.Errorf("inputs %+v", in)
	}
}

// TestReadVSCodeSettings: the servers of a settings.json are under "mcp";
// a settings.json without them has none.
func TestReadVSCodeSettings(t *testing.T) {
	f := &File{Path: filepath.Join("testdata", "vscode-user", "settings.json"), Host: VSCode, Settings: true}
	checkEntries(t, readAll(t, f), []entry{
		{Name: "fetch", Line: 6, Kind: Stdio, Command: "uvx", Args: []string{"mcp-server-fetch"}},
	})
	dir := t.TempDir()
	write(t, filepath.Join(dir, "settings.json"), `{"editor.fontSize": 14}`)
	if servers := readAll(t, &File{Path: filepath.Join(dir, "settings.json"), Host: VSCode, Settings: true}); len(servers) != 0 {
		t.Errorf("servers %+v", entries(servers))
	}
}

// TestReadClaudeCode: .mcp.json, with ${VAR} and ${VAR:-default}.
func TestReadClaudeCode(t *testing.T) {
	f := &File{Path: filepath.Join("testdata", "claudecode", ".mcp.json"), Host: ClaudeCode, Project: true, Workspace: filepath.Join("testdata", "claudecode")}
	checkEntries(t, readAll(t, f), []entry{
		{Name: "api-server", Line: 3, Kind: HTTP, URL: "${API_BASE_URL:-https://api.example.com}/mcp", Headers: []Header{{Name: "Authorization", Value: "Bearer ${API_KEY}"}}},
		{Name: "tools", Line: 10, Kind: Stdio, Command: "${TOOLS_BIN:-/usr/local/bin/tools}", Args: []string{"--user", "${USER_NAME}", "--literal", "${env:X}"},
			Env: []EnvVar{{Name: "CACHE", Value: "${CACHE_DIR:-}"}}},
	})
}

// TestReadMissing: a file that does not exist has no servers, and is not
// an error, unless it was named (--config).
func TestReadMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.json")
	servers, ok, err := Read(&File{Path: path, Host: Cursor})
	if servers != nil || ok || err != nil {
		t.Errorf("%v, %v, %v", servers, ok, err)
	}
	servers, ok, err = Read(&File{Path: path, Host: Cursor, Named: true})
	if want := path + ": no such file or directory"; servers != nil || ok || err == nil || err.Error() != want {
		t.Errorf("named: %v, %v, %v; want the error %q", servers, ok, err, want)
	}
}

// TestReadErrors: what is wrong with a file, and where. Errors of one
// entry are that server's; the file's structure is the file's.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, host, text string
		want             string // the file's error, or the first server's
	}{
		{"syntax", "claude-desktop", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n  }\n}", `F:5:2: invalid JSON: unexpected end of file: the object opened at line 1, column 1 is not closed`},
		{"missing colon", "cursor", `{"mcpServers" {}}`, `F:1:15: invalid JSON: unexpected '{'; want : after the member name "mcpServers"`},
		{"comment in plain JSON", "claude-desktop", "{\n  // servers\n  \"mcpServers\": {}\n}", "F:2:3: invalid JSON: comments are not allowed in this file (its host reads plain JSON)"},
		{"trailing comma in plain JSON", "claude-code", `{"mcpServers": {"a": {"command": "x"},}}`, "F:1:38: invalid JSON: a comma after the last member is not allowed in this file (its host reads plain JSON)"},
		{"open comment", "vscode", "{/* no end", "F:1:2: invalid JSON: a /* comment is not closed"},
		{"empty", "cursor", "  \n", "F:2:1: invalid JSON: the file is empty; want a JSON object"},
		{"not an object", "cursor", `["x"]`, "F:1:1: want a JSON object, got an array"},
		{"servers not an object", "vscode", "{\n\"servers\": []}", "F:2:12: the servers must be an object of named servers, got an array"},
		{"duplicate server", "cursor", "{\"mcpServers\": {\n \"a\": {\"command\": \"x\"},\n \"a\": {\"command\": \"y\"}}}", `F:3:2: "a" is given twice`},
		{"garbage after", "cursor", `{} {}`, "F:1:4: invalid JSON: unexpected '{' after the top-level value"},
		{"control character", "cursor", "{\"mcpServers\": {\"a\": {\"command\": \"x\ty\"}}}", "F:1:36: invalid JSON: a control character (0x09) in a string; write it escaped"},
		{"bad escape", "cursor", `{"mcpServers": {"a": {"command": "\q"}}}`, `F:1:34: invalid JSON: invalid string: invalid character 'q' in string escape code`},
		{"bad number", "cursor", `{"x": 1.2.3}`, `F:1:7: invalid JSON: invalid number "1.2.3"`},
		{"too deep", "cursor", `{"x": ` + strings.Repeat("[", 200), "F:1:134: invalid JSON: values nested more than 128 deep"},
		{"inputs not an array", "vscode", `{"inputs": {}, "servers": {}}`, `F:1:12: "inputs" must be an array, got an object`},
		{"input without id", "vscode", `{"inputs": [{"type": "promptString"}], "servers": {}}`, `F:1:13: an input needs an "id"`},
		// Errors of one entry.
		{"entry not an object", "cursor", `{"mcpServers": {"a": "npx"}}`, `F:1:22: server "a" must be an object, got a string`},
		{"args not an array", "cursor", "{\"mcpServers\": {\"a\": {\n  \"command\": \"x\",\n  \"args\": \"-y\"}}}", `F:3:11: server "a": "args" must be an array of strings, got a string`},
		{"arg not a string", "cursor", `{"mcpServers": {"a": {"command": "x", "args": ["-y", true]}}}`, `F:1:54: server "a": "args" must be an array of strings, got a boolean in it`},
		{"env value", "claude-desktop", `{"mcpServers": {"a": {"command": "x", "env": {"K": true}}}}`, `F:1:52: server "a": the value of "K" in "env" must be a string, got a boolean`},
		{"env twice", "claude-desktop", `{"mcpServers": {"a": {"command": "x", "env": {"K": "1", "K": "2"}}}}`, `F:1:57: "K" is given twice`},
		{"header value", "cursor", `{"mcpServers": {"a": {"url": "http://h/mcp", "headers": {"X": 1}}}}`, `F:1:63: server "a": the value of header "X" must be a string, got a number`},
		{"command and url", "cursor", `{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`, `F:1:22: server "a" has both a command and a url; give its "type"`},
		{"neither", "cursor", `{"mcpServers": {"a": {"args": []}}}`, `F:1:22: server "a" has neither a command nor a url`},
		{"unknown type", "vscode", `{"servers": {"a": {"type": "websocket", "url": "ws://h"}}}`, `F:1:28: server "a": unknown type "websocket"; want stdio, http or sse`},
		{"stdio without command", "vscode", `{"servers": {"a": {"type": "stdio", "url": "http://h"}}}`, `F:1:19: server "a": a stdio server needs a "command"`},
		{"http without url", "vscode", `{"servers": {"a": {"type": "http", "command": "x"}}}`, `F:1:19: server "a": an http server needs a "url"`},
		{"type not a string", "vscode", `{"servers": {"a": {"type": 1}}}`, `F:1:28: server "a": "type" must be a string, got a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &File{Path: "F", Host: Host(tc.host)}
			servers, err := parseFile(f, []byte(tc.text))
			got := ""
			switch {
			case err != nil:
				got = err.Error()
			case len(servers) > 0 && servers[0].Err != nil:
				got = servers[0].Err.Error()
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestReadUnknownFields: fields and top-level members mcpwire does not
// use are ignored, as the hosts ignore them.
func TestReadUnknownFields(t *testing.T) {
	f := &File{Path: "F", Host: Cursor}
	servers, err := parseFile(f, []byte(`{"$schema": "x", "mcpServers": {"a": {"command": "x", "disabled": false, "autoApprove": ["t"], "timeout": 60}}, "other": [1, {"b": null}]}`))
	if err != nil || len(servers) != 1 || servers[0].Err != nil || servers[0].Command != "x" {
		t.Fatalf("%v %+v", err, servers)
	}
}
