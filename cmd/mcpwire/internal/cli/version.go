package cli

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// versionCmd is mcpwire version: what mcpwire --version prints, or, with
// --json, the whole of what the build information says.
func versionCmd(a *app.App, b mcpwire.Build) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of mcpwire",
		Long: `Prints the version of mcpwire: the release (v0.99.0) when installed with
go install github.com/mcpwire/mcpwire/cmd/mcpwire@VERSION or from a
release archive; built from a checkout of the repository, the
pseudo-version the Go toolchain derives from the commit, with the commit
and its date. With --json, also the module, the Go version and the
platform.`,
		Example: `  mcpwire version
  mcpwire version --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !asJSON {
				_, err := fmt.Fprintf(a.Stdout, "mcpwire %s\n", b)
				return err
			}
			out, err := json.MarshalIndent(struct {
				mcpwire.Build
				OS   string `json:"os"`
				Arch string `json:"arch"`
			}{b, runtime.GOOS, runtime.GOARCH}, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.Stdout, "%s\n", out)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the build information as JSON")
	return cmd
}
