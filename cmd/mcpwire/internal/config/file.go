package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// MaxFileSize bounds a configuration file mcpwire reads (a VS Code
// settings.json holds every setting, so this is generous).
const MaxFileSize = 4 << 20

// A Host is the application whose configuration file a server comes from.
// It decides the file's layout and which variables are expanded.
type Host string

// The hosts whose files mcpwire reads.
const (
	ClaudeDesktop Host = "claude-desktop" // claude_desktop_config.json: "mcpServers", no variables
	Cursor        Host = "cursor"         // .cursor/mcp.json: "mcpServers", ${env:NAME} and editor variables
	VSCode        Host = "vscode"         // .vscode/mcp.json, user mcp.json: "servers" and "inputs"; settings.json: under "mcp"
	ClaudeCode    Host = "claude-code"    // .mcp.json: "mcpServers", ${NAME} and ${NAME:-default}
	// Generic is a file given with --config whose name no host uses: its
	// "mcpServers" (or "servers") are read with every variable syntax of
	// the others.
	Generic Host = "generic"
)

// Title returns the host's name for people: "Claude Desktop", "VS Code".
func (h Host) Title() string {
	switch h {
	case ClaudeDesktop:
		return "Claude Desktop"
	case Cursor:
		return "Cursor"
	case VSCode:
		return "VS Code"
	case ClaudeCode:
		return "Claude Code"
	}
	return "mcpServers file"
}

// A File is one configuration file: where it is, whose it is, and what
// its variables refer to.
type File struct {
	Path string // the file
	Host Host
	// Project reports whether the file belongs to a project (the
	// .cursor, .vscode or .mcp.json of a folder) rather than to the user.
	Project bool
	// Workspace is the folder ${workspaceFolder} names: the project's for
	// a project file, the current directory for the others. A stdio
	// server of a project file starts there unless its cwd says
	// otherwise.
	Workspace string
	// Settings reports whether the file is a VS Code settings.json, whose
	// servers are under "mcp".
	Settings bool
	// Named reports that the file was named (with --config), not looked
	// for: it must exist. The usual files may well not.
	Named bool
}

// comments reports whether the file's host reads JSON with comments and
// trailing commas.
func (f *File) comments() bool {
	return f.Host == VSCode || f.Host == Cursor || f.Host == Generic
}

// A Kind is how a server is reached.
type Kind string

// The kinds of servers.
const (
	Stdio Kind = "stdio" // a command whose stdin and stdout carry the messages
	HTTP  Kind = "http"  // Streamable HTTP (mcpwire falls back to HTTP+SSE by itself)
	SSE   Kind = "sse"   // the older HTTP+SSE transport (reached like http)
)

// A Server is one server of a configuration file, as written: variables
// are expanded by Resolve, when the server is used.
type Server struct {
	Name string
	File *File
	Line int // where its entry starts in the file
	Col  int
	// Err, if not nil, says why the entry cannot be used (a field of the
	// wrong type, no command or url); the other fields are then partial.
	Err error

	Kind    Kind
	Command string
	Args    []string
	Env     []EnvVar
	EnvFile string // VS Code and Cursor: a file of more variables (KEY=VALUE lines)
	Cwd     string // the directory to start the command in
	URL     string
	Headers []Header

	inputs []input // the file's inputs (VS Code)
}

// Where returns "FILE:LINE:COL", where the server's entry starts.
func (s *Server) Where() string {
	return fmt.Sprintf("%s:%d:%d", s.File.Path, s.Line, s.Col)
}

// An EnvVar is one variable of a server's env.
type EnvVar struct {
	Name  string
	Value string // as written (a number is written as its text)
	Unset bool   // VS Code: null removes the variable from the environment
}

// A Header is one header of a server's headers.
type Header struct{ Name, Value string }

// input is one entry of a VS Code file's "inputs".
type input struct {
	ID          string
	Type        string // promptString, pickString, command
	Description string
	Default     string
	HasDefault  bool
}

// A FileError is a configuration file that cannot be read or is not
// valid: its path, and the position of the mistake when it has one.
type FileError struct {
	Path      string
	Line, Col int // 0 when the error has no position
	Err       error
}

// Error returns "FILE:LINE:COL: MESSAGE" (or "FILE: MESSAGE").
func (e *FileError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("%s:%d:%d: %v", e.Path, e.Line, e.Col, e.Err)
}

// Unwrap returns the error.
func (e *FileError) Unwrap() error { return e.Err }

