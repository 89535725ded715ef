package git

import (
	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// Implementation names the server that New builds.
var Implementation = mcp.Implementation{Name: "mcpwire-git", Title: "Git (mcpwire)", Version: mcpwire.Version()}

// Instructions returns the server's instructions for the model, naming the
// repository it serves.
func (r *Repository) Instructions() string {
	return "Tools to read and change the Git repository at " + r.root + ". " +
		"Every tool works on that repository only: repo_path may be left out, and when given it must be that directory. " +
		"Read with git_status, git_diff_unstaged, git_diff_staged, git_diff (the working tree against a branch or commit), git_log, git_show and git_branch; " +
		"change with git_add (paths relative to the repository's top directory, no glob patterns), git_reset (unstages everything), git_commit, git_create_branch and git_checkout. " +
		"Revisions, branch names and timestamps may not start with '-'. Long outputs are cut at a size limit with a note: narrow the request (fewer commits, fewer context lines) when that happens."
}

// New returns a server with the git tools on r and its instructions. To
// add the tools to a server of your own, use Register.
func New(r *Repository, opts *server.Options) (*server.Server, error) {
	o := server.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Instructions == "" {
		o.Instructions = r.Instructions()
	}
	srv := server.New(Implementation, &o)
	if err := r.Register(srv); err != nil {
		return nil, err
	}
	return srv, nil
}
