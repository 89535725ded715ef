package git

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// logFormat prints a commit's fields separated by NUL bytes; with -z,
// commits are separated by NUL bytes too, so every five fields are one
// commit whatever its message holds.
const logFormat = "--format=%H%x00%an%x00%ae%x00%aI%x00%B"

func (r *Repository) log(ctx context.Context, _ *server.Request, in logArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	count, err := intArg("max_count", in.MaxCount, defaultLogMaxCount, 1, r.maxLogCount)
	if err != nil {
		return nil, err
	}
	args := []string{"log", "-z", logFormat, fmt.Sprintf("--max-count=%d", count)}
	if in.StartTimestamp != "" {
		if err := checkValue("start_timestamp", in.StartTimestamp); err != nil {
			return nil, err
		}
		args = append(args, "--since="+in.StartTimestamp)
	}
	if in.EndTimestamp != "" {
		if err := checkValue("end_timestamp", in.EndTimestamp); err != nil {
			return nil, err
		}
		args = append(args, "--until="+in.EndTimestamp)
	}
	out, err := r.run(ctx, nil, r.maxOutput, append(args, "--end-of-options", "HEAD", "--")...)
	if err != nil {
		return nil, err
	}
	commits := parseLog(out.text, out.cut)
	entries := make([]string, len(commits))
	for i, c := range commits {
		entries[i] = fmt.Sprintf("Commit: %s\nAuthor: %s <%s>\nDate: %s\nMessage: %s\n", c.Hash, c.Author, c.Email, c.Date, c.Message)
	}
	note := ""
	if out.cut {
		note = r.cutNote()
	}
	structured, err := json.Marshal(LogResult{Commits: commits})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           mcp.ContentList{&mcp.TextContent{Text: "Commit history:\n" + strings.Join(entries, "\n") + note}},
		StructuredContent: structured,
	}, nil
}

// parseLog reads the output of git log -z with logFormat. A cut output
// loses its last, incomplete commit.
func parseLog(text string, cut bool) []Commit {
	commits := []Commit{}
	if text == "" {
		return commits
	}
	fields := strings.Split(text, "\x00")
	n := len(fields) / 5
	if cut {
		n = (len(fields) - 1) / 5 // the last field may have lost its end
	}
	for i := range n {
		f := fields[i*5 : i*5+5]
		commits = append(commits, Commit{Hash: f[0], Author: f[1], Email: f[2], Date: f[3], Message: strings.TrimRight(f[4], "\n")})
	}
	return commits
}

func (r *Repository) createBranch(ctx context.Context, _ *server.Request, in branchNameArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	if err := checkValue("branch name", in.BranchName); err != nil {
		return nil, err
	}
	var base, start string
	if in.BaseBranch != "" {
		if err := checkValue("base branch", in.BaseBranch); err != nil {
			return nil, err
		}
		ref, err := r.findRef(ctx, in.BaseBranch)
		if err != nil {
			return nil, err
		}
		base, start = in.BaseBranch, ref
	} else {
		out, err := r.run(ctx, nil, maxArgLen, "symbolic-ref", "--quiet", "--short", "HEAD")
		if err != nil {
			return nil, errors.New("HEAD is detached (not on a branch): name a base_branch")
		}
		base = strings.TrimSpace(out.text)
		start = "HEAD"
	}
	if _, err := r.run(ctx, nil, r.maxOutput, "branch", "--no-track", "--end-of-options", in.BranchName, start); err != nil {
		return nil, err
	}
	return server.TextResult(fmt.Sprintf("Created branch '%s' from '%s'", in.BranchName, base)), nil
}

// findRef returns the full name of the branch, remote-tracking branch or
// tag called name (tried in that order), as the official server looks a
// base branch up among the repository's references.
func (r *Repository) findRef(ctx context.Context, name string) (string, error) {
	candidates := []string{"refs/heads/" + name, "refs/remotes/" + name, "refs/tags/" + name}
	out, err := r.run(ctx, nil, r.maxOutput, append([]string{"for-each-ref", "--format=%(refname)"}, candidates...)...)
	if err != nil {
		return "", err
	}
	found := strings.Split(out.text, "\n")
	for _, c := range candidates {
		for _, f := range found {
			if f == c {
				return c, nil
			}
		}
	}
	return "", fmt.Errorf("invalid base branch: no branch or tag is called '%s'", name)
}

func (r *Repository) checkout(ctx context.Context, _ *server.Request, in branchNameArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	if _, err := r.resolve(ctx, "branch name", in.BranchName, false); err != nil {
		return nil, err
	}
	// git checkout reads "--end-of-options" as a path (git 2.39); the
	// value cannot start with '-' (resolve checked) and "--" ends it.
	if _, err := r.run(ctx, nil, r.maxOutput, "checkout", "--quiet", "--no-guess", in.BranchName, "--"); err != nil {
		return nil, err
	}
	return server.TextResult(fmt.Sprintf("Switched to branch '%s'", in.BranchName)), nil
}

// showFormat is git_show's header, as the official server words it.
const showFormat = "--format=Commit: %H%nAuthor: %an <%ae>%nDate: %aI%nMessage: %B"

func (r *Repository) show(ctx context.Context, _ *server.Request, in showArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	id, err := r.resolve(ctx, "revision", in.Revision, true)
	if err != nil {
		return nil, err
	}
	out, err := r.run(ctx, nil, r.maxOutput, "show", "--no-ext-diff", "--diff-merges=first-parent", showFormat, "--end-of-options", id, "--")
	if err != nil {
		return nil, err
	}
	return r.text("", out), nil
}

func (r *Repository) branch(ctx context.Context, _ *server.Request, in branchArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	args := []string{"branch"}
	switch in.BranchType {
	case "", "local":
	case "remote":
		args = append(args, "--remotes")
	case "all":
		args = append(args, "--all")
	default:
		return nil, fmt.Errorf("invalid branch type: %s", in.BranchType)
	}
	if in.Contains != "" {
		id, err := r.resolve(ctx, "contains value", in.Contains, true)
		if err != nil {
			return nil, err
		}
		args = append(args, "--contains="+id)
	}
	if in.NotContains != "" {
		id, err := r.resolve(ctx, "not_contains value", in.NotContains, true)
		if err != nil {
			return nil, err
		}
		args = append(args, "--no-contains="+id)
	}
	out, err := r.run(ctx, nil, r.maxOutput, args...)
	if err != nil {
		return nil, err
	}
	return r.text("", out), nil
}
