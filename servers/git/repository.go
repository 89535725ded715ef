package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Limits applied when Options leaves them zero.
const (
	// DefaultTimeout bounds each git command a tool runs.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxOutput bounds the text of a tool's result, in bytes; a
	// longer output is cut, with a note saying so.
	DefaultMaxOutput = 1 << 20
	// DefaultMaxLogCount bounds git_log's max_count (its schema's
	// maximum).
	DefaultMaxLogCount = 1000
	// DefaultMaxFiles bounds the paths of one git_add.
	DefaultMaxFiles = 1000
	// DefaultMaxContextLines bounds the context_lines of the diff tools
	// (their schemas' maximum).
	DefaultMaxContextLines = 10000
	// DefaultRemoteTimeout bounds each git command that talks to a remote
	// (git_fetch, git_pull, git_push).
	DefaultRemoteTimeout = 2 * time.Minute
	// DefaultMaxStashIndex bounds git_stash's index (its schema's
	// maximum).
	DefaultMaxStashIndex = 1000
	// maxArgLen bounds any one revision, branch name, timestamp or path.
	maxArgLen = 4096
)

// Options configures a Repository. The zero value (or nil) is valid.
type Options struct {
	// Git is the git program: a path, or a name looked up on PATH once,
	// when the repository is opened. Default "git".
	Git string
	// Timeout bounds each git command; default DefaultTimeout.
	Timeout time.Duration
	// MaxOutput bounds a tool's text in bytes; default DefaultMaxOutput.
	MaxOutput int
	// MaxLogCount bounds git_log's max_count; default DefaultMaxLogCount.
	MaxLogCount int
	// MaxFiles bounds the paths of one git_add; default DefaultMaxFiles.
	MaxFiles int
	// MaxContextLines bounds context_lines; default DefaultMaxContextLines.
	MaxContextLines int
	// RemoteTimeout bounds each command that talks to a remote; default
	// DefaultRemoteTimeout.
	RemoteTimeout time.Duration
	// MaxStashIndex bounds git_stash's index; default
	// DefaultMaxStashIndex.
	MaxStashIndex int
	// AllowPush offers git_push. Without it the server never pushes.
	AllowPush bool
	// ReadOnly withholds every tool that writes (to the working tree, the
	// index, the refs or a remote): only the tools annotated readOnlyHint
	// are offered.
	ReadOnly bool
}

// A Repository is the one git working tree that the tools work on. It is
// safe for concurrent use; git itself serializes writers with its lock
// files.
type Repository struct {
	root    string // absolute, symbolic links resolved
	gitPath string // absolute
	env     []string
	// gitDir is root/.git, a directory; every git command is given it and
	// root as its work tree. gitDirInfo is what Open found there: a
	// command runs only while it is still the same directory.
	gitDir     string
	gitDirInfo os.FileInfo

	timeout         time.Duration
	maxOutput       int
	maxLogCount     int
	maxFiles        int
	maxContextLines int
	remoteTimeout   time.Duration
	maxStashIndex   int
	allowPush       bool
	readOnly        bool
}

