package git

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The tools that talk to the repository's remotes. No URL, remote or
// refspec comes from the client: a remote is one the repository already
// has, named exactly; a branch is a branch name (git check-ref-format),
// from which the server writes the refspec itself; nothing is ever
// forced. git never prompts (see gitEnv and detach), and each command
// has Options.RemoteTimeout.

type remoteArgs struct {
	RepoPath string `json:"repo_path,omitempty"`
	Remote   string `json:"remote,omitempty"`
	Branch   string `json:"branch,omitempty"`
}

// remoteConfig is what every command that talks to a remote is given on
// top of the repository's configuration: no ext:: transport (it runs a
// command), and no credential helper (an empty credential.helper clears
// the configured ones: a helper may ask the user, in a window git cannot
// see). Credentials come from an ssh agent, or not at all.
var remoteConfig = []string{"-c", "protocol.ext.allow=never", "-c", "credential.helper=", "-c", "credential.interactive=never"}

// remote checks a remote name against the repository's remotes; the
// default is origin.
func (r *Repository) remote(ctx context.Context, name string) (string, error) {
	if name == "" {
		name = "origin"
	}
	if err := checkValue("remote", name); err != nil {
		return "", err
	}
	out, err := r.run(ctx, nil, r.maxOutput, "remote")
	if err != nil {
		return "", err
	}
	names := strings.Fields(out.text)
	if !slices.Contains(names, name) {
		if len(names) > 20 {
			names = append(names[:20], "...")
		}
		return "", fmt.Errorf("unknown remote '%s': the tools use the repository's own remotes (%s), never a URL", name, strings.Join(names, ", "))
	}
	return name, nil
}

// refName checks that name is a valid name under prefix (refs/heads/,
// refs/tags/, refs/remotes/ORIGIN/) as git check-ref-format has it, and
// returns the full reference name: no ':' or '+' of a refspec, no '*'
// of a pattern, no "^" or "~" of a revision, no leading '-'.
func (r *Repository) refName(ctx context.Context, what, prefix, name string) (string, error) {
	if err := checkValue(what, name); err != nil {
		return "", err
	}
	if strings.HasPrefix(name, "+") || strings.HasPrefix(name, "refs/") {
		return "", fmt.Errorf("invalid %s: '%s' - give the name only, not a refspec or a full reference", what, name)
	}
	full := prefix + name
	if _, err := r.run(ctx, nil, maxArgLen, "check-ref-format", full); err != nil {
		var gerr *gitError
		if errors.As(err, &gerr) {
			return "", fmt.Errorf("invalid %s: '%s' is not a valid name", what, name)
		}
		return "", err
	}
	return full, nil
}

// refExists reports whether the full reference name exists, exactly.
func (r *Repository) refExists(ctx context.Context, full string) (bool, error) {
	_, err := r.run(ctx, nil, maxArgLen, "show-ref", "--verify", "--quiet", full)
	var gerr *gitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &gerr):
		return false, nil
	}
	return false, err
}

