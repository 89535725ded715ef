package git

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The names of the tools, as the official server names them.
const (
	ToolStatus         = "git_status"
	ToolDiffUnstaged   = "git_diff_unstaged"
	ToolDiffStaged     = "git_diff_staged"
	ToolDiff           = "git_diff"
	ToolCommit         = "git_commit"
	ToolAdd            = "git_add"
	ToolReset          = "git_reset"
	ToolLog            = "git_log"
	ToolCreateBranch   = "git_create_branch"
	ToolCheckout       = "git_checkout"
	ToolShow           = "git_show"
	ToolBranch         = "git_branch"
	ToolFetch          = "git_fetch"
	ToolPull           = "git_pull"
	ToolPush           = "git_push"
	ToolStash          = "git_stash"
	ToolTag            = "git_tag"
	ToolMerge          = "git_merge"
	defaultContext     = 3
	defaultLogMaxCount = 10
)

type repoArgs struct {
	RepoPath string `json:"repo_path,omitempty"`
}

type diffArgs struct {
	RepoPath     string   `json:"repo_path,omitempty"`
	Target       string   `json:"target,omitempty"`
	ContextLines *float64 `json:"context_lines,omitempty"`
}

type commitArgs struct {
	RepoPath string `json:"repo_path,omitempty"`
	Message  string `json:"message"`
}

type addArgs struct {
	RepoPath string   `json:"repo_path,omitempty"`
	Files    []string `json:"files"`
}

type logArgs struct {
	RepoPath       string   `json:"repo_path,omitempty"`
	MaxCount       *float64 `json:"max_count,omitempty"`
	StartTimestamp string   `json:"start_timestamp,omitempty"`
	EndTimestamp   string   `json:"end_timestamp,omitempty"`
}

type branchNameArgs struct {
	RepoPath   string `json:"repo_path,omitempty"`
	BranchName string `json:"branch_name"`
	BaseBranch string `json:"base_branch,omitempty"`
}

type showArgs struct {
	RepoPath string `json:"repo_path,omitempty"`
	Revision string `json:"revision"`
}

type branchArgs struct {
	RepoPath    string `json:"repo_path,omitempty"`
	BranchType  string `json:"branch_type,omitempty"`
	Contains    string `json:"contains,omitempty"`
	NotContains string `json:"not_contains,omitempty"`
}

// A Commit is one entry of git_log's structured result.
type Commit struct {
	Hash    string `json:"hash"`
	Author  string `json:"author"`
	Email   string `json:"email"`
	Date    string `json:"date"` // the author date, ISO 8601
	Message string `json:"message"`
}

// LogResult is git_log's structured result.
type LogResult struct {
	Commits []Commit `json:"commits"`
}

func hints(readOnly, destructive, idempotent bool) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{ReadOnlyHint: &readOnly, DestructiveHint: &destructive, IdempotentHint: &idempotent, OpenWorldHint: &f}
}

// remoteHints are the annotations of a tool that talks to a remote: it
// reaches outside the repository (openWorldHint).
func remoteHints(idempotent bool) *mcp.ToolAnnotations {
	h := hints(false, false, idempotent)
	h.OpenWorldHint = ptr(true)
	return h
}

func ptr[T any](v T) *T { return &v }

