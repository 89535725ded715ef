package git

import (
	"context"
	"errors"
	"fmt"
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
}

// A Repository is the one git working tree that the tools work on. It is
// safe for concurrent use; git itself serializes writers with its lock
// files.
type Repository struct {
	root    string // absolute, symbolic links resolved
	gitPath string // absolute
	env     []string

	timeout         time.Duration
	maxOutput       int
	maxLogCount     int
	maxFiles        int
	maxContextLines int
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
	return r, nil
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
