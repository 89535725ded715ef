package diff

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
)

// Family returns the verb of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupDiff, Title: "Comparing servers:"}},
		Commands: func(a *app.App) []*cobra.Command { return []*cobra.Command{newDiffCmd(a)} },
	}
}

const groupDiff = "diff"

const diffLong = `mcpwire diff compares what two recordings (made by mcpwire tap --record,
or exported from mcpwire inspect) show of a server: its name and version,
protocol revision, capabilities, instructions, and its tools, resources,
templates and prompts, each added, removed or changed (the members that
changed: description, inputSchema...; "_meta" is ignored). Each recording
is read to its end: the last handshake, and the last listing of each
list, every page of it.

The exit status is 0 when nothing changed, 1 when something did. With
--json: {"changes": [{"what", "name", "op", "fields", "before",
"after"}]}.`

// newDiffCmd returns the command "mcpwire diff".
func newDiffCmd(a *app.App) *cobra.Command {
	return &cobra.Command{
		Use:     "diff A.jsonl B.jsonl",
		Short:   "Compare the tools, resources, prompts and capabilities two recordings show",
		Long:    diffLong,
		Example: "  mcpwire diff before.jsonl after.jsonl\n  mcpwire diff --json yesterday.jsonl today.jsonl",
		GroupID: groupDiff,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return app.UsageErrorf("%s takes two recordings (usage: %s)", cmd.CommandPath(), cmd.UseLine())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.ParseLocal(cmd); err != nil {
				return err
			}
			var snaps [2]*Snapshot
			for i, file := range args {
				s, err := readSnapshot(file)
				if err != nil {
					return app.Failure(err)
				}
				snaps[i] = s
			}
			changes := Compare(snaps[0], snaps[1])
			var err error
			if a.Global.JSON {
				if changes == nil {
					changes = []Change{}
				}
				err = app.WriteJSON(a.Stdout, map[string]any{"changes": changes})
			} else {
				err = Write(a.Stdout, changes)
			}
			if err != nil {
				return app.Failure(err)
			}
			if len(changes) > 0 {
				return &app.ExitError{Code: app.ExitFailure} // the changes are the news
			}
			return nil
		},
	}
}

// readSnapshot reads a recording's snapshot.
func readSnapshot(file string) (*Snapshot, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, app.UnwrapPathError(err)
	}
	defer f.Close()
	recs, err := frames.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	s, err := FromRecording(recs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return s, nil
}