// Open opens the repository whose working tree's top directory is dir. It
// fails unless dir is the top of a git working tree (not a directory
// inside one, and not a bare repository), as the tools work on that one
// repository and nothing else.
func Open(ctx context.Context, dir string, opts *Options) (*Repository, error) {
	if opts == nil {
		opts = &Options{}
	}
	r := &Repository{
		timeout:         orDefault(opts.Timeout, DefaultTimeout),
		maxOutput:       orDefault(opts.MaxOutput, DefaultMaxOutput),
		maxLogCount:     orDefault(opts.MaxLogCount, DefaultMaxLogCount),
		maxFiles:        orDefault(opts.MaxFiles, DefaultMaxFiles),
		maxContextLines: orDefault(opts.MaxContextLines, DefaultMaxContextLines),
		remoteTimeout:   orDefault(opts.RemoteTimeout, DefaultRemoteTimeout),
		maxStashIndex:   orDefault(opts.MaxStashIndex, DefaultMaxStashIndex),
		allowPush:       opts.AllowPush,
		readOnly:        opts.ReadOnly,
		env:             gitEnv(),
	}
	prog := opts.Git
	if prog == "" {
		prog = "git"
	}
	var err error
	if r.gitPath, err = exec.LookPath(prog); err != nil {
		return nil, fmt.Errorf("mcpwire git: finding the git program: %w", err)
	}
	if r.gitPath, err = filepath.Abs(r.gitPath); err != nil {
		return nil, fmt.Errorf("mcpwire git: %w", err)
	}
	if r.root, err = resolveDir(dir); err != nil {
		return nil, fmt.Errorf("mcpwire git: %s is not a valid Git repository: %w", dir, err)
	}
	out, err := r.run(ctx, nil, maxArgLen, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("mcpwire git: %s is not a valid Git repository: %w", dir, err)
	}
	top, err := resolveDir(strings.TrimSuffix(out.text, "\n"))
	if err != nil || top != r.root {
		return nil, fmt.Errorf("mcpwire git: %s is not the top directory of a Git working tree (that is %s)", dir, strings.TrimSpace(out.text))
	}
	gitDir := filepath.Join(r.root, ".git")
	if r.gitDirInfo, err = ownGitDir(gitDir); err != nil {
		return nil, fmt.Errorf("mcpwire git: %s: %w", dir, err)
	}
	r.gitDir = gitDir // from now on, every command is pinned to it
	return r, nil
}

// errGitDir is wrapped by the error of a repository whose git directory
// is not its own .git directory.
var errGitDir = errors.New("the repository's git directory must be its own .git directory")

// ownGitDir checks that the repository keeps its git data in gitDir
// itself: a directory, not a .git file or a symbolic link pointing
// elsewhere (a linked worktree, a submodule's checkout, or a planted
// "gitdir:" line, CVE-2026-134465's class), and without a commondir file
// sending git to another repository's objects and refs.
func ownGitDir(gitDir string) (os.FileInfo, error) {
	fi, err := os.Lstat(gitDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errGitDir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is a %s, not a directory (it points git to a repository elsewhere): %w", gitDir, kind(fi), errGitDir)
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "commondir")); err == nil {
		return nil, fmt.Errorf("%s has a commondir file (it points git to a repository elsewhere): %w", gitDir, errGitDir)
	}
	return fi, nil
}

func kind(fi os.FileInfo) string {
	if fi.Mode()&os.ModeSymlink != 0 {
		return "symbolic link"
	}
	return "file"
}

// checkGitDir refuses to run git once the repository's .git is not the
// directory Open found: replaced by a .git file or a link pointing
// elsewhere, or by another directory. (A swap between this check and
// git's start is not caught; the tools themselves cannot make one.)
func (r *Repository) checkGitDir() error {
	if r.gitDirInfo == nil {
		return nil // Open is still checking the repository
	}
	fi, err := ownGitDir(r.gitDir)
	if err != nil {
		return fmt.Errorf("refusing to run git: %w", err)
	}
	if !os.SameFile(fi, r.gitDirInfo) {
		return fmt.Errorf("refusing to run git: %s is another directory than when the server started: %w", r.gitDir, errGitDir)
	}
	return nil
}

// Root returns the repository's top directory, absolute, with symbolic
// links resolved.
func (r *Repository) Root() string { return r.root }

func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// resolveDir returns dir absolute, cleaned, with symbolic links resolved.
func resolveDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// errRepoPath is wrapped by the error of a repo_path other than the
// served repository.
var errRepoPath = errors.New("repository path outside the allowed repository")

// checkRepoPath accepts an empty repo_path (the served repository) or one
// that resolves, symbolic links and all, to the served repository's top
// directory. A relative path is taken from the server's working
// directory, as the official server does.
func (r *Repository) checkRepoPath(p string) error {
	if p == "" {
		return nil
	}
	if len(p) > maxArgLen || strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("invalid repository path: %w", errRepoPath)
	}
	resolved, err := resolveDir(p)
	if err == nil && resolved == r.root {
		return nil
	}
	if err == nil {
		if rel, rerr := filepath.Rel(r.root, resolved); rerr == nil && filepath.IsLocal(rel) {
			return fmt.Errorf("repository path %q is a directory inside the repository %q, not its top directory: %w", p, r.root, errRepoPath)
		}
	}
	return fmt.Errorf("repository path %q is outside the allowed repository %q: %w", p, r.root, errRepoPath)
}