// Read reads the servers of f, in the order of the file; none if the file
// does not exist (ok is then false), unless f was Named: a file named
// that does not exist is an error. An entry that is not a valid server
// is returned with its Err set; a file that is not valid JSON, or whose
// servers are not an object, is an error (a *FileError).
func Read(f *File) (servers []*Server, ok bool, err error) {
	fh, err := os.Open(f.Path)
	if errors.Is(err, fs.ErrNotExist) && !f.Named {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &FileError{Path: f.Path, Err: unwrapPath(err)}
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.IsDir() {
		return nil, false, &FileError{Path: f.Path, Err: errors.New("is a directory, not a file")}
	}
	data, err := io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, false, &FileError{Path: f.Path, Err: unwrapPath(err)}
	}
	if len(data) > MaxFileSize {
		return nil, false, &FileError{Path: f.Path, Err: fmt.Errorf("larger than %d MiB", MaxFileSize>>20)}
	}
	servers, err = parseFile(f, data)
	return servers, true, err
}

// unwrapPath drops the operation and path of an *fs.PathError: the path
// is said once, by the FileError.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseFile reads the servers of f from data.
func parseFile(f *File, data []byte) ([]*Server, error) {
	root, err := parse(data, f.comments())
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, &FileError{Path: f.Path, Line: se.Line, Col: se.Col, Err: fmt.Errorf("invalid JSON: %s", se.Msg)}
		}
		return nil, &FileError{Path: f.Path, Err: err}
	}
	r := &reader{f: f, data: data}
	return r.file(root)
}

// reader interprets the parsed file.
type reader struct {
	f    *File
	data []byte
}

// errorAt returns a FileError at offset off.
func (r *reader) errorAt(off int, format string, args ...any) error {
	line, col := lineCol(r.data, off)
	return &FileError{Path: r.f.Path, Line: line, Col: col, Err: fmt.Errorf(format, args...)}
}

// file reads the top level: the servers map and, for VS Code, inputs.
func (r *reader) file(root *value) ([]*Server, error) {
	if root.kind != '{' {
		return nil, r.errorAt(root.off, "want a JSON object, got %s", root.kindName())
	}
	top := root
	if r.f.Settings {
		// VS Code's settings.json: {"mcp": {"servers": ..., "inputs": ...}}.
		top = root.get("mcp")
		if top == nil {
			return nil, nil
		}
		if top.kind != '{' {
			return nil, r.errorAt(top.off, `"mcp" must be an object, got %s`, top.kindName())
		}
	}
	if err := r.unique(top, "mcpServers", "servers", "inputs"); err != nil {
		return nil, err
	}
	var servers *value
	switch {
	case r.f.Host == VSCode:
		servers = top.get("servers")
	case r.f.Host == Generic && top.get("mcpServers") == nil:
		servers = top.get("servers")
	default:
		servers = top.get("mcpServers")
	}
	if servers == nil {
		return nil, nil
	}
	if servers.kind != '{' {
		return nil, r.errorAt(servers.off, "the servers must be an object of named servers, got %s", servers.kindName())
	}
	if err := r.unique(servers); err != nil {
		return nil, err
	}
	inputs, err := r.inputs(top.get("inputs"))
	if err != nil {
		return nil, err
	}
	var out []*Server
	for _, m := range servers.members {
		s := r.server(m)
		s.inputs = inputs
		out = append(out, s)
	}
	return out, nil
}

// unique fails if object v repeats a member name (only names, when
// given).
func (r *reader) unique(v *value, names ...string) error {
	seen := make(map[string]bool, len(v.members))
	for _, m := range v.members {
		if len(names) > 0 && !slices.Contains(names, m.name) {
			continue
		}
		if seen[m.name] {
			return r.errorAt(m.off, "%q is given twice", m.name)
		}
		seen[m.name] = true
	}
	return nil
}

// inputs reads VS Code's "inputs": an array of objects with an id.
func (r *reader) inputs(v *value) ([]input, error) {
	if v == nil {
		return nil, nil
	}
	if v.kind != '[' {
		return nil, r.errorAt(v.off, `"inputs" must be an array, got %s`, v.kindName())
	}
	var out []input
	for _, e := range v.elems {
		if e.kind != '{' {
			return nil, r.errorAt(e.off, "an input must be an object, got %s", e.kindName())
		}
		var in input
		for _, f := range []struct {
			name string
			p    *string
		}{{"id", &in.ID}, {"type", &in.Type}, {"description", &in.Description}} {
			if fv := e.get(f.name); fv != nil {
				if fv.kind != '"' {
					return nil, r.errorAt(fv.off, "an input's %q must be a string, got %s", f.name, fv.kindName())
				}
				*f.p = fv.str
			}
		}
		if in.ID == "" {
			return nil, r.errorAt(e.off, `an input needs an "id"`)
		}
		if d := e.get("default"); d != nil && d.kind == '"' {
			in.Default, in.HasDefault = d.str, true
		}
		out = append(out, in)
	}
	return out, nil
}

