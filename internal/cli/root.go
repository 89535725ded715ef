package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Main runs mcpwire with the command-line arguments args (without the
// program name) and returns the exit code. It is the whole of package
// main.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, newApp(stdin, stdout, stderr), args, commands)
}

// commands returns the commands of mcpwire, with their real runs.
func commands(a *app) []*cobra.Command {
	return []*cobra.Command{
		newToolsCmd(a, nil),
		newCallCmd(a, nil),
		newResourcesCmd(a, nil),
		newReadCmd(a, nil),
		newPromptsCmd(a, nil),
		newGetCmd(a, nil),
		newLoginCmd(a, nil),
		newLogoutCmd(a, nil),
	}
}

// run executes the command line args with the commands cmds returns, and
// reports an error in one line on stderr.
func run(ctx context.Context, a *app, args []string, cmds func(*app) []*cobra.Command) int {
	root := newRootCmd(a, cmds(a)...)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := exitCode(err)
	if code != exitOK {
		if msg := message(err); msg != "" {
			fmt.Fprintf(a.stderr, "mcpwire: %s\n", msg)
		}
	}
	return code
}

const rootLong = `mcpwire talks to any Model Context Protocol (MCP) server: it lists and
calls its tools, reads its resources and renders its prompts.

Name the server after --: mcpwire starts that command and speaks MCP over
its standard input and output. Or give its URL with --url: mcpwire speaks
Streamable HTTP, or the older HTTP+SSE transport to a server that offers
only that. Either way it agrees on a protocol revision with the server
(the stateless 2026-07-28 first, then the legacy handshake), unless
--protocol forces one.

A server that requires OAuth authorization needs a login first:
mcpwire login --url URL authorizes mcpwire in your browser and keeps the
token, which the other commands then send to that server.

Exit codes:
  0  success
  1  failure: an error from the server, a timeout, an I/O error
  2  usage: the command line is wrong
  3  the tool ran and reported an error (a result with isError)
  4  the server could not be started or connected, or needs a login`

const rootExample = `  mcpwire tools -- go run ./examples/hello
  mcpwire call echo --args '{"text": "hi"}' -- ./my-server --flag
  mcpwire read file:///notes.txt --json -- npx -y my-mcp-server
  mcpwire tools --url http://localhost:3000/mcp --header 'X-Api-Key=secret'
  mcpwire login --url https://mcp.example.com/mcp`

// newRootCmd returns the root command, with the global flags and the
// subcommands cmds.
func newRootCmd(a *app, cmds ...*cobra.Command) *cobra.Command {
	root := &cobra.Command{
		Use:           "mcpwire",
		Short:         "Talk to any MCP server from the command line",
		Long:          rootLong,
		Example:       rootExample,
		Version:       version(),
		SilenceErrors: true,
		SilenceUsage:  true,
		// Suggestions for a mistyped command: within 2 edits.
		SuggestionsMinimumDistance: 2,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return nil
			case cmd.ArgsLenAtDash() == 0:
				return usageErrorf("name a command before --, as in: mcpwire tools -- %s", strings.Join(args, " "))
			}
			msg := fmt.Sprintf("unknown command %q", args[0])
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %q?", s[0])
			}
			return usageErrorf("%s (see mcpwire --help)", msg)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return failure(cmd.Help())
		},
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetVersionTemplate("mcpwire {{.Version}}\n")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageErrorf("%v (see %s --help)", err, cmd.CommandPath())
	})
	a.flags.addTo(root)
	root.AddGroup(
		&cobra.Group{ID: groupTools, Title: "Tools:"},
		&cobra.Group{ID: groupResources, Title: "Resources:"},
		&cobra.Group{ID: groupPrompts, Title: "Prompts:"},
		&cobra.Group{ID: groupAuth, Title: "Authorization:"},
	)
	root.AddCommand(cmds...)
	return root
}

// The command groups of the help.
const (
	groupTools     = "tools"
	groupResources = "resources"
	groupPrompts   = "prompts"
	groupAuth      = "auth"
)

// runE adapts a command's parse-and-run function to cobra: it parses the
// global flags and the server after "--", passes the positional
// arguments on, and gives every error an exit code (1 unless it has one).
func (a *app) runE(f func(cmd *cobra.Command, positional []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		pos, server := splitArgs(cmd, args)
		if err := a.flags.parse(a, server); err != nil {
			return err
		}
		return failure(f(cmd, pos))
	}
}
