package git

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// git_stash, git_tag and git_merge. A call that fails leaves the
// repository as it found it: a stash pop or a merge that stops on a
// conflict is undone (they start only on a working tree without changes
// to tracked files, so undoing loses nothing), and the stash is kept.

type stashArgs struct {
	RepoPath         string   `json:"repo_path,omitempty"`
	Action           string   `json:"action"`
	Message          string   `json:"message,omitempty"`
	IncludeUntracked bool     `json:"include_untracked,omitempty"`
	Index            *float64 `json:"index,omitempty"`
}

type tagArgs struct {
	RepoPath string `json:"repo_path,omitempty"`
	Action   string `json:"action"`
	Name     string `json:"name,omitempty"`
	Target   string `json:"target,omitempty"`
	Message  string `json:"message,omitempty"`
}

type mergeArgs struct {
	RepoPath         string `json:"repo_path,omitempty"`
	Branch           string `json:"branch"`
	AllowMergeCommit bool   `json:"allow_merge_commit,omitempty"`
	Message          string `json:"message,omitempty"`
}

// checkMessage refuses a message git could not take whole.
func checkMessage(msg string) error {
	if strings.IndexByte(msg, 0) >= 0 {
		return errors.New("invalid message: it holds a NUL byte")
	}
	if len(msg) > 64<<10 {
		return errors.New("invalid message: longer than 65536 bytes")
	}
	return nil
}

// cleanTree refuses to start an operation that may stop half way when
// tracked files have changes (staged or not): undoing it could lose them.
func (r *Repository) cleanTree(ctx context.Context, what string) error {
	out, err := r.run(ctx, nil, r.maxOutput, "status", "--porcelain", "--untracked-files=no", ignoreSubmodules)
	if err != nil {
		return err
	}
	if strings.TrimSpace(out.text) != "" {
		return fmt.Errorf("cannot %s: tracked files have changes (commit or stash them first):\n%s", what, strings.TrimRight(out.text, "\n"))
	}
	return nil
}

// undo puts the working tree and the index back to HEAD after an
// operation that stopped half way on a tree that cleanTree accepted.
func (r *Repository) undo(ctx context.Context) error {
	if _, err := os.Lstat(filepath.Join(r.gitDir, "MERGE_HEAD")); err == nil {
		if _, err := r.run(context.WithoutCancel(ctx), nil, r.maxOutput, "merge", "--abort"); err == nil {
			return nil
		}
	}
	_, err := r.run(context.WithoutCancel(ctx), nil, r.maxOutput, "reset", "--hard", "--quiet", "HEAD")
	return err
}

func (r *Repository) stash(ctx context.Context, _ *server.Request, in stashArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	if in.Action != "pop" && in.Action != "show" && in.Index != nil {
		return nil, errors.New("index: only pop and show take an index")
	}
	if in.Action != "push" && (in.Message != "" || in.IncludeUntracked) {
		return nil, errors.New("message and include_untracked go with push only")
	}
	switch in.Action {
	case "list":
		out, err := r.run(ctx, nil, r.maxOutput, "stash", "list")
		if err != nil {
			return nil, err
		}
		if out.text == "" {
			return server.TextResult("No stash entries"), nil
		}
		return r.text("", out), nil
	case "push":
		if err := checkMessage(in.Message); err != nil {
			return nil, err
		}
		args := []string{withoutLiteralPathspecs, "stash", "push"}
		if in.IncludeUntracked {
			args = append(args, "--include-untracked")
		}
		if in.Message != "" {
			args = append(args, "--message="+in.Message)
		}
		out, err := r.run(ctx, nil, r.maxOutput, args...)
		if err != nil {
			return nil, err
		}
		return r.text("", out), nil
	case "pop", "show":
		n, err := intArg("index", in.Index, 0, 0, r.maxStashIndex)
		if err != nil {
			return nil, err
		}
		entry := "stash@{" + strconv.Itoa(n) + "}"
		if _, err := r.run(ctx, nil, maxArgLen, "rev-parse", "--verify", "--quiet", "refs/"+entry); err != nil {
			return nil, fmt.Errorf("no stash entry %s", entry)
		}
		if in.Action == "show" {
			out, err := r.run(ctx, nil, r.maxOutput, "stash", "show", "--patch", "--no-ext-diff", entry)
			if err != nil {
				return nil, err
			}
			return r.text("", out), nil
		}
		if err := r.cleanTree(ctx, "pop a stash"); err != nil {
			return nil, err
		}
		created, err := r.stashUntracked(ctx, entry)
		if err != nil {
			return nil, err
		}
		defer created.close()
		if _, err := r.run(ctx, nil, r.maxOutput, "stash", "pop", "--quiet", entry); err != nil {
			uerr := r.undo(ctx)
			if uerr == nil {
				uerr = created.remove()
			}
			if uerr != nil {
				return nil, fmt.Errorf("%w; undoing the pop failed too: %v", err, uerr)
			}
			return nil, fmt.Errorf("%w\nthe pop was undone: the working tree is as it was, and %s is kept", err, entry)
		}
		return server.TextResult("Popped " + entry), nil
	}
	return nil, fmt.Errorf("invalid action '%s': list, show, push or pop", in.Action)
}

