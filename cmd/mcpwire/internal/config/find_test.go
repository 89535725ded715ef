package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestFiles: the usual files, in order, on each system.
func TestFiles(t *testing.T) {
	for _, tc := range []struct {
		goos string
		env  map[string]string
		want []string
	}{
		{"linux", map[string]string{"HOME": "/home/ada"}, []string{
			"/proj/.cursor/mcp.json", "/proj/.vscode/mcp.json", "/proj/.mcp.json",
			"/home/ada/.config/Claude/claude_desktop_config.json",
			"/home/ada/.cursor/mcp.json",
			"/home/ada/.config/Code/User/mcp.json", "/home/ada/.config/Code/User/settings.json",
		}},
		{"linux", map[string]string{"HOME": "/home/ada", "XDG_CONFIG_HOME": "/xdg"}, []string{
			"/proj/.cursor/mcp.json", "/proj/.vscode/mcp.json", "/proj/.mcp.json",
			"/xdg/Claude/claude_desktop_config.json",
			"/home/ada/.cursor/mcp.json",
			"/xdg/Code/User/mcp.json", "/xdg/Code/User/settings.json",
		}},
		{"darwin", map[string]string{"HOME": "/Users/ada"}, []string{
			"/proj/.cursor/mcp.json", "/proj/.vscode/mcp.json", "/proj/.mcp.json",
			"/Users/ada/Library/Application Support/Claude/claude_desktop_config.json",
			"/Users/ada/.cursor/mcp.json",
			"/Users/ada/Library/Application Support/Code/User/mcp.json", "/Users/ada/Library/Application Support/Code/User/settings.json",
		}},
		{"windows", map[string]string{"USERPROFILE": "/C/Users/ada", "APPDATA": "/C/Users/ada/AppData/Roaming"}, []string{
			"/proj/.cursor/mcp.json", "/proj/.vscode/mcp.json", "/proj/.mcp.json",
			"/C/Users/ada/AppData/Roaming/Claude/claude_desktop_config.json",
			"/C/Users/ada/.cursor/mcp.json",
			"/C/Users/ada/AppData/Roaming/Code/User/mcp.json", "/C/Users/ada/AppData/Roaming/Code/User/settings.json",
		}},
		{"linux", map[string]string{}, []string{"/proj/.cursor/mcp.json", "/proj/.vscode/mcp.json", "/proj/.mcp.json"}},
	} {
		m := machine("/proj", tc.env)
		m.GOOS = tc.goos
		var got []string
		for _, f := range Files(m) {
			got = append(got, filepath.ToSlash(f.Path))
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s %v:\n got %q\nwant %q", tc.goos, tc.env, got, tc.want)
		}
	}
}

// TestProjectDir: the project is the nearest folder with a project file,
// below the home directory; else the current directory.
func TestProjectDir(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".cursor", "mcp.json"), `{}`) // the user's file, not a project's
	proj := filepath.Join(home, "src", "proj")
	write(t, filepath.Join(proj, ".vscode", "mcp.json"), `{}`)
	deep := filepath.Join(proj, "a", "b")
	write(t, filepath.Join(deep, "x"), ``)
	for dir, want := range map[string]string{
		deep:                         proj,
		proj:                         proj,
		filepath.Join(home, "src"):   filepath.Join(home, "src"), // no project above: the current directory
		filepath.Join(home, "other"): filepath.Join(home, "other"),
	} {
		m := machine(dir, map[string]string{"HOME": home})
		if got := m.projectDir(); got != want {
			t.Errorf("in %s: project %s, want %s", dir, got, want)
		}
		f := Files(m)[0]
		if f.Workspace != want || !f.Project {
			t.Errorf("in %s: %+v", dir, f)
		}
	}
}

// TestGiven: a file named with --config is read as its host's, by its
// name.
func TestGiven(t *testing.T) {
	m := machine("/w", map[string]string{"HOME": "/home/ada"})
	for path, want := range map[string]File{
		"/home/ada/.config/Claude/claude_desktop_config.json": {Host: ClaudeDesktop, Workspace: "/w"},
		"/x/claude_desktop_config.json":                       {Host: ClaudeDesktop, Workspace: "/w"},
		"proj/.cursor/mcp.json":                               {Host: Cursor, Project: true, Workspace: "/w/proj"},
		"/home/ada/.cursor/mcp.json":                          {Host: Cursor, Workspace: "/w"},
		"/p/.vscode/mcp.json":                                 {Host: VSCode, Project: true, Workspace: "/p"},
		"/p/.vscode/settings.json":                            {Host: VSCode, Project: true, Workspace: "/p", Settings: true},
		"/Code - Insiders/User/mcp.json":                      {Host: VSCode, Workspace: "/w"},
		"/Code/User/settings.json":                            {Host: VSCode, Workspace: "/w", Settings: true},
		"/p/.mcp.json":                                        {Host: ClaudeCode, Project: true, Workspace: "/p"},
		"servers.json":                                        {Host: Generic, Workspace: "/w"},
	} {
		got := Given(path, m)
		want.Named = true
		want.Path = filepath.Join("/w", path)
		if filepath.IsAbs(path) {
			want.Path = path
		}
		if *got != want {
			t.Errorf("Given(%q) = %+v, want %+v", path, *got, want)
		}
	}
}

