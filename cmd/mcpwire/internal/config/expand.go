package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Each host expands variables in a server's strings (command, args, env
// values, url, header values; mcpwire also in cwd and envFile) its own
// way, and mcpwire does as the file's host does:
//
//	Claude Desktop  nothing
//	Cursor          ${env:NAME} ${userHome} ${workspaceFolder}
//	                ${workspaceFolderBasename} ${pathSeparator} ${/}
//	VS Code         the same, ${cwd}, and ${input:ID}
//	Claude Code     ${NAME} and ${NAME:-default} (.mcp.json)
//	Generic         all of Cursor's and Claude Code's
//
// A reference a host does not know is left as it is, as the hosts do.
// ${env:NAME} of an unset variable is empty (as in VS Code and Cursor);
// ${NAME} of an unset variable, without a default, is an error (as Claude
// Code documents). VS Code's ${input:ID} takes the value of the
// environment variable MCPWIRE_INPUT_ID (the id in capitals, other
// characters than letters and digits as _), else the input's default:
// mcpwire does not prompt. VS Code's variables that need an editor
// (${file}, ${config:...}, ${command:...}) are an error.

// dialect is the variable syntax of a host.
type dialect struct {
	envColon bool // ${env:NAME}
	editor   bool // ${userHome}, ${workspaceFolder}, ...
	inputs   bool // ${input:ID}, ${cwd}, and the editor-only variables as errors
	bare     bool // ${NAME}, ${NAME:-default}
}

func dialectOf(h Host) dialect {
	switch h {
	case Cursor:
		return dialect{envColon: true, editor: true}
	case VSCode:
		return dialect{envColon: true, editor: true, inputs: true}
	case ClaudeCode:
		return dialect{bare: true}
	case Generic:
		return dialect{envColon: true, editor: true, bare: true}
	}
	return dialect{}
}

// editorOnly are VS Code's variables that need an open editor.
var editorOnly = []string{
	"file", "fileWorkspaceFolder", "relativeFile", "relativeFileDirname", "fileBasename",
	"fileBasenameNoExtension", "fileExtname", "fileDirname", "fileDirnameBasename",
	"lineNumber", "columnNumber", "selectedText", "execPath", "defaultBuildTask",
}

// InputEnv returns the environment variable that gives VS Code's input id
// its value: MCPWIRE_INPUT_ and the id in capitals, every character other
// than a letter or digit as _.
func InputEnv(id string) string {
	var b strings.Builder
	b.WriteString("MCPWIRE_INPUT_")
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
		case c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// expander expands the variables of one server.
type expander struct {
	d       dialect
	m       *Machine
	f       *File
	s       *Server
	secret  bool     // the string being expanded is a secret (an env or header value)
	secrets []string // values of variables expanded into secrets, and of inputs
}

// expandSecret expands s, an env or header value: the values its
// variables expand to are secrets too (the token of "Bearer ${env:TOKEN}").
func (x *expander) expandSecret(s, field string) (string, error) {
	x.secret = true
	defer func() { x.secret = false }()
	return x.expand(s, field)
}

// expand returns s with its variables expanded; field names the string
// for errors ("args[2]", "header Authorization").
func (x *expander) expand(s, field string) (string, error) {
	if !strings.Contains(s, "${") || x.d == (dialect{}) {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+end]
		v, ok, err := x.lookup(ref)
		if err != nil {
			return "", fmt.Errorf("server %q, %s: %w", x.s.Name, field, err)
		}
		if ok {
			b.WriteString(v)
		} else {
			b.WriteString(s[i : i+end+1])
		}
		s = s[i+end+1:]
	}
}

// lookup returns the value of the reference ref (what is between ${ and
// }), or ok false to leave it as it is.
func (x *expander) lookup(ref string) (v string, ok bool, err error) {
	d := x.d
	if name, found := strings.CutPrefix(ref, "env:"); found && d.envColon {
		v, _ := x.m.LookupEnv(name)
		x.note(v)
		return v, true, nil
	}
	if id, found := strings.CutPrefix(ref, "input:"); found && d.inputs {
		v, err := x.input(id)
		if v != "" {
			x.secrets = append(x.secrets, v) // what VS Code asks for is a secret wherever it goes
		}
		return v, err == nil, err
	}
	if d.editor {
		switch ref {
		case "userHome":
			if h := x.m.Home(); h != "" {
				return h, true, nil
			}
			return "", false, fmt.Errorf("${userHome}: no home directory (HOME is not set)")
		case "workspaceFolder":
			return x.f.Workspace, true, nil
		case "workspaceFolderBasename":
			return filepath.Base(x.f.Workspace), true, nil
		case "pathSeparator", "/":
			if x.m.GOOS == "windows" {
				return `\`, true, nil
			}
			return "/", true, nil
		}
	}
	if d.inputs {
		if ref == "cwd" {
			return x.m.Dir, true, nil
		}
		prefix, _, _ := strings.Cut(ref, ":")
		if slices.Contains(editorOnly, ref) || prefix == "config" || prefix == "command" || prefix == "workspaceFolder" {
			return "", false, fmt.Errorf("${%s} needs VS Code's editor; mcpwire cannot expand it", ref)
		}
	}
	if d.bare {
		name, def, hasDef := strings.Cut(ref, ":-")
		if validEnvName(name) {
			v, set := x.m.LookupEnv(name)
			switch {
			case set && v != "":
				x.note(v)
				return v, true, nil
			case hasDef:
				return def, true, nil
			case set:
				return "", true, nil
			}
			return "", false, fmt.Errorf("${%s}: the environment variable %s is not set (write ${%s:-default} for a default)", name, name, name)
		}
	}
	return "", false, nil
}

// input returns the value of VS Code's input id.
func (x *expander) input(id string) (string, error) {
	env := InputEnv(id)
	if v, ok := x.m.LookupEnv(env); ok {
		return v, nil
	}
	for _, in := range x.s.inputs {
		if in.ID != id {
			continue
		}
		if in.HasDefault {
			return in.Default, nil
		}
		what := ""
		if in.Description != "" {
			what = " (" + in.Description + ")"
		}
		return "", fmt.Errorf("${input:%s}%s is asked of the user by VS Code; mcpwire does not ask: set %s", id, what, env)
	}
	return "", fmt.Errorf("${input:%s}: no input has this id in the file's \"inputs\"; set %s to give its value", id, env)
}

// note notes v, a variable's value, as a secret if it goes into one.
func (x *expander) note(v string) {
	if x.secret && v != "" {
		x.secrets = append(x.secrets, v)
	}
}

// validEnvName reports whether name is a variable name of the shells:
// a letter or _, then letters, digits and _.
func validEnvName(name string) bool {
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return name != ""
}