// untrackedFiles are the untracked files of a stash entry that a pop
// would create: those missing before it, and the directories missing
// with them. A pop that fails after restoring them (a conflict in a
// tracked file) leaves them, which reset --hard does not remove.
type untrackedFiles struct {
	root  *os.Root
	files []string
	dirs  []string // missing before the pop, deepest first
}

// stashUntracked lists the untracked files of entry (its third parent)
// that do not exist now.
func (r *Repository) stashUntracked(ctx context.Context, entry string) (*untrackedFiles, error) {
	u := &untrackedFiles{}
	if _, err := r.run(ctx, nil, maxArgLen, "rev-parse", "--verify", "--quiet", "refs/"+entry+"^3"); err != nil {
		var gerr *gitError
		if errors.As(err, &gerr) {
			return u, nil // no third parent: no untracked files in the entry
		}
		return nil, err
	}
	// Asked apart from the listing, so that a listing that fails (a
	// damaged repository) refuses the pop rather than passing for none.
	out, err := r.run(ctx, nil, r.maxOutput, "ls-tree", "-r", "-z", "--name-only", "--full-tree", "refs/"+entry+"^3")
	if err != nil {
		return nil, err
	}
	if out.cut {
		return nil, fmt.Errorf("cannot pop %s: it holds too many untracked files to undo the pop if it failed (more than %d bytes of names)", entry, r.maxOutput)
	}
	if u.root, err = os.OpenRoot(r.root); err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, name := range strings.Split(strings.TrimSuffix(out.text, "\x00"), "\x00") {
		if name == "" {
			continue
		}
		p := filepath.FromSlash(name)
		if _, err := u.root.Lstat(p); err == nil || errors.Is(err, syscall.ENOTDIR) {
			continue // the pop refuses to write over it, or through a file
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cannot pop %s: checking its untracked file %s, to undo the pop if it failed: %w", entry, name, err)
		}
		u.files = append(u.files, p)
		for d := filepath.Dir(p); d != "." && !dirs[d]; d = filepath.Dir(d) {
			if _, err := u.root.Lstat(d); err == nil {
				break
			}
			dirs[d] = true
			u.dirs = append(u.dirs, d)
		}
	}
	slices.SortFunc(u.dirs, func(a, b string) int { return len(b) - len(a) })
	return u, nil
}

// remove removes the files, and the directories left empty, that a
// failed pop created.
func (u *untrackedFiles) remove() error {
	for _, f := range u.files {
		if err := u.root.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("removing %s, restored by the pop: %w", f, err)
		}
	}
	for _, d := range u.dirs {
		u.root.Remove(d) // only when empty
	}
	return nil
}

func (u *untrackedFiles) close() {
	if u.root != nil {
		u.root.Close()
	}
}

