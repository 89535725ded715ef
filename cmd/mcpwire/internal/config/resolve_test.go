package config

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// server returns the server name of f.
func server(t *testing.T, f *File, name string) *Server {
	t.Helper()
	for _, s := range readAll(t, f) {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in %s", name, f.Path)
	return nil
}

// TestResolveClaudeDesktop: Claude Desktop expands nothing.
func TestResolveClaudeDesktop(t *testing.T) {
	f := &File{Path: filepath.Join("testdata", "claude", "claude_desktop_config.json"), Host: ClaudeDesktop, Workspace: "/work"}
	m := machine("/work", map[string]string{"HOME": "/home/ada"})
	l, err := server(t, f, "literal").Resolve(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"echo", "${HOME}", "${env:HOME}"}; !reflect.DeepEqual(l.Command, want) {
		t.Errorf("command %q, want %q", l.Command, want)
	}
	l, err = server(t, f, "brave-search").Resolve(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`APPDATA=C:\Users\user\AppData\Roaming\`, "BRAVE_API_KEY=BSA-literal-key-123"}; !reflect.DeepEqual(l.Env, want) {
		t.Errorf("env %q", l.Env)
	}
	if l.Dir != "" {
		t.Errorf("dir %q: a user file's server starts in mcpwire's directory", l.Dir)
	}
	if !slices.Contains(l.Secrets, "BSA-literal-key-123") {
		t.Errorf("secrets %q", l.Secrets)
	}
}

// TestResolveCursor: ${env:NAME} (empty when unset), ${userHome},
// ${workspaceFolder}, ${workspaceFolderBasename}, ${/}; the envFile,
// relative to the project, under the env; a project server starts in
// the project.
func TestResolveCursor(t *testing.T) {
	project, err := filepath.Abs(filepath.Join("testdata", "cursor"))
	if err != nil {
		t.Fatal(err)
	}
	f := &File{Path: filepath.Join(project, ".cursor", "mcp.json"), Host: Cursor, Project: true, Workspace: project}
	m := machine("/elsewhere", map[string]string{"HOME": "/home/ada", "MY_API_KEY": "sk-from-env-123", "MY_SERVICE_TOKEN": "tok-456789", "REMOTE_KEY": "rk-abcdef"})

	l, err := server(t, f, "server-name").Resolve(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"API_KEY=sk-from-env-123"}; !reflect.DeepEqual(l.Env, want) || l.Dir != project {
		t.Errorf("env %q, dir %q", l.Env, l.Dir)
	}
	if !slices.Contains(l.Secrets, "sk-from-env-123") {
		t.Errorf("secrets %q", l.Secrets)
	}

	l, err = server(t, f, "local").Resolve(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{project + "/bin/server", "--root", "/home/ada/notes", "--name", "cursor"}; !reflect.DeepEqual(l.Command, want) {
		t.Errorf("command %q, want %q", l.Command, want)
	}
	if want := []string{"DB_URL=postgres://u:p@db/x", "MODE=fast", "QUOTED=kept # as is"}; !reflect.DeepEqual(l.Env, want) {
		t.Errorf("env %q, want %q", l.Env, want)
	}

	l, err = server(t, f, "remote").Resolve(m)
	if err != nil {
		t.Fatal(err)
	}
	if l.URL != "https://api.example.com/mcp?key=rk-abcdef" || !reflect.DeepEqual(l.Headers, []Header{{"Authorization", "Bearer tok-456789"}}) {
		t.Errorf("url %q, headers %q", l.URL, l.Headers)
	}
	for _, s := range []string{"rk-abcdef", "tok-456789", "Bearer tok-456789"} {
		if !slices.Contains(l.Secrets, s) {
			t.Errorf("%q is not among the secrets %q", s, l.Secrets)
		}
	}

	// An unset ${env:NAME} is empty.
	l, err = server(t, f, "server-name").Resolve(machine("/", nil))
	if err != nil || !reflect.DeepEqual(l.Env, []string{"API_KEY="}) {
		t.Errorf("%q, %v", l.Env, err)
	}
}

// TestResolveVSCode: ${input:ID} from MCPWIRE_INPUT_ID or the input's
// default; a number in env is its text; null unsets; cwd relative to
// the workspace.
func TestResolveVSCode(t *testing.T) {
	project := "/src/app"
	f := &File{Path: filepath.Join("testdata", "vscode", ".vscode", "mcp.json"), Host: VSCode, Project: true, Workspace: project}
	m := machine("/src/app/sub", map[string]string{"MCPWIRE_INPUT_PERPLEXITY_KEY": "pplx-secret-99"})
	l, err := server(t, f, "perplexity").Resolve(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"npx", "-y", "server-perplexity-ask", "--region", "eu"}; !reflect.DeepEqual(l.Command, want) {
		t.Errorf("command %q", l.Command)
	}
	if want := []string{"PERPLEXITY_API_KEY=pplx-secret-99", "PORT=3000"}; !reflect.DeepEqual(l.Env, want) || !reflect.DeepEqual(l.Unset, []string{"NODE_OPTIONS"}) {
		t.Errorf("env %q, unset %q", l.Env, l.Unset)
	}
	if l.Dir != "/src/app/tools" {
		t.Errorf("dir %q", l.Dir)
	}
	// The input has no value: say which variable gives it.
	_, err = server(t, f, "perplexity").Resolve(machine("/", nil))
	want := `server "perplexity", env PERPLEXITY_API_KEY: ${input:perplexity-key} (Perplexity API Key) is asked of the user by VS Code; mcpwire does not ask: set MCPWIRE_INPUT_PERPLEXITY_KEY`
	if err == nil || !strings.HasSuffix(err.Error(), want) || !strings.HasPrefix(err.Error(), f.Path+":17:5: ") {
		t.Errorf("got  %v\nwant %s:17:5: %s", err, f.Path, want)
	}
	// An input the file does not declare.
	_, err = server(t, f, "context7").Resolve(machine("/", nil))
	if err == nil || !strings.Contains(err.Error(), `header Authorization: ${input:api-token}: no input has this id in the file's "inputs"; set MCPWIRE_INPUT_API_TOKEN to give its value`) {
		t.Errorf("got %v", err)
	}
}

// TestResolveClaudeCode: ${NAME} and ${NAME:-default}; an unset variable
// without a default is an error; ${env:X} is not Claude Code's and stays.
func TestResolveClaudeCode(t *testing.T) {
	f := &File{Path: filepath.Join("testdata", "claudecode", ".mcp.json"), Host: ClaudeCode, Project: true, Workspace: "/p"}
	m := machine("/p", map[string]string{"API_KEY": "ak-123456", "USER_NAME": "ada", "X": "x"})
	l, err := server(t, f, "api-server").Resolve(m)
	if err != nil {
		t.Fatal(err)
	}
	if l.URL != "https://api.example.com/mcp" || l.Headers[0].Value != "Bearer ak-123456" {
		t.Errorf("url %q, headers %q", l.URL, l.Headers)
	}
	l, err = server(t, f, "tools").Resolve(m)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/usr/local/bin/tools", "--user", "ada", "--literal", "${env:X}"}; !reflect.DeepEqual(l.Command, want) {
		t.Errorf("command %q", l.Command)
	}
	if want := []string{"CACHE="}; !reflect.DeepEqual(l.Env, want) {
		t.Errorf("env %q", l.Env)
	}
	_, err = server(t, f, "tools").Resolve(machine("/p", nil))
	if want := `:10:5: server "tools", args[1]: ${USER_NAME}: the environment variable USER_NAME is not set (write ${USER_NAME:-default} for a default)`; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %v", err)
	}
}

