package git

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// errOption is wrapped by the error of a value that git could read as an
// option: a revision, branch name or timestamp starting with '-'.
var errOption = errors.New("a value starting with '-' could be read as an option")

// errOutside is wrapped by the error of a path that leaves the repository.
var errOutside = errors.New("path outside the repository")

// checkValue refuses what must never reach git's command line as a
// revision, ref or date: an empty value, one starting with '-' (git would
// read it as an option: --output=FILE writes a file, --upload-pack runs a
// program), and NUL bytes or line ends. what names the argument in the
// error, as in "Invalid revision".
func checkValue(what, v string) error {
	switch {
	case v == "":
		return fmt.Errorf("invalid %s: it is empty", what)
	case strings.HasPrefix(v, "-"):
		return fmt.Errorf("invalid %s: '%s' - cannot start with '-': %w", what, v, errOption)
	case len(v) > maxArgLen:
		return fmt.Errorf("invalid %s: longer than %d bytes", what, maxArgLen)
	case strings.ContainsAny(v, "\x00\n\r"):
		return fmt.Errorf("invalid %s: %q holds a NUL byte or a line end", what, v)
	}
	return nil
}

// repoRelative turns a path given to git_add into a path relative to the
// repository's top directory, or refuses it. Accepted: a relative path
// that stays inside the repository once cleaned ("." is the whole tree),
// or an absolute path inside it. Refused: ".." leaving the tree, absolute
// paths outside it, a path through a symbolic link (git would refuse it
// too: "beyond a symbolic link") and anything inside .git. The final
// element may itself be a symbolic link, even one pointing out of the
// tree: git stages the link, never what it points to.
func (r *Repository) repoRelative(root *os.Root, p string) (string, error) {
	if p == "" || len(p) > maxArgLen || strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("invalid path %q", p)
	}
	rel := p
	if filepath.IsAbs(p) {
		var err error
		if rel, err = filepath.Rel(r.root, filepath.Clean(p)); err != nil {
			return "", fmt.Errorf("path '%s' is outside the repository '%s': %w", p, r.root, errOutside)
		}
	}
	rel = filepath.Clean(rel)
	if rel != "." && !filepath.IsLocal(rel) {
		return "", fmt.Errorf("path '%s' is outside the repository '%s': %w", p, r.root, errOutside)
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	// Every component, before the walk below stops at the first that does
	// not exist: "gone/.git" names no file today, but git would take it.
	for _, part := range parts {
		if strings.EqualFold(part, ".git") {
			return "", fmt.Errorf("path '%s' is inside the repository's .git directory: %w", p, errOutside)
		}
	}
	for i := range parts {
		if rel == "." {
			break
		}
		info, err := root.Lstat(filepath.Join(parts[:i+1]...))
		if errors.Is(err, fs.ErrNotExist) {
			break // a deleted file: git add stages its removal
		}
		if err != nil {
			return "", fmt.Errorf("path '%s': %w: %w", p, errOutside, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 && i < len(parts)-1 {
			return "", fmt.Errorf("path '%s' is beyond a symbolic link: %w", p, errOutside)
		}
	}
	return rel, nil
}
