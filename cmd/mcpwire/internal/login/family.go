package login

import (
	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// Family returns the verbs of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupAuth, Title: "Authorization:"}},
		Commands: commands,
	}
}

// commands returns the commands of the family, with their real runs.
func commands(a *app.App) []*cobra.Command {
	return []*cobra.Command{
		newLoginCmd(a, nil),
		newLogoutCmd(a, nil),
	}
}

// groupAuth is the help group of the commands.
const groupAuth = "auth"
