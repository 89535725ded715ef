package serve

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/servers/git"
)

func init() {
	register(Spec{
		Name:  "git",
		Short: "Read and change one git repository: status, diffs, log, commits, branches",
		Long: `Serve the tools of the official git server (mcp-server-git): git_status,
git_diff_unstaged, git_diff_staged, git_diff, git_commit, git_add,
git_reset, git_log, git_create_branch, git_checkout, git_show and
git_branch, with the same arguments and results, on the repository whose
top directory is --repository and on nothing else.

The tools run the git program (2.24 or later) without a shell. A
repo_path other than the repository, a path that leaves it, and a
revision, branch or date that starts with '-' (which git would read as an
option) are refused.`,
		Example: `  mcpwire serve git --repository ~/projects/app
  mcpwire serve git --repository . --http 127.0.0.1:8080
  mcpwire call git_log --args '{"max_count": 3}' -- mcpwire serve git --repository .`,
		// As mcp-server-git, the repository is an option (--repository,
		// -r), never a positional argument: one is refused with a usage
		// error that names the option.
		PositionalArgs: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return app.UsageErrorf("unexpected argument %q: the repository is an option, use --repository DIR (or -r DIR), as in: mcpwire serve git --repository %s", args[0], args[0])
			}
			return nil
		},
		Bind: func(fs *pflag.FlagSet) Build {
			var repo string
			fs.VarP(app.NamedString(&repo, "DIR"), "repository", "r", "the top directory of the git repository to serve (required)")
			return func(ctx context.Context, _ []string, _ io.Writer, opts *server.Options) (*server.Server, func() error, error) {
				if repo == "" {
					return nil, nil, app.UsageErrorf("mcpwire serve git needs --repository DIR")
				}
				r, err := git.Open(ctx, repo, nil)
				if err != nil {
					return nil, nil, app.UsageErrorf("%v", err)
				}
				srv, err := git.New(r, opts)
				return srv, nil, err
			}
		},
	})
}