// Register adds the git tools to srv, working on r: the official twelve,
// git_fetch, git_pull, git_stash, git_tag and git_merge, and git_push
// with Options.AllowPush. With Options.ReadOnly only the tools annotated
// readOnlyHint are added.
func (r *Repository) Register(srv *server.Server) error {
	ro := hints(true, false, true)
	var errs []error
	add := func(t *mcp.Tool, register func(*mcp.Tool) error) {
		if r.readOnly && (t.Annotations.ReadOnlyHint == nil || !*t.Annotations.ReadOnlyHint) {
			return // withheld: fails closed for a tool that does not say it cannot write
		}
		errs = append(errs, register(t))
	}
	add(tool(ToolStatus, "Git status", "Shows the working tree status", schemaRepoOnly, ro), typed(srv, r.status))
	add(tool(ToolDiffUnstaged, "Git diff (unstaged)", "Shows changes in the working directory that are not yet staged", schemaDiff(r.maxContextLines), ro), typed(srv, r.diffUnstaged))
	add(tool(ToolDiffStaged, "Git diff (staged)", "Shows changes that are staged for commit", schemaDiff(r.maxContextLines), ro), typed(srv, r.diffStaged))
	add(tool(ToolDiff, "Git diff", "Shows differences between branches or commits", schemaDiffTarget(r.maxContextLines), ro), typed(srv, r.diff))
	add(tool(ToolCommit, "Git commit", "Records changes to the repository", schemaCommit, hints(false, false, false)), typed(srv, r.commit))
	add(tool(ToolAdd, "Git add", "Adds file contents to the staging area", schemaAdd, hints(false, false, true)), typed(srv, r.add))
	add(tool(ToolReset, "Git reset", "Unstages all staged changes", schemaRepoOnly, hints(false, true, true)), typed(srv, r.reset))
	add(withOutput(tool(ToolLog, "Git log", "Shows the commit logs", schemaLog(r.maxLogCount), ro), schemaLogOutput), typed(srv, r.log))
	add(tool(ToolCreateBranch, "Git create branch", "Creates a new branch from an optional base branch", schemaCreateBranch, hints(false, false, false)), typed(srv, r.createBranch))
	add(tool(ToolCheckout, "Git checkout", "Switches branches", schemaCheckout, hints(false, false, false)), typed(srv, r.checkout))
	add(tool(ToolShow, "Git show", "Shows the contents of a commit", schemaShow, ro), typed(srv, r.show))
	add(tool(ToolBranch, "Git branches", "List Git branches", schemaBranch, ro), typed(srv, r.branch))
	add(tool(ToolFetch, "Git fetch", "Fetches from one of the repository's remotes (default origin), as its configuration says, and lists the remote-tracking branches that changed", schemaFetch, remoteHints(true)), typed(srv, r.fetch))
	add(tool(ToolPull, "Git pull", "Fetches from one of the repository's remotes and fast-forwards the current branch to the remote branch (its upstream by default); never merges or rebases", schemaPull, remoteHints(false)), typed(srv, r.pull))
	if r.allowPush {
		add(tool(ToolPush, "Git push", "Pushes a local branch to the branch of the same name on one of the repository's remotes; fast-forward only, never forced", schemaPush, remoteHints(false)), typed(srv, r.push))
	}
	add(tool(ToolStash, "Git stash", "Lists the stash, pushes the working tree's changes onto it, or pops an entry back (undone, and the entry kept, when it conflicts)", schemaStash(r.maxStashIndex), hints(false, false, false)), typed(srv, r.stash))
	add(tool(ToolTag, "Git tag", "Lists the tags, or creates one (annotated when given a message)", schemaTag, hints(false, false, false)), typed(srv, r.tag))
	add(tool(ToolMerge, "Git merge", "Merges a local branch into the current one: fast-forward only unless allow_merge_commit; a merge that stops on a conflict is aborted", schemaMerge, hints(false, false, false)), typed(srv, r.merge))
	return errors.Join(errs...)
}

// typed returns the function that adds a tool with the typed handler h.
func typed[In any](srv *server.Server, h server.TypedToolHandler[In, *mcp.CallToolResult]) func(*mcp.Tool) error {
	return func(t *mcp.Tool) error { return server.AddTool(srv, t, h) }
}

func tool(name, title, desc, schema string, a *mcp.ToolAnnotations) *mcp.Tool {
	return &mcp.Tool{Name: name, Title: title, Description: desc, InputSchema: json.RawMessage(schema), Annotations: a}
}

func withOutput(t *mcp.Tool, schema string) *mcp.Tool {
	t.OutputSchema = json.RawMessage(schema)
	return t
}

// text builds a tool's text: prefix, git's output less one final newline
// (as the official server shows it), and a note when the output was cut.
func (r *Repository) text(prefix string, out output) *mcp.CallToolResult {
	if !out.cut {
		return server.TextResult(prefix + strings.TrimSuffix(out.text, "\n"))
	}
	return server.TextResult(prefix + validPrefix(out.text) + r.cutNote())
}

func (r *Repository) cutNote() string {
	return fmt.Sprintf("\n\n[output cut at %d bytes, the server's limit: ask for less, for example fewer commits or fewer context lines]", r.maxOutput)
}

// validPrefix drops an incomplete UTF-8 sequence that a cut left at the
// end of s.
func validPrefix(s string) string {
	for i := 0; i < utf8.UTFMax && len(s) > 0; i++ {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			return s
		}
		s = s[:len(s)-1]
	}
	return s
}

func (r *Repository) status(ctx context.Context, _ *server.Request, in repoArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	out, err := r.run(ctx, nil, r.maxOutput, "status", ignoreSubmodules)
	if err != nil {
		return nil, err
	}
	return r.text("Repository status:\n", out), nil
}

// contextLines checks context_lines and returns git's --unified option.
func (r *Repository) contextLines(n *float64) (string, error) {
	lines, err := intArg("context_lines", n, defaultContext, 0, r.maxContextLines)
	if err != nil {
		return "", err
	}
	return "--unified=" + strconv.Itoa(lines), nil
}

// intArg returns a numeric argument as an int, or def when it is left
// out. Arguments are float64s so that every JSON integer decodes (JSON
// Schema calls 1.0 and 1e1 integers; encoding/json refuses them as an
// int). The server has checked the argument against the schema, which
// states the same bounds; the check here keeps a float64 that is not a
// whole number from lo to hi from ever becoming an int.
func intArg(name string, v *float64, def, lo, hi int) (int, error) {
	if v == nil {
		return def, nil
	}
	f := *v
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, fmt.Errorf("%s must be an integer from %d to %d, not %v", name, lo, hi, f)
	}
	return int(f), nil
}

// ignoreSubmodules keeps the commands that compare the working tree from
// looking into submodules: git would run git status in each one's git
// directory, wherever its .git file points (CVE-2026-134465's class), and
// show its HEAD. A submodule is another repository; what the served one
// records of it (the commit in the index and in commits) still shows in
// git_diff_staged, git_show and git_log.
const ignoreSubmodules = "--ignore-submodules=all"

