package app

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/config"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// An App is what the commands of one run of mcpwire share: the standard
// streams, the global options, and the way to reach the server. Its
// function fields are the seams of the tests; New sets them to the real
// thing.
type App struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer // safe for concurrent use: server logs arrive on their own goroutine

	// Global holds the global flags once checked: RunE and
	// ParseServerless set it before a command runs.
	Global Options

	// Connect builds the link to the server a target names. New sets it
	// to the package function Connect; tests replace it to serve an
	// in-process server.
	Connect func(ctx context.Context, t *Target, log *slog.Logger) (*Link, error)
	// IsTerminal reports whether w is a terminal, where raw bytes must
	// never go.
	IsTerminal func(w io.Writer) bool
	// Getenv reads the environment (the token store's location,
	// MCPWIRE_BROWSER); tests give their own.
	Getenv func(string) string
	// LookupEnv reads the environment for the hosts' configuration files
	// (where they are, and the variables they expand).
	LookupEnv func(string) (string, bool)
	// Getwd returns the current directory, where the project's
	// configuration files are looked for.
	Getwd func() (string, error)
	// Now is the clock (of mcpwire login --status).
	Now func() time.Time
	// OpenBrowser, if not nil, opens the authorization URL of mcpwire
	// login instead of the browser: tests fetch the URL as a browser
	// would.
	OpenBrowser func(ctx context.Context, url string) error
	// Telemetry, if not nil, records what the commands do (spans and
	// metrics); see Telemetry.
	Telemetry Telemetry

	flags globalFlags // the global flags as given
}

// New returns the app of one run of the program.
func New(stdin io.Reader, stdout, stderr io.Writer) *App {
	return &App{
		Stdin:      stdin,
		Stdout:     stdout,
		Stderr:     &stderrWriter{w: stderr},
		Connect:    Connect,
		IsTerminal: isTerminal,
		Getenv:     os.Getenv,
		LookupEnv:  os.LookupEnv,
		Getwd:      os.Getwd,
		Now:        time.Now,
	}
}

// Options are the flags every command takes, and the server named after
// "--".
type Options struct {
	JSON     bool          // --json: print the result as JSON
	Timeout  time.Duration // --timeout: bound of the whole operation; 0 for none
	Protocol mcp.Version   // --protocol: the revision to speak; "" to negotiate
	Verbose  bool          // --verbose: the server's stderr and the negotiated version
	Target   Target        // the server
	// URLs are the --url values, in order: one (Target.URL), or several
	// for a command annotated with ManyURLs.
	URLs []string
}

// A Target names the server to talk to: a command to start, whose stdin
// and stdout carry the messages, or an HTTP endpoint. It comes from the
// command line (after "--", --url), or from a host's configuration file
// (--server NAME, @NAME).
type Target struct {
	Command []string // the program and its arguments, after "--"
	Env     []string // KEY=VALUE added to mcpwire's environment for Command
	Unset   []string // variables removed from it
	Dir     string   // the directory to start Command in; "" for mcpwire's
	URL     string   // --url
	Headers []Header // --header, in order
	// TokenStore is the file of the token store, whose tokens are sent to
	// the server at URL; "" when it cannot be located (no token is sent
	// then, unless --header gives one).
	TokenStore string
	// Observer, if not nil, sees every frame exchanged with the server
	// (--trace).
	Observer transport.Observer
	// WrapHTTP, if not nil, wraps the HTTP transport of a server at URL,
	// below the authorization layer: it sees every HTTP exchange as it
	// goes on the wire (mcpwire inspect's Network view).
	WrapHTTP func(http.RoundTripper) http.RoundTripper
	// Config is the configured server the target is, or nil.
	Config *config.Server
}

// A Header is one --header K=V.
type Header struct{ Key, Value string }

// splitArgs separates a command's positional arguments from the server
// it names: the command that follows "--", or one positional argument
// @NAME, a server of the hosts' configuration files.
func splitArgs(cmd *cobra.Command, args []string) (positional []string, alias string, server []string, err error) {
	dash := cmd.ArgsLenAtDash()
	if dash >= 0 {
		args, server = args[:dash], args[dash:]
	}
	alias, positional, err = ServerAlias(args)
	return positional, alias, server, err
}