// TestExpand: the syntaxes of each dialect, and what is left alone.
func TestExpand(t *testing.T) {
	env := map[string]string{"HOME": "/home/ada", "A": "a", "EMPTY": ""}
	m := machine("/cwd", env)
	for _, tc := range []struct {
		host      Host
		in, want  string
		wantError string
	}{
		{ClaudeDesktop, "${A} ${env:A} ${userHome}", "${A} ${env:A} ${userHome}", ""},
		{Cursor, "${env:A}-${env:NOPE}-${userHome}${/}x", "a--/home/ada/x", ""},
		{Cursor, "${A} ${input:x} ${cwd} ${unknown} $A ${", "${A} ${input:x} ${cwd} ${unknown} $A ${", ""},
		{Cursor, "${workspaceFolder}|${workspaceFolderBasename}|${pathSeparator}", "/w/proj|proj|/", ""},
		{VSCode, "${cwd} ${env:A} ${A}", "/cwd a ${A}", ""},
		{VSCode, "${file}", "", "${file} needs VS Code's editor; mcpwire cannot expand it"},
		{VSCode, "${config:editor.fontSize}", "", "${config:editor.fontSize} needs VS Code's editor; mcpwire cannot expand it"},
		{VSCode, "${command:pick}", "", "${command:pick} needs VS Code's editor; mcpwire cannot expand it"},
		{VSCode, "${workspaceFolder:Client}", "", "${workspaceFolder:Client} needs VS Code's editor; mcpwire cannot expand it"},
		{ClaudeCode, "${A}${EMPTY:-d}${NOPE:-}${A:-x}", "ad" + "" + "a", ""},
		{ClaudeCode, "${EMPTY}", "", ""},
		{ClaudeCode, "${1A} ${env:A} ${a-b}", "${1A} ${env:A} ${a-b}", ""},
		{ClaudeCode, "${userHome}", "", "${userHome}: the environment variable userHome is not set (write ${userHome:-default} for a default)"},
		{ClaudeCode, "${NOPE}", "", "${NOPE}: the environment variable NOPE is not set (write ${NOPE:-default} for a default)"},
		{Generic, "${A} ${env:A} ${userHome} ${B:-b}", "a a /home/ada b", ""},
	} {
		s := &Server{Name: "s"}
		x := &expander{d: dialectOf(tc.host), m: m, f: &File{Workspace: "/w/proj"}, s: s}
		got, err := x.expand(tc.in, "f")
		switch {
		case tc.wantError != "" && (err == nil || err.Error() != `server "s", f: `+tc.wantError):
			t.Errorf("%s %q: error %v, want %q", tc.host, tc.in, err, tc.wantError)
		case tc.wantError == "" && (err != nil || got != tc.want):
			t.Errorf("%s %q: %q, %v; want %q", tc.host, tc.in, got, err, tc.want)
		}
	}
	// Windows's separator.
	x := &expander{d: dialectOf(Cursor), m: &Machine{GOOS: "windows", LookupEnv: m.LookupEnv}, f: &File{}, s: &Server{}}
	if got, _ := x.expand("a${/}b${pathSeparator}c", "f"); got != `a\b\c` {
		t.Errorf("windows: %q", got)
	}
}

