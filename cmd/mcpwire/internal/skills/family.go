package skills

import (
	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// groupSkills is the help group of the verb: that of resources and read
// (package talk declares it too), since skills are served as resources.
const groupSkills = "resources"

// Family returns the verb, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupSkills, Title: "Resources:"}},
		Commands: func(a *app.App) []*cobra.Command { return []*cobra.Command{newSkillsCmd(a, nil)} },
	}
}