// ServerAlias finds the argument @NAME among args, the positional
// arguments of a command: it names a server of the hosts' configuration
// files. It returns NAME and the other arguments; two are a usage error.
func ServerAlias(args []string) (alias string, rest []string, err error) {
	for _, a := range args {
		name, ok := strings.CutPrefix(a, "@")
		if !ok || name == "" {
			rest = append(rest, a)
			continue
		}
		if alias != "" {
			return "", nil, UsageErrorf("name one server, not @%s and @%s", alias, name)
		}
		alias = name
	}
	return alias, rest, nil
}

// ServerArgs returns the argument check of a command that takes the
// positional arguments names (exactly), then the server: after "--", or
// @NAME anywhere among them.
func ServerArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		pos, alias, server, err := splitArgs(cmd, args)
		switch {
		case err != nil:
			return err
		case len(pos) < len(names):
			return UsageErrorf("missing %s (usage: %s)", names[len(pos)], cmd.UseLine())
		case len(pos) > len(names) && bareTrace(cmd, pos[len(names)]):
			return UsageErrorf("unexpected argument %q: a format goes after --trace with \"=\", as in --trace=%s", pos[len(names)], pos[len(names)])
		case len(pos) > len(names) && len(server) == 0 && alias == "" && cmd.ArgsLenAtDash() < 0 && !cmd.Flags().Changed("url") && !cmd.Flags().Changed("server"):
			example := append(append([]string{cmd.CommandPath()}, pos[:len(names)]...), "--")
			example = append(example, pos[len(names):]...)
			return UsageErrorf("unexpected argument %q: name the server after --, as in: %s", pos[len(names)], strings.Join(example, " "))
		case len(pos) > len(names):
			return UsageErrorf("unexpected argument %q (usage: %s)", pos[len(names)], cmd.UseLine())
		}
		return nil
	}
}

// bareTrace reports whether arg is a format of --trace that followed a
// bare --trace: "--trace jsonl" is --trace (the pretty format), then an
// argument "jsonl".
func bareTrace(cmd *cobra.Command, arg string) bool {
	f := cmd.Flags().Lookup("trace")
	return f != nil && f.Changed && f.Value.String() == f.NoOptDefVal && (arg == TraceJSONL || arg == TracePretty)
}

// CompleteArgs returns the shell completion of the arguments of a
// command that takes n positional arguments: the configured servers for
// a word that starts with @; nothing for the command's own arguments
// (tool names and URIs come from a server not named yet); then the
// shell's own completion of programs and files, for the server command
// after "--". (Cobra's completion does not tell whether "--" was typed.)
func (a *App) CompleteArgs(n int) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if strings.HasPrefix(toComplete, "@") {
			var out []cobra.Completion
			for _, name := range a.serverNames() {
				out = append(out, "@"+name)
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		if len(args) < n {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveDefault
	}
}

// stderrWriter is mcpwire's stderr: it serializes the writes, and masks
// the secrets of the configured server (see hide) in what it writes.
type stderrWriter struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string // longest first
}

// Write writes p to the underlying writer, one call at a time, with the
// secrets masked. A secret split between two writes is not masked: each
// message and log line is written whole.
func (l *stderrWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.secrets) == 0 {
		return l.w.Write(p)
	}
	s := string(p)
	for _, secret := range l.secrets {
		s = strings.ReplaceAll(s, secret, config.Mask)
	}
	if _, err := io.WriteString(l.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// minSecret is the length under which a value is not masked: a short
// value (a port, "1", "info") is not a secret, and masking it would
// garble every message.
const minSecret = 8

// hide masks the secrets in all that is written on a.Stderr from now on.
func (a *App) hide(secrets ...string) {
	w, ok := a.Stderr.(*stderrWriter)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range secrets {
		if len(s) >= minSecret && !slices.Contains(w.secrets, s) {
			w.secrets = append(w.secrets, s)
		}
	}
	slices.SortFunc(w.secrets, func(x, y string) int { return len(y) - len(x) })
}

// isTerminal reports whether w is a character device, such as a
// terminal.
func isTerminal(w io.Writer) bool {
	if l, ok := w.(*stderrWriter); ok {
		w = l.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