func (r *Repository) diffUnstaged(ctx context.Context, _ *server.Request, in diffArgs) (*mcp.CallToolResult, error) {
	return r.diffTool(ctx, in, "Unstaged changes:\n", ignoreSubmodules)
}

func (r *Repository) diffStaged(ctx context.Context, _ *server.Request, in diffArgs) (*mcp.CallToolResult, error) {
	return r.diffTool(ctx, in, "Staged changes:\n", "--cached")
}

func (r *Repository) diffTool(ctx context.Context, in diffArgs, prefix string, extra ...string) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	unified, err := r.contextLines(in.ContextLines)
	if err != nil {
		return nil, err
	}
	args := append([]string{"diff", "--no-ext-diff", unified}, extra...)
	out, err := r.run(ctx, nil, r.maxOutput, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	return r.text(prefix, out), nil
}

// resolve checks a revision given by the client and returns the object
// name git resolves it to (peeled to a commit when peel is set), so that
// only a hexadecimal object name ever reaches the command that uses it.
func (r *Repository) resolve(ctx context.Context, what, rev string, peel bool) (string, error) {
	if err := checkValue(what, rev); err != nil {
		return "", err
	}
	spec := rev
	if peel {
		spec += "^{commit}"
	}
	out, err := r.run(ctx, nil, maxArgLen, "rev-parse", "--verify", "--quiet", "--end-of-options", spec)
	if err != nil {
		var gerr *gitError
		if errors.As(err, &gerr) {
			return "", fmt.Errorf("invalid %s: '%s' is not a known revision", what, rev)
		}
		return "", err
	}
	return strings.TrimSpace(out.text), nil
}

func (r *Repository) diff(ctx context.Context, _ *server.Request, in diffArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	unified, err := r.contextLines(in.ContextLines)
	if err != nil {
		return nil, err
	}
	id, err := r.resolve(ctx, "target", in.Target, false)
	if err != nil {
		return nil, err
	}
	out, err := r.run(ctx, nil, r.maxOutput, "diff", "--no-ext-diff", ignoreSubmodules, unified, id, "--")
	if err != nil {
		return nil, err
	}
	return r.text("Diff with "+in.Target+":\n", out), nil
}

func (r *Repository) commit(ctx context.Context, _ *server.Request, in commitArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	if strings.IndexByte(in.Message, 0) >= 0 {
		return nil, errors.New("invalid message: it holds a NUL byte")
	}
	if err := r.somethingStaged(ctx); err != nil {
		return nil, err
	}
	// The message goes through stdin, never the command line.
	if _, err := r.run(ctx, []byte(in.Message), r.maxOutput, "commit", "--quiet", "--cleanup=whitespace", "--file=-"); err != nil {
		return nil, err
	}
	out, err := r.run(ctx, nil, maxArgLen, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return nil, err
	}
	return server.TextResult("Changes committed successfully with hash " + strings.TrimSpace(out.text)), nil
}

// somethingStaged refuses a commit with nothing staged before git commit
// runs: git would print git status, looking into submodules (see
// ignoreSubmodules). A merge being concluded may record no change, and is
// left to git.
func (r *Repository) somethingStaged(ctx context.Context) error {
	if _, err := os.Lstat(filepath.Join(r.gitDir, "MERGE_HEAD")); err == nil {
		return nil
	}
	_, err := r.run(ctx, nil, maxArgLen, "diff", "--cached", "--quiet", "--exit-code")
	var gerr *gitError
	switch {
	case err == nil: // no difference
		return errors.New("nothing to commit: no changes are staged (stage them with git_add first)")
	case errors.As(err, &gerr): // exit status 1, differences (or a failure git commit will report)
		return nil
	}
	return err
}

func (r *Repository) add(ctx context.Context, _ *server.Request, in addArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	if len(in.Files) == 0 {
		return nil, errors.New("files: name at least one path")
	}
	if len(in.Files) > r.maxFiles {
		return nil, fmt.Errorf("files: at most %d paths in one call, not %d", r.maxFiles, len(in.Files))
	}
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	args := []string{"add", "--"}
	for _, f := range in.Files {
		rel, err := r.repoRelative(root, f)
		if err != nil {
			return nil, err
		}
		if err := r.checkNested(ctx, root, rel); err != nil {
			return nil, err
		}
		args = append(args, rel)
	}
	if _, err := r.run(ctx, nil, r.maxOutput, args...); err != nil {
		return nil, err
	}
	return server.TextResult("Files staged successfully"), nil
}

func (r *Repository) reset(ctx context.Context, _ *server.Request, in repoArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	args := []string{"reset", "--quiet"}
	if _, err := r.run(ctx, nil, maxArgLen, "rev-parse", "--verify", "--quiet", "HEAD"); err != nil {
		args = []string{"read-tree", "--empty"} // no commit yet: nothing staged is the empty index
	}
	if _, err := r.run(ctx, nil, r.maxOutput, args...); err != nil {
		return nil, err
	}
	return server.TextResult("All staged changes reset"), nil
}
