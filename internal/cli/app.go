package cli

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
)

// app is what the commands share: the standard streams, the global
// options, and the way to reach the server.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer // safe for concurrent use: server logs arrive on their own goroutine

	flags  globalFlags   // the global flags as given
	global globalOptions // the global flags once checked

	// connectTarget builds the transport to the server the global options
	// name. It is the package function connectTarget; tests replace it to
	// serve an in-process server.
	connectTarget func(ctx context.Context, t *target, log *slog.Logger) (*link, error)
	// isTerminal reports whether w is a terminal, where raw bytes must
	// never go.
	isTerminal func(w io.Writer) bool
	// getenv reads the environment (the token store's location,
	// MCPWIRE_BROWSER); tests give their own.
	getenv func(string) string
	// now is the clock of mcpwire login --status.
	now func() time.Time
	// openBrowser, if not nil, opens the authorization URL of mcpwire
	// login instead of the browser (see browser): tests fetch the URL as
	// a browser would.
	openBrowser func(ctx context.Context, url string) error
}

// newApp returns the app of one run of the program.
func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{
		stdin:         stdin,
		stdout:        stdout,
		stderr:        &lockedWriter{w: stderr},
		connectTarget: connectTarget,
		isTerminal:    isTerminal,
		getenv:        os.Getenv,
		now:           time.Now,
	}
}

// globalOptions are the flags every command takes, and the server named
// after "--".
type globalOptions struct {
	JSON     bool          // --json: print the result as JSON
	Timeout  time.Duration // --timeout: bound of the whole operation; 0 for none
	Protocol mcp.Version   // --protocol: the revision to speak; "" to negotiate
	Verbose  bool          // --verbose: the server's stderr and the negotiated version
	Target   target        // the server
}

// A target names the server to talk to: a command to start, whose stdin
// and stdout carry the messages, or an HTTP endpoint.
type target struct {
	Command []string // the program and its arguments, after "--"
	URL     string   // --url
	Headers []header // --header, in order
	// TokenStore is the file of the token store, whose tokens are sent to
	// the server at URL; "" when it cannot be located (no token is sent
	// then, unless --header gives one).
	TokenStore string
}

// A header is one --header K=V.
type header struct{ Key, Value string }

// splitArgs separates a command's positional arguments from the server
// command that follows "--".
func splitArgs(cmd *cobra.Command, args []string) (positional, server []string) {
	dash := cmd.ArgsLenAtDash()
	if dash < 0 {
		return args, nil
	}
	return args[:dash], args[dash:]
}

// serverArgs returns the argument check of a command that takes the
// positional arguments names (exactly), then the server after "--".
func serverArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		pos, server := splitArgs(cmd, args)
		switch {
		case len(pos) < len(names):
			return usageErrorf("missing %s (usage: %s)", names[len(pos)], cmd.UseLine())
		case len(pos) > len(names) && len(server) == 0 && cmd.ArgsLenAtDash() < 0 && !cmd.Flags().Changed("url"):
			example := append(append([]string{cmd.CommandPath()}, pos[:len(names)]...), "--")
			example = append(example, pos[len(names):]...)
			return usageErrorf("unexpected argument %q: name the server after --, as in: %s", pos[len(names)], strings.Join(example, " "))
		case len(pos) > len(names):
			return usageErrorf("unexpected argument %q (usage: %s)", pos[len(names)], cmd.UseLine())
		}
		return nil
	}
}

// completeArgs returns the shell completion of the arguments of a
// command that takes n positional arguments: nothing for those (tool
// names and URIs come from a server not named yet), then the shell's
// own completion of programs and files, for the server command after
// "--". (Cobra's completion does not tell whether "--" was typed.)
func completeArgs(n int) cobra.CompletionFunc {
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
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// version returns the version of the mcpwire module in this binary.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
