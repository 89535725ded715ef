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
top directory is --repository (or -r) and on nothing else; and git_fetch,
git_pull (fast-forward only), git_stash, git_tag and git_merge (refusing
what is not a fast-forward unless asked), and git_push with --allow-push.
--read-only offers only the tools that cannot write.

The remote tools use the repository's own remotes, never a URL from the
client; git never prompts (no terminal, no askpass program, no credential
helper: credentials come from an ssh agent) and each call is bounded in
time.

The tools run the git program (2.24 or later) without a shell. A
repo_path other than the repository, a path that leaves it, and a
revision, branch or date that starts with '-' (which git would read as an
option) are refused.`,
		Example: `  mcpwire serve git --repository ~/projects/app
  mcpwire serve git --repository . --http 127.0.0.1:8080
  mcpwire serve git -r ~/projects/app --allow-push
  mcpwire serve git -r ~/projects/app --read-only
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
			var readOnly, allowPush bool
			fs.VarP(app.NamedString(&repo, "DIR"), "repository", "r", "the top directory of the git repository to serve (required)")
			fs.BoolVar(&readOnly, "read-only", false, "offer only the tools that cannot write (no commit, checkout, fetch, pull, stash, tag, merge, push)")
			fs.BoolVar(&allowPush, "allow-push", false, "offer git_push (to the repository's own remotes, never forced)")
			return func(ctx context.Context, _ []string, _ io.Writer, opts *server.Options) (*server.Server, func() error, error) {
				if repo == "" {
					return nil, nil, app.UsageErrorf("mcpwire serve git needs --repository DIR")
				}
				r, err := git.Open(ctx, repo, &git.Options{ReadOnly: readOnly, AllowPush: allowPush})
				if err != nil {
					return nil, nil, app.UsageErrorf("%v", err)
				}
				srv, err := git.New(r, opts)
				return srv, nil, err
			}
		},
	})
}
