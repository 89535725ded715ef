package login

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// logoutOptions are the options of mcpwire logout.
type logoutOptions struct {
	URL   string // --url: the MCP server
	Store string // the token store
}

func newLogoutCmd(a *app.App, runF func(context.Context, *logoutOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "logout (--url URL | @NAME)",
		Short: "Forget the token of a server",
		Long: `Forget the tokens kept for the MCP server at --url, so that no command
sends them any more. Nothing is sent over the network: the tokens are
removed from the token store, not revoked, and they stay valid until they
expire. The client's registration with the authorization server is kept,
for the next login.`,
		Example: `  mcpwire logout --url https://mcp.example.com/mcp`,
		GroupID: groupAuth,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.ParseServerless(cmd, args, true); err != nil {
				return err
			}
			o := &logoutOptions{URL: a.Global.Target.URL, Store: a.Global.Target.TokenStore}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return app.Failure(runLogout(cmd.Context(), a, o))
		},
	}
}

// runLogout removes the tokens of the server from the token store.
func runLogout(ctx context.Context, a *app.App, o *logoutOptions) error {
	if o.Store == "" {
		_, err := app.TokenStorePath(a.Getenv)
		return err
	}
	list, err := readTokens(o.Store)
	if err != nil {
		return err
	}
	list = tokensFor(list, o.URL)
	if len(list) == 0 {
		return app.WriteText(a.Stdout, "Not logged in to "+o.URL+"; nothing to forget.")
	}
	store := auth.NewFileTokenStore(o.Store)
	for _, t := range list {
		if err := store.SetToken(ctx, t.Resource, t.Issuer, nil); err != nil {
			return fmt.Errorf("token store: %v", err)
		}
	}
	return app.WriteText(a.Stdout, fmt.Sprintf("Logged out of %s: forgot %s.", o.URL, plural(len(list), "token")))
}

// plural returns "1 token", "2 tokens".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
