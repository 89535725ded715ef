package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire"
)

// A Family is a group of related verbs, as one package of the command
// line provides them: the help groups its commands are listed under, and
// the commands themselves, built for the app they share. The root
// command of package cli lists the families; a new verb family is a new
// package with a Family, and one line there.
type Family struct {
	// Groups are the help groups of the commands, in the order the help
	// lists them ("Tools:", "Resources:"). A group several families
	// declare (same ID) is listed once, where it first appears.
	Groups []cobra.Group
	// Commands returns the commands of the family, for the app a.
	Commands func(a *App) []*cobra.Command
}

// NewRoot returns the root command "mcpwire" with the global flags and
// the commands of families: it reports the mistakes of a command line
// (an unknown command, a flag that does not parse) as usage errors, and
// prints its help when run without a command. The caller adds the
// program's own help (Short, Long, Example).
func (a *App) NewRoot(families ...Family) *cobra.Command {
	root := &cobra.Command{
		Use:           "mcpwire",
		Version:       mcpwire.ReadBuild().String(),
		SilenceErrors: true,
		SilenceUsage:  true,
		// Suggestions for a mistyped command: within 2 edits.
		SuggestionsMinimumDistance: 2,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return nil
			case cmd.ArgsLenAtDash() == 0:
				return UsageErrorf("name a command before --, as in: mcpwire tools -- %s", strings.Join(args, " "))
			}
			msg := fmt.Sprintf("unknown command %q", args[0])
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %q?", s[0])
			}
			return UsageErrorf("%s (see mcpwire --help)", msg)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return Failure(cmd.Help())
		},
	}
	root.SetIn(a.Stdin)
	root.SetOut(a.Stdout)
	root.SetErr(a.Stderr)
	root.SetVersionTemplate("mcpwire {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	a.flags.addTo(root)
	root.RegisterFlagCompletionFunc("server", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return a.serverNames(), cobra.ShellCompDirectiveNoFileComp
	})
	var ids []string
	for _, f := range families {
		for _, g := range f.Groups {
			if !slices.Contains(ids, g.ID) {
				ids = append(ids, g.ID)
				root.AddGroup(&g)
			}
		}
	}
	for _, f := range families {
		root.AddCommand(f.Commands(a)...)
	}
	return root
}

// Execute runs the command line args (without the program name) with
// root, a command of NewRoot, and returns the exit code. An error is
// reported in one line on stderr: "mcpwire: MESSAGE".
func (a *App) Execute(ctx context.Context, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	code := ExitCode(err)
	if code != ExitOK {
		if msg := Message(err); msg != "" {
			fmt.Fprintf(a.Stderr, "mcpwire: %s\n", msg)
		}
	}
	return code
}

// RunE adapts a command's parse-and-run function f to cobra, for a
// command that talks to a server: it checks the global flags and the
// server (after "--", --url, or @NAME and --server) into a.Global, passes
// the other positional arguments on, and gives every error an exit code
// (1 unless it has one).
func (a *App) RunE(f func(cmd *cobra.Command, positional []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		pos, alias, server, err := splitArgs(cmd, args)
		if err != nil {
			return err
		}
		if err := a.flags.parse(a, cmd, alias, server); err != nil {
			return err
		}
		return Failure(a.traced(cmd, func() error { return f(cmd, pos) }))
	}
}