func (r *Repository) tag(ctx context.Context, _ *server.Request, in tagArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	switch in.Action {
	case "list":
		if in.Name != "" || in.Target != "" || in.Message != "" {
			return nil, errors.New("list takes no name, target or message")
		}
		out, err := r.run(ctx, nil, r.maxOutput, "tag", "--list")
		if err != nil {
			return nil, err
		}
		if out.text == "" {
			return server.TextResult("No tags"), nil
		}
		return r.text("", out), nil
	case "create":
		full, err := r.refName(ctx, "tag name", "refs/tags/", in.Name)
		if err != nil {
			return nil, err
		}
		if ok, err := r.refExists(ctx, full); err != nil || ok {
			if err == nil {
				err = fmt.Errorf("tag '%s' already exists", in.Name)
			}
			return nil, err
		}
		target := in.Target
		if target == "" {
			target = "HEAD"
		}
		id, err := r.resolve(ctx, "target", target, false)
		if err != nil {
			return nil, err
		}
		if err := checkMessage(in.Message); err != nil {
			return nil, err
		}
		if in.Message != "" {
			_, err = r.run(ctx, []byte(in.Message), r.maxOutput, "tag", "--annotate", "--cleanup=whitespace", "--file=-", "--end-of-options", in.Name, id)
		} else {
			_, err = r.run(ctx, nil, r.maxOutput, "tag", "--end-of-options", in.Name, id)
		}
		if err != nil {
			return nil, err
		}
		return server.TextResult(fmt.Sprintf("Created tag '%s' at %s", in.Name, short(id))), nil
	}
	return nil, fmt.Errorf("invalid action '%s': list or create", in.Action)
}

// merge merges a local branch into the current one: fast-forward only
// unless allow_merge_commit; a merge that stops (a conflict, a hook that
// refuses) is aborted.
func (r *Repository) merge(ctx context.Context, _ *server.Request, in mergeArgs) (*mcp.CallToolResult, error) {
	if err := r.checkRepoPath(in.RepoPath); err != nil {
		return nil, err
	}
	full, err := r.refName(ctx, "branch", "refs/heads/", in.Branch)
	if err != nil {
		return nil, err
	}
	if ok, err := r.refExists(ctx, full); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("no local branch is called '%s' (git_merge merges local branches; pull a remote one with git_pull)", in.Branch)
		}
		return nil, err
	}
	if err := checkMessage(in.Message); err != nil {
		return nil, err
	}
	if in.Message != "" && !in.AllowMergeCommit {
		return nil, errors.New("message goes with allow_merge_commit: a fast-forward makes no commit")
	}
	if _, err := os.Lstat(filepath.Join(r.gitDir, "MERGE_HEAD")); err == nil {
		return nil, errors.New("a merge is already in progress: conclude it with git_commit first")
	}
	before, _ := r.run(ctx, nil, maxArgLen, "rev-parse", "--verify", "--quiet", "HEAD")
	args := []string{"merge", "--no-edit", "--quiet"}
	if !in.AllowMergeCommit {
		args = append(args, "--ff-only")
	} else {
		if err := r.cleanTree(ctx, "merge"); err != nil {
			return nil, err
		}
		if in.Message != "" {
			args = append(args, "--message="+in.Message)
		}
	}
	if _, err := r.run(ctx, nil, r.maxOutput, append(args, full)...); err != nil {
		var gerr *gitError
		if !in.AllowMergeCommit && errors.As(err, &gerr) {
			return nil, fmt.Errorf("'%s' cannot be fast-forwarded into the current branch (set allow_merge_commit to record a merge commit); nothing was changed: %w", in.Branch, err)
		}
		if uerr := r.undo(ctx); uerr != nil {
			return nil, fmt.Errorf("%w; aborting the merge failed too: %v", err, uerr)
		}
		return nil, fmt.Errorf("%w\nthe merge was aborted: the repository is as it was", err)
	}
	after, err := r.run(ctx, nil, maxArgLen, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return nil, err
	}
	b, a := strings.TrimSpace(before.text), strings.TrimSpace(after.text)
	if a == b {
		return server.TextResult("Already up to date with '" + in.Branch + "'"), nil
	}
	return server.TextResult(fmt.Sprintf("Merged '%s': %s..%s", in.Branch, short(b), short(a))), nil
}
