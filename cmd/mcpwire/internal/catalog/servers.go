package catalog

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/config"
)

// serversOptions are the options of mcpwire servers: none of its own
// (--config and --json are global).
type serversOptions struct{}

const serversLong = `List the MCP servers that the configuration files of MCP hosts name, for
the other commands to reach with @NAME (or --server NAME): its name, how
it is reached (stdio: a command; http or sse: a URL), the variables or
headers it sets (their values are never shown), and its file.

With --config FILE, only that file is read, and it must exist. Otherwise
mcpwire reads these files, those that exist, in this order; a name in
several is the first one's (the others are listed as shadowed):

  The project's, in the current directory or the nearest parent (below
  your home directory) that has one of them:
    .cursor/mcp.json    Cursor
    .vscode/mcp.json    VS Code
    .mcp.json           Claude Code
  Yours:
    claude_desktop_config.json   Claude Desktop: in ~/Library/Application
                                 Support/Claude (macOS), %APPDATA%\Claude
                                 (Windows), ~/.config/Claude (Linux)
    ~/.cursor/mcp.json           Cursor
    mcp.json, settings.json      VS Code ("mcp" in settings.json): in
                                 ~/Library/Application Support/Code/User
                                 (macOS), %APPDATA%\Code\User (Windows),
                                 ~/.config/Code/User (Linux)

Claude Desktop, Cursor and Claude Code name their servers in "mcpServers",
VS Code in "servers": command, args, env, cwd and envFile for a server
started by mcpwire, url (and type http or sse) and headers for one over
HTTP. Variables are expanded as each host does:

  Claude Desktop  none
  Cursor          ${env:NAME} ${userHome} ${workspaceFolder}
                  ${workspaceFolderBasename} ${pathSeparator} ${/}
  VS Code         the same, ${cwd}, and ${input:ID}: the value of the
                  variable MCPWIRE_INPUT_ID (ID in capitals, - as _), else
                  the input's default (mcpwire does not prompt)
  Claude Code     ${NAME} and ${NAME:-default}

${workspaceFolder} is the project's folder (a project's server starts
there), or the current directory for your own files. A file given with
--config is read as its name tells (claude_desktop_config.json,
.cursor/mcp.json, ...), else with all of the syntaxes above.

The values of env and headers, and what variables expand to, are secrets:
mcpwire masks them as **** in everything it prints.

With --json, print {"servers": [...], "files": [...]}: each server with
its name, kind, command and args or url (as written), the names of its
env variables or headers, its file and host, and whether another file's
server of the same name shadows it; each file with its host and whether
it exists.`

func newServersCmd(a *app.App, runF func(context.Context, *serversOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "servers [flags]",
		Short: "List the servers named in MCP hosts' configuration files",
		Long:  serversLong,
		Example: `  mcpwire servers
  mcpwire servers --config ~/.cursor/mcp.json --json
  mcpwire tools @github`,
		GroupID: groupConfig,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return app.UsageErrorf("%s takes no arguments (usage: %s)", cmd.CommandPath(), cmd.UseLine())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := a.ParseLocal(cmd); err != nil {
				return err
			}
			o := &serversOptions{}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return app.Failure(runServers(cmd.Context(), a, o))
		},
	}
}

// runServers lists the servers.
func runServers(_ context.Context, a *app.App, _ *serversOptions) error {
	files, m, err := a.ConfigFiles()
	if err != nil {
		return err
	}
	l, err := config.List(files)
	if err != nil {
		return err
	}
	if a.Global.JSON {
		return app.WriteJSON(a.Stdout, listJSON(l))
	}
	return writeServers(a, l, m.Home())
}

// writeServers writes a table of the servers, then the files read.
func writeServers(a *app.App, l *config.Listing, home string) error {
	var b bytes.Buffer
	if len(l.Servers) == 0 {
		b.WriteString("No servers are configured. Looked in:\n")
		for _, f := range l.Files {
			b.WriteString("  " + tilde(f.Path, home) + "\n")
		}
		b.WriteString("(mcpwire servers --help says what these files hold)\n")
		_, err := a.Stdout.Write(b.Bytes())
		return err
	}
	t := &app.Table{Header: []string{"NAME", "KIND", "COMMAND OR URL", "ENV OR HEADERS", "FILE"}}
	var notes []string
	for _, s := range l.Servers {
		name, kind := s.Name, string(s.Kind)
		if s.Err != nil {
			kind = "invalid"
			notes = append(notes, s.Err.Error())
		}
		if !l.Winner(s) {
			name += " (shadowed)"
		}
		t.Add(name, kind, s.Target(), strings.Join(s.Settings(), ", "), tilde(s.File.Path, home))
	}
	t.Write(&b, "")
	for _, n := range notes {
		b.WriteString("\n" + n + "\n")
	}
	_, err := a.Stdout.Write(b.Bytes())
	return err
}

// tilde writes path with the home directory as ~.
func tilde(path, home string) string {
	if home == "" {
		return path
	}
	if rel, err := filepath.Rel(home, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Join("~", rel)
	}
	return path
}

// serverJSON is one server in the --json output.
type serverJSON struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind,omitempty"`
	Command  string   `json:"command,omitempty"`
	Args     []string `json:"args,omitempty"`
	URL      string   `json:"url,omitempty"`
	Env      []string `json:"env,omitempty"`     // the names
	Headers  []string `json:"headers,omitempty"` // the names
	EnvFile  string   `json:"envFile,omitempty"`
	Cwd      string   `json:"cwd,omitempty"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Host     string   `json:"host"`
	Shadowed bool     `json:"shadowed"`
	Error    string   `json:"error,omitempty"`
}

// fileJSON is one file in the --json output.
type fileJSON struct {
	Path   string `json:"path"`
	Host   string `json:"host"`
	Exists bool   `json:"exists"`
}

// listJSON is the --json output: the servers, masked, and the files.
func listJSON(l *config.Listing) any {
	out := struct {
		Servers []serverJSON `json:"servers"`
		Files   []fileJSON   `json:"files"`
	}{Servers: []serverJSON{}, Files: []fileJSON{}}
	for _, s := range l.Servers {
		j := serverJSON{Name: s.Name, Kind: string(s.Kind), File: s.File.Path, Line: s.Line, Host: string(s.File.Host),
			Shadowed: !l.Winner(s), EnvFile: s.EnvFile, Cwd: s.Cwd}
		if s.Err != nil {
			j.Kind, j.Error = "", s.Err.Error()
		}
		if s.Kind == config.Stdio {
			j.Command = config.MaskURL(s.Command)
			for _, a := range s.Args {
				j.Args = append(j.Args, config.MaskURL(a))
			}
			for _, e := range s.Env {
				j.Env = append(j.Env, e.Name)
			}
		} else {
			j.URL = config.MaskURL(s.URL)
			for _, h := range s.Headers {
				j.Headers = append(j.Headers, h.Name)
			}
		}
		out.Servers = append(out.Servers, j)
	}
	for _, f := range l.Files {
		out.Files = append(out.Files, fileJSON{Path: f.Path, Host: string(f.Host), Exists: slices.Contains(l.Found, f)})
	}
	return out
}
