package config

import (
	"os"
	"path/filepath"
	"slices"
)

// A Machine is what discovery and expansion read: the operating system,
// the environment and the current directory. Tests give their own.
type Machine struct {
	GOOS      string                            // runtime.GOOS
	LookupEnv func(string) (string, bool)       // os.LookupEnv
	Dir       string                            // the current directory, absolute
	Stat      func(string) (os.FileInfo, error) // os.Stat; nil for os.Stat
}

func (m *Machine) getenv(name string) string {
	v, _ := m.LookupEnv(name)
	return v
}

func (m *Machine) stat(path string) (os.FileInfo, error) {
	if m.Stat != nil {
		return m.Stat(path)
	}
	return os.Stat(path)
}

// Home returns the user's home directory: $HOME (%USERPROFILE% on
// Windows), or "" if it is not set.
func (m *Machine) Home() string {
	if m.GOOS == "windows" {
		if h := m.getenv("USERPROFILE"); h != "" {
			return h
		}
	}
	return m.getenv("HOME")
}

// configDir returns where applications keep their settings: macOS's
// Application Support, Windows's %APPDATA%, else $XDG_CONFIG_HOME or
// ~/.config.
func (m *Machine) configDir() string {
	home := m.Home()
	switch m.GOOS {
	case "darwin", "ios":
		if home == "" {
			return ""
		}
		return filepath.Join(home, "Library", "Application Support")
	case "windows":
		if d := m.getenv("APPDATA"); d != "" {
			return d
		}
		if home == "" {
			return ""
		}
		return filepath.Join(home, "AppData", "Roaming")
	}
	if x := m.getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return x
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config")
}

// The files of a project, in the order they are read.
var projectFiles = []struct {
	rel  string
	host Host
}{
	{filepath.Join(".cursor", "mcp.json"), Cursor},
	{filepath.Join(".vscode", "mcp.json"), VSCode},
	{".mcp.json", ClaudeCode},
}

// Files returns the configuration files mcpwire reads when no --config is
// given, in order; the first that names a server wins. Some may not exist.
//
//  1. the project's: .cursor/mcp.json, .vscode/mcp.json and .mcp.json in
//     the current directory, or in the nearest parent that has one of
//     them, up to (not including) the home directory;
//  2. the user's: Claude Desktop's claude_desktop_config.json, Cursor's
//     ~/.cursor/mcp.json, VS Code's user mcp.json and settings.json.
func Files(m *Machine) []*File {
	var user []*File
	home, conf := m.Home(), m.configDir()
	if conf != "" {
		user = append(user, &File{Path: filepath.Join(conf, "Claude", "claude_desktop_config.json"), Host: ClaudeDesktop, Workspace: m.Dir})
	}
	if home != "" {
		user = append(user, &File{Path: filepath.Join(home, ".cursor", "mcp.json"), Host: Cursor, Workspace: m.Dir})
	}
	if conf != "" {
		dir := filepath.Join(conf, "Code", "User")
		user = append(user,
			&File{Path: filepath.Join(dir, "mcp.json"), Host: VSCode, Workspace: m.Dir},
			&File{Path: filepath.Join(dir, "settings.json"), Host: VSCode, Workspace: m.Dir, Settings: true})
	}
	var files []*File
	project := m.projectDir()
	for _, p := range projectFiles {
		path := filepath.Join(project, p.rel)
		if slices.ContainsFunc(user, func(f *File) bool { return f.Path == path }) {
			continue // run in the home directory: ~/.cursor/mcp.json is the user's
		}
		files = append(files, &File{Path: path, Host: p.host, Project: true, Workspace: project})
	}
	return append(files, user...)
}

// projectDir returns the project folder: the current directory or its
// nearest parent below the home directory that holds a project file; the
// current directory if none does.
func (m *Machine) projectDir() string {
	home := m.Home()
	for dir := m.Dir; ; {
		if home != "" && sameDir(dir, home) {
			break
		}
		for _, p := range projectFiles {
			if st, err := m.stat(filepath.Join(dir, p.rel)); err == nil && !st.IsDir() {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return m.Dir
}

func sameDir(a, b string) bool {
	return filepath.Clean(a) == filepath.Clean(b)
}

// Given returns the File for path, a file named with --config (Named: it
// must exist): one of the usual files if it is one, else a file whose
// host its name tells (claude_desktop_config.json, .cursor/mcp.json,
// .vscode/mcp.json, a VS Code User folder's mcp.json or settings.json,
// .mcp.json), else a Generic file.
func Given(path string, m *Machine) *File {
	f := given(path, m)
	f.Named = true
	return f
}

// given returns the File for path; see Given.
func given(path string, m *Machine) *File {
	if !filepath.IsAbs(path) {
		path = filepath.Join(m.Dir, path)
	}
	path = filepath.Clean(path)
	for _, f := range Files(m) {
		if f.Path == path {
			return f
		}
	}
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	parent := filepath.Base(dir)
	home := m.Home()
	project := func(host Host) *File {
		root := filepath.Dir(dir)
		if home != "" && sameDir(root, home) {
			return &File{Path: path, Host: host, Workspace: m.Dir} // ~/.cursor/mcp.json: the user's
		}
		return &File{Path: path, Host: host, Project: true, Workspace: root}
	}
	switch {
	case base == "claude_desktop_config.json":
		return &File{Path: path, Host: ClaudeDesktop, Workspace: m.Dir}
	case base == "mcp.json" && parent == ".cursor":
		return project(Cursor)
	case base == "mcp.json" && parent == ".vscode":
		return project(VSCode)
	case base == "mcp.json" && parent == "User":
		return &File{Path: path, Host: VSCode, Workspace: m.Dir}
	case base == "settings.json" && parent == "User":
		return &File{Path: path, Host: VSCode, Workspace: m.Dir, Settings: true}
	case base == "settings.json" && parent == ".vscode":
		f := project(VSCode)
		f.Settings = true
		return f
	case base == ".mcp.json":
		return &File{Path: path, Host: ClaudeCode, Project: true, Workspace: dir}
	}
	return &File{Path: path, Host: Generic, Workspace: m.Dir}
}