// credentials in a URL (https://user:token@host) are never shown.
var credentials = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]+@`)

func redact(s string) string { return credentials.ReplaceAllString(s, "$1***@") }

// remoteErr redacts the credentials a failing remote command may show.
func remoteErr(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(redact(err.Error()))
}

// trackingRefs lists the remote-tracking branches of remote, name to
// object.
func (r *Repository) trackingRefs(ctx context.Context, remote string) (map[string]string, error) {
	out, err := r.run(ctx, nil, r.maxOutput, "for-each-ref", "--format=%(objectname) %(refname)", "refs/remotes/"+remote+"/")
	if err != nil {
		return nil, err
	}
	refs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.text), "\n") {
		if id, name, ok := strings.Cut(line, " "); ok {
			refs[name] = id
		}
	}
	return refs, nil
}

// fetch fetches remote with its own refspecs, and says which
// remote-tracking branches changed.
func (r *Repository) fetchRemote(ctx context.Context, remote string) (string, error) {
	before, err := r.trackingRefs(ctx, remote)
	if err != nil {
		return "", err
	}
	args := append(slices.Clone(remoteConfig), "fetch", "--quiet", "--no-write-fetch-head", "--recurse-submodules=no", "--end-of-options", remote)
	if _, err := r.runTimeout(ctx, r.remoteTimeout, nil, r.maxOutput, args...); err != nil {
		return "", remoteErr(err)
	}
	after, err := r.trackingRefs(ctx, remote)
	if err != nil {
		return "", err
	}
	var lines []string
	for name, id := range after {
		switch old, ok := before[name]; {
		case !ok:
			lines = append(lines, "new     "+name+" "+short(id))
		case old != id:
			lines = append(lines, "updated "+name+" "+short(old)+".."+short(id))
		}
	}
	slices.Sort(lines)
	if len(lines) == 0 {
		return "Fetched from '" + remote + "': already up to date", nil
	}
	return "Fetched from '" + remote + "':\n" + strings.Join(lines, "\n"), nil
}

func short(id string) string { return id[:min(len(id), 12)] }

func (r *Repository) fetch(ctx context.Context, _ *server.Request, in remoteArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	if in.Branch != "" {
		return nil, errors.New("git_fetch takes no branch: it fetches what the remote's configuration says")
	}
	remote, err := r.remote(ctx, in.Remote)
	if err != nil {
		return nil, err
	}
	text, err := r.fetchRemote(ctx, remote)
	if err != nil {
		return nil, err
	}
	return server.TextResult(text), nil
}

// pull fetches, then fast-forwards the current branch to the remote
// branch (branch, or the current branch's upstream on that remote):
// never a merge commit, never a rebase. A failure leaves no merge
// behind: git merge --ff-only changes nothing when it cannot.
func (r *Repository) pull(ctx context.Context, _ *server.Request, in remoteArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	remote, err := r.remote(ctx, in.Remote)
	if err != nil {
		return nil, err
	}
	var target string
	if in.Branch != "" {
		if target, err = r.refName(ctx, "branch", "refs/remotes/"+remote+"/", in.Branch); err != nil {
			return nil, err
		}
	} else {
		out, err := r.run(ctx, nil, maxArgLen, "rev-parse", "--symbolic-full-name", "--verify", "--quiet", "@{upstream}")
		target = strings.TrimSpace(out.text)
		if err != nil || !strings.HasPrefix(target, "refs/remotes/"+remote+"/") {
			return nil, fmt.Errorf("the current branch has no upstream branch on '%s': name the branch to pull", remote)
		}
	}
	fetched, err := r.fetchRemote(ctx, remote)
	if err != nil {
		return nil, err
	}
	if ok, err := r.refExists(ctx, target); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("'%s' has no branch '%s'", remote, strings.TrimPrefix(target, "refs/remotes/"+remote+"/"))
		}
		return nil, err
	}
	before, _ := r.run(ctx, nil, maxArgLen, "rev-parse", "--verify", "--quiet", "HEAD")
	if _, err := r.run(ctx, nil, r.maxOutput, "merge", "--ff-only", "--no-edit", "--quiet", target); err != nil {
		var gerr *gitError
		if errors.As(err, &gerr) {
			return nil, fmt.Errorf("cannot fast-forward to %s (the branches have diverged, or local changes would be overwritten); nothing was changed: %w", target, err)
		}
		return nil, err
	}
	after, err := r.run(ctx, nil, maxArgLen, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(before.text) == strings.TrimSpace(after.text) {
		return server.TextResult(fetched + "\nAlready up to date with " + target), nil
	}
	return server.TextResult(fetched + "\nFast-forwarded to " + target + " (" + short(strings.TrimSpace(before.text)) + ".." + short(strings.TrimSpace(after.text)) + ")"), nil
}

// push pushes a local branch (default: the current one) to the branch of
// the same name on remote: fast-forward only, never forced, never tags
// or other refs. Registered only with Options.AllowPush.
func (r *Repository) push(ctx context.Context, _ *server.Request, in remoteArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	remote, err := r.remote(ctx, in.Remote)
	if err != nil {
		return nil, err
	}
	branch := in.Branch
	if branch == "" {
		out, err := r.run(ctx, nil, maxArgLen, "symbolic-ref", "--quiet", "--short", "HEAD")
		if err != nil {
			return nil, errors.New("HEAD is detached (not on a branch): name the branch to push")
		}
		branch = strings.TrimSpace(out.text)
	}
	full, err := r.refName(ctx, "branch", "refs/heads/", branch)
	if err != nil {
		return nil, err
	}
	if ok, err := r.refExists(ctx, full); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("no local branch is called '%s'", branch)
		}
		return nil, err
	}
	args := append(slices.Clone(remoteConfig), "push", "--porcelain", "--recurse-submodules=no", "--no-follow-tags", "--end-of-options", remote, full+":"+full)
	out, err := r.runTimeout(ctx, r.remoteTimeout, nil, r.maxOutput, args...)
	if err != nil {
		return nil, remoteErr(err)
	}
	// --porcelain: "To URL", then "FLAG\tFROM:TO\tSUMMARY", then "Done";
	// the URL is not shown (it may hold credentials).
	summary := "done"
	for _, line := range strings.Split(out.text, "\n") {
		if f := strings.SplitN(line, "\t", 3); len(f) == 3 {
			summary = strings.TrimSpace(f[2])
		}
	}
	return server.TextResult(fmt.Sprintf("Pushed '%s' to '%s': %s", branch, remote, redact(summary))), nil
}