func TestInputEnv(t *testing.T) {
	for id, want := range map[string]string{"perplexity-key": "MCPWIRE_INPUT_PERPLEXITY_KEY", "api.token2": "MCPWIRE_INPUT_API_TOKEN2", "é": "MCPWIRE_INPUT__"} {
		if got := InputEnv(id); got != want {
			t.Errorf("InputEnv(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestResolveURL: the URLs mcpwire cannot reach are said so.
func TestResolveURL(t *testing.T) {
	for url, want := range map[string]string{
		"unix:///tmp/server.sock#/mcp": `url "unix:///tmp/server.sock#/mcp": mcpwire does not reach servers on Unix sockets or named pipes`,
		"ws://h/mcp":                   `url "ws://h/mcp": want an http or https URL`,
		"localhost:3000/mcp":           `url "localhost:3000/mcp": want an http or https URL`,
	} {
		s := &Server{Name: "s", File: &File{Path: "F", Host: Cursor}, Line: 1, Col: 2, Kind: HTTP, URL: url}
		_, err := s.Resolve(machine("/", nil))
		if err == nil || err.Error() != `F:1:2: server "s": `+want {
			t.Errorf("%s: %v", url, err)
		}
	}
}

func TestParseEnvFile(t *testing.T) {
	vars, err := parseEnvFile([]byte("# c\n\nA=1\nexport B = two words \nC=\"x\\ny \\\"q\\\"\" # c\nD='a # b'\nE=\nF=v # comment\nG=a#b\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "two words"}, {Name: "C", Value: "x\ny \"q\""}, {Name: "D", Value: "a # b"}, {Name: "E"}, {Name: "F", Value: "v"}, {Name: "G", Value: "a#b"}}
	if !reflect.DeepEqual(vars, want) {
		t.Errorf("got  %+v\nwant %+v", vars, want)
	}
	for text, want := range map[string]string{
		"A=1\nnot a line\n": "2: want NAME=VALUE",
		"1A=x":              "1: want NAME=VALUE",
		"A=\"open":          "1: the value of A has no closing \"",
		"A='open":           "1: the value of A has no closing '",
	} {
		if _, err := parseEnvFile([]byte(text)); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}