// TestGenericFile: a file of no known host may use either layout.
func TestGenericFile(t *testing.T) {
	for _, text := range []string{`{"mcpServers": {"a": {"command": "x"}}}`, `{"servers": {"a": {"command": "x"}}}`} {
		servers, err := parseFile(&File{Path: "F", Host: Generic}, []byte(text))
		if err != nil || len(servers) != 1 || servers[0].Name != "a" {
			t.Errorf("%s: %v %v", text, servers, err)
		}
	}
}

// TestFindPrecedence: a name in several files is the first file's: the
// project's before the user's, and in the documented order within each.
func TestFindPrecedence(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	m := machine(proj, map[string]string{"HOME": home})
	write(t, filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"), `{"mcpServers": {"a": {"command": "claude"}, "b": {"command": "claude"}}}`)
	write(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"b": {"command": "cursor-user"}, "c": {"command": "cursor-user"}}}`)
	write(t, filepath.Join(home, ".config", "Code", "User", "settings.json"), `{"mcp": {"servers": {"d": {"command": "vscode-settings"}}}}`)
	write(t, filepath.Join(proj, ".vscode", "mcp.json"), `{"servers": {"a": {"command": "vscode-project"}, "e": {"command": "vscode-project"}}}`)
	write(t, filepath.Join(proj, ".mcp.json"), `{"mcpServers": {"e": {"command": "claude-code"}, "f": {"command": "claude-code"}}}`)
	for name, want := range map[string]string{"a": "vscode-project", "b": "claude", "c": "cursor-user", "d": "vscode-settings", "e": "vscode-project", "f": "claude-code"} {
		s, err := Find(name, Files(m))
		if err != nil || s.Command != want {
			t.Errorf("%s: %+v, %v; want the one of %s", name, s, err, want)
		}
	}
	l, err := List(Files(m))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Found) != 5 || len(l.Servers) != 9 {
		t.Errorf("%d files, %d servers", len(l.Found), len(l.Servers))
	}
	a, hidden := l.Lookup("a")
	if a.Command != "vscode-project" || len(hidden) != 1 || hidden[0].Command != "claude" || l.Winner(hidden[0]) || !l.Winner(a) {
		t.Errorf("lookup a: %+v, hidden %+v", a, hidden)
	}
	// --config reads one file only.
	if s, err := Find("a", []*File{Given(filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"), m)}); err != nil || s.Command != "claude" {
		t.Errorf("--config: %+v, %v", s, err)
	}
}

// TestFindErrors: a name no file has, and a broken file before it.
func TestFindErrors(t *testing.T) {
	home := t.TempDir()
	m := machine(home, map[string]string{"HOME": home})
	_, err := Find("x", Files(m))
	if want := `no server named "x": no configuration file of Claude Desktop, Cursor, VS Code or Claude Code was found (mcpwire servers --help says where mcpwire looks)`; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	write(t, cursor, `{"mcpServers": {"github": {"url": "https://x/mcp"}, "files": {"command": "x"}}}`)
	_, err = Find("githb", Files(m))
	var nf *NotFoundError
	if want := `no server named "githb" in ` + cursor + `; did you mean "github"?; the servers are "github", "files"`; !errors.As(err, &nf) || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	_, err = Find("x", []*File{Given(cursor, m)})
	if want := `no server named "x" in ` + cursor + `; the servers are "github", "files"`; err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	// A file named with --config must exist (issue 18).
	_, err = Find("x", []*File{Given(filepath.Join(home, "nope.json"), m)})
	var fe *FileError
	if want := filepath.Join(home, "nope.json") + `: no such file or directory`; !errors.As(err, &fe) || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	// A broken file before the one that has the server.
	write(t, filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"), "{\n  \"mcpServers\": {,}\n}")
	_, err = Find("github", Files(m))
	if !errors.As(err, &fe) || fe.Line != 2 || !strings.Contains(err.Error(), "claude_desktop_config.json:2:18: invalid JSON") {
		t.Errorf("got %v", err)
	}
	// A directory where a file should be.
	write(t, filepath.Join(home, "dir", "x"), "")
	if _, _, err := Read(&File{Path: filepath.Join(home, "dir"), Host: Generic}); err == nil || !strings.HasSuffix(err.Error(), "dir: is a directory, not a file") {
		t.Errorf("got %v", err)
	}
}

// TestFileSizeLimit: a file larger than MaxFileSize is refused, without
// being read whole.
func TestFileSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	write(t, path, `{"x": "`+strings.Repeat("a", MaxFileSize)+`"}`)
	_, _, err := Read(&File{Path: path, Host: Generic})
	if err == nil || err.Error() != path+": larger than 4 MiB" {
		t.Errorf("got %v", err)
	}
}
