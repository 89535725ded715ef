package app

import (
	"context"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

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
	// Now is the clock (of mcpwire login --status).
	Now func() time.Time
	// OpenBrowser, if not nil, opens the authorization URL of mcpwire
	// login instead of the browser: tests fetch the URL as a browser
	// would.
	OpenBrowser func(ctx context.Context, url string) error

	flags globalFlags // the global flags as given
}

// New returns the app of one run of the program.
func New(stdin io.Reader, stdout, stderr io.Writer) *App {
	return &App{
		Stdin:      stdin,
		Stdout:     stdout,
		Stderr:     &lockedWriter{w: stderr},
		Connect:    Connect,
		IsTerminal: isTerminal,
		Getenv:     os.Getenv,
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
}

// A Target names the server to talk to: a command to start, whose stdin
// and stdout carry the messages, or an HTTP endpoint.
type Target struct {
	Command []string // the program and its arguments, after "--"
	URL     string   // --url
	Headers []Header // --header, in order
	// TokenStore is the file of the token store, whose tokens are sent to
	// the server at URL; "" when it cannot be located (no token is sent
	// then, unless --header gives one).
	TokenStore string
	// Observer, if not nil, sees every frame exchanged with the server
	// (--trace).
	Observer transport.Observer
}

// A Header is one --header K=V.
type Header struct{ Key, Value string }

// splitArgs separates a command's positional arguments from the server
// command that follows "--".
func splitArgs(cmd *cobra.Command, args []string) (positional, server []string) {
	dash := cmd.ArgsLenAtDash()
	if dash < 0 {
		return args, nil
	}
	return args[:dash], args[dash:]
}

// ServerArgs returns the argument check of a command that takes the
// positional arguments names (exactly), then the server after "--".
func ServerArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		pos, server := splitArgs(cmd, args)
		switch {
		case len(pos) < len(names):
			return UsageErrorf("missing %s (usage: %s)", names[len(pos)], cmd.UseLine())
		case len(pos) > len(names) && len(server) == 0 && cmd.ArgsLenAtDash() < 0 && !cmd.Flags().Changed("url"):
			example := append(append([]string{cmd.CommandPath()}, pos[:len(names)]...), "--")
			example = append(example, pos[len(names):]...)
			return UsageErrorf("unexpected argument %q: name the server after --, as in: %s", pos[len(names)], strings.Join(example, " "))
		case len(pos) > len(names):
			return UsageErrorf("unexpected argument %q (usage: %s)", pos[len(names)], cmd.UseLine())
		}
		return nil
	}
}

// CompleteArgs returns the shell completion of the arguments of a
// command that takes n positional arguments: nothing for those (tool
// names and URIs come from a server not named yet), then the shell's
// own completion of programs and files, for the server command after
// "--". (Cobra's completion does not tell whether "--" was typed.)
func CompleteArgs(n int) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) < n {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveDefault
	}
}

// lockedWriter serializes the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p to the underlying writer, one call at a time.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// isTerminal reports whether w is a character device, such as a
// terminal.
func isTerminal(w io.Writer) bool {
	if l, ok := w.(*lockedWriter); ok {
		w = l.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Version returns the version of the mcpwire module in this binary.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