// server reads one server entry; its mistakes go in its Err.
func (r *reader) server(m member) *Server {
	line, col := lineCol(r.data, m.off)
	s := &Server{Name: m.name, File: r.f, Line: line, Col: col}
	s.Err = r.serverFields(s, m.val)
	return s
}

func (r *reader) serverFields(s *Server, v *value) error {
	if v.kind != '{' {
		return r.errorAt(v.off, "server %q must be an object, got %s", s.Name, v.kindName())
	}
	if err := r.unique(v); err != nil {
		return err
	}
	str := func(name string, p *string) error {
		fv := v.get(name)
		if fv == nil {
			return nil
		}
		if fv.kind != '"' {
			return r.errorAt(fv.off, "server %q: %q must be a string, got %s", s.Name, name, fv.kindName())
		}
		*p = fv.str
		return nil
	}
	var typ string
	for _, f := range []struct {
		name string
		p    *string
	}{{"type", &typ}, {"command", &s.Command}, {"url", &s.URL}, {"cwd", &s.Cwd}, {"envFile", &s.EnvFile}} {
		if err := str(f.name, f.p); err != nil {
			return err
		}
	}
	if a := v.get("args"); a != nil {
		if a.kind != '[' {
			return r.errorAt(a.off, "server %q: \"args\" must be an array of strings, got %s", s.Name, a.kindName())
		}
		for _, e := range a.elems {
			switch e.kind {
			case '"':
				s.Args = append(s.Args, e.str)
			case '0': // VS Code's schema says strings; a number is meant as its text
				s.Args = append(s.Args, e.num)
			default:
				return r.errorAt(e.off, "server %q: \"args\" must be an array of strings, got %s in it", s.Name, e.kindName())
			}
		}
	}
	if e := v.get("env"); e != nil {
		if e.kind != '{' {
			return r.errorAt(e.off, "server %q: \"env\" must be an object of names and values, got %s", s.Name, e.kindName())
		}
		if err := r.unique(e); err != nil {
			return err
		}
		for _, m := range e.members {
			switch m.val.kind {
			case '"':
				s.Env = append(s.Env, EnvVar{Name: m.name, Value: m.val.str})
			case '0':
				s.Env = append(s.Env, EnvVar{Name: m.name, Value: m.val.num})
			case 'n':
				s.Env = append(s.Env, EnvVar{Name: m.name, Unset: true})
			default:
				return r.errorAt(m.val.off, "server %q: the value of %q in \"env\" must be a string, got %s", s.Name, m.name, m.val.kindName())
			}
			if m.name == "" || strings.ContainsAny(m.name, "=\x00") {
				return r.errorAt(m.off, "server %q: %q is not an environment variable name", s.Name, m.name)
			}
		}
	}
	if h := v.get("headers"); h != nil {
		if h.kind != '{' {
			return r.errorAt(h.off, "server %q: \"headers\" must be an object of names and values, got %s", s.Name, h.kindName())
		}
		for _, m := range h.members {
			if m.val.kind != '"' {
				return r.errorAt(m.val.off, "server %q: the value of header %q must be a string, got %s", s.Name, m.name, m.val.kindName())
			}
			s.Headers = append(s.Headers, Header{Name: m.name, Value: m.val.str})
		}
	}
	switch typ {
	case "":
		switch {
		case s.Command != "" && s.URL != "":
			return r.errorAt(v.off, "server %q has both a command and a url; give its \"type\"", s.Name)
		case s.Command != "":
			s.Kind = Stdio
		case s.URL != "":
			s.Kind = HTTP
		default:
			return r.errorAt(v.off, "server %q has neither a command nor a url", s.Name)
		}
	case "stdio":
		s.Kind = Stdio
	case "http", "streamable-http", "streamableHttp":
		s.Kind = HTTP
	case "sse":
		s.Kind = SSE
	default:
		return r.errorAt(v.get("type").off, "server %q: unknown type %q; want stdio, http or sse", s.Name, typ)
	}
	switch {
	case s.Kind == Stdio && s.Command == "":
		return r.errorAt(v.off, "server %q: a stdio server needs a \"command\"", s.Name)
	case s.Kind != Stdio && s.URL == "":
		return r.errorAt(v.off, "server %q: an %s server needs a \"url\"", s.Name, s.Kind)
	}
	return nil
}
