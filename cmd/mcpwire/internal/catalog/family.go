package catalog

import (
	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// Family returns the verbs of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupConfig, Title: "Configuration:"}},
		Commands: func(a *app.App) []*cobra.Command { return []*cobra.Command{newServersCmd(a, nil)} },
	}
}

// groupConfig is the help group of the commands.
const groupConfig = "config"
