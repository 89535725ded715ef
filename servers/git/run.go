package git

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// keptEnv lists the GIT_* variables of the server's environment that reach
// git: who commits, and which configuration files apply. Every other GIT_*
// variable is dropped, because many of them (GIT_DIR, GIT_WORK_TREE,
// GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY, GIT_CONFIG_PARAMETERS,
// GIT_EXTERNAL_DIFF, ...) would make git work on another repository or run
// another program than the one the server was started for.
var keptEnv = map[string]bool{
	"GIT_AUTHOR_NAME":     true,
	"GIT_AUTHOR_EMAIL":    true,
	"GIT_AUTHOR_DATE":     true,
	"GIT_COMMITTER_NAME":  true,
	"GIT_COMMITTER_EMAIL": true,
	"GIT_COMMITTER_DATE":  true,
	"GIT_CONFIG_GLOBAL":   true,
	"GIT_CONFIG_SYSTEM":   true,
	"GIT_CONFIG_NOSYSTEM": true,
}

// gitEnv is the environment of every git process: the server's, less the
// GIT_* variables not in keptEnv, plus settings that make git
// non-interactive and keep read-only commands from writing the index.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") && !keptEnv[name] {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_TERMINAL_PROMPT=0", // never ask for credentials on a terminal
		// Nor through a program: an empty GIT_ASKPASS wins over
		// core.askPass and SSH_ASKPASS, and names none.
		"GIT_ASKPASS=",
		"SSH_ASKPASS=",
		"SSH_ASKPASS_REQUIRE=never",
		"GIT_OPTIONAL_LOCKS=0", // status does not rewrite the index
		"GIT_PAGER=cat",
		"GIT_EDITOR=true", // never wait for an editor
	)
}

// withoutLiteralPathspecs, as the first argument of run, runs git
// without --literal-pathspecs, for a command given no pathspec.
const withoutLiteralPathspecs = "\x00without-literal-pathspecs"

// output is what a git command printed, bounded.
type output struct {
	text string // stdout, at most the limit
	cut  bool   // stdout was longer than the limit
}

// A gitError is a git command that failed: its exit status and what it
// said on stderr.
type gitError struct {
	args   []string
	stderr string
	stdout string // said instead when stderr is empty (git commit does)
	err    error
}

func (e *gitError) Error() string {
	for _, msg := range []string{e.stderr, e.stdout} {
		if msg = strings.TrimSpace(msg); msg != "" {
			return msg
		}
	}
	return "git " + e.args[0] + ": " + e.err.Error()
}

func (e *gitError) Unwrap() error { return e.err }

// stopDelay is how long git has to stop once asked (at its time limit,
// or when its call is cancelled: it then removes its lock files) before
// it is killed.
const stopDelay = 2 * time.Second

// maxStderr bounds what is kept of a failing git command's stderr.
const maxStderr = 16 << 10

// run runs git with args in the repository, never through a shell, with
// stdin as its standard input (nil for none). It returns at most limit
// bytes of standard output; a longer output stops git and sets cut. The
// command ends with ctx, or after the repository's timeout.
//
// Once the repository is open, git is told its git directory and work
// tree (--git-dir, --work-tree) rather than left to find them: a .git
// file swapped in, or a core.worktree setting in the repository's
// configuration, cannot move it to another repository or tree. The .git
// directory is checked to be the one Open found before each command.
func (r *Repository) run(ctx context.Context, stdin []byte, limit int, args ...string) (output, error) {
	return r.runTimeout(ctx, r.timeout, stdin, limit, args...)
}

// runTimeout is run with another time limit than the repository's (the
// commands that talk to a remote).
func (r *Repository) runTimeout(ctx context.Context, timeout time.Duration, stdin []byte, limit int, args ...string) (output, error) {
	if err := r.checkGitDir(); err != nil {
		return output{}, err
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	full := []string{"--no-pager", "--literal-pathspecs", "-c", "color.ui=never"}
	if len(args) > 0 && args[0] == withoutLiteralPathspecs {
		// git stash push --include-untracked cleans with pathspec magic,
		// which --literal-pathspecs breaks (the files stay); it is given
		// no pathspec.
		full, args = slices.Delete(full, 1, 2), args[1:]
	}
	if r.gitDir != "" {
		full = append(full, "--git-dir="+r.gitDir, "--work-tree="+r.root)
	}
	full = append(full, args...)
	cmd := exec.CommandContext(cctx, r.gitPath, full...)
	cmd.Dir = r.root
	cmd.Env = r.env
	// Wait returns at most this long after cctx ends, whatever git and
	// what it started do: on unix, git is then asked to stop and has
	// stopDelay to (detach_unix.go); elsewhere it is killed at once.
	cmd.WaitDelay = stopDelay + time.Second
	waited := detach(cmd) // no controlling terminal: ssh cannot ask on /dev/tty either; stopped, not killed at once
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	stderr := &limitedBuffer{limit: maxStderr}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return output{}, err
	}
	if err := cmd.Start(); err != nil {
		return output{}, fmt.Errorf("starting git: %w", err)
	}
	buf, readErr := readUpTo(stdout, limit+1)
	cut := len(buf) > limit
	if cut {
		buf = buf[:limit]
		_ = cmd.Process.Kill() // the rest is not wanted
	}
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	waited()
	switch {
	case cut:
		return output{text: string(buf), cut: true}, nil
	case ctx.Err() != nil:
		return output{}, fmt.Errorf("git %s: %w", args[0], ctx.Err())
	case cctx.Err() != nil:
		return output{}, fmt.Errorf("git %s took longer than %v: %w", args[0], timeout, cctx.Err())
	case waitErr != nil:
		return output{}, &gitError{args: args, stderr: stderr.String(), stdout: string(buf[:min(len(buf), maxStderr)]), err: waitErr}
	case readErr != nil:
		return output{}, fmt.Errorf("reading the output of git %s: %w", args[0], readErr)
	}
	return output{text: string(buf)}, nil
}

// readUpTo reads r until EOF or until n bytes have been read.
func readUpTo(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, 64<<10))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		m, err := r.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// limitedBuffer keeps the first limit bytes written to it and drops the
// rest, so that a chatty command cannot fill memory through stderr.
type limitedBuffer struct {
	buf   bytes.Buffer
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string { return b.buf.String() }
