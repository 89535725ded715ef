package talk

import (
	"iter"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// Family returns the verbs of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups: []cobra.Group{
			{ID: groupTools, Title: "Tools:"},
			{ID: groupResources, Title: "Resources:"},
			{ID: groupPrompts, Title: "Prompts:"},
		},
		Commands: commands,
	}
}

// commands returns the commands of the family, with their real runs.
func commands(a *app.App) []*cobra.Command {
	return []*cobra.Command{
		newToolsCmd(a, nil),
		newCallCmd(a, nil),
		newResourcesCmd(a, nil),
		newReadCmd(a, nil),
		newPromptsCmd(a, nil),
		newGetCmd(a, nil),
	}
}

// The help groups of the commands.
const (
	groupTools     = "tools"
	groupResources = "resources"
	groupPrompts   = "prompts"
)

// The help of --args, for call and for get.
const (
	argsUsage       = "the arguments, a JSON object: inline, @FILE to read a file, or - to read standard input"
	promptArgsUsage = "the arguments, a JSON object of strings: inline, @FILE to read a file, or - to read standard input"
)

// collect appends every item of a paginated list to list, stopping at the
// first error.
func collect[T any](list []T, items iter.Seq2[*T, error]) ([]T, error) {
	for it, err := range items {
		if err != nil {
			return list, err
		}
		list = append(list, *it)
	}
	return list, nil
}
