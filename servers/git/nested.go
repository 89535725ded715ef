package git

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxGitFile bounds what is read of a .git file: one "gitdir:" line.
const maxGitFile = 4096

// checkNested refuses a path for git_add (rel, as repoRelative returns it)
// that involves a nested repository or a submodule in a way that would
// make git read another repository's git directory outside the served
// one (CVE-2026-134465's class: a .git file whose "gitdir:" line points
// outside):
//
//   - a path inside a nested repository or submodule: git would refuse it
//     or ignore it anyway; refused whatever its git directory;
//   - a nested repository or submodule itself, or a directory holding one
//     at any depth ("." holds them all): git records the commit its git
//     directory's HEAD names, so one whose .git file or link leads out of
//     the repository is refused. One with its own .git directory, or
//     whose git directory is inside the repository (.git/modules, where
//     git submodule absorbgitdirs keeps them), is staged as git does.
//
// Directories are walked as git walks them: links are not followed, and
// neither .git directories nor nested repositories are entered.
func (r *Repository) checkNested(ctx context.Context, root *os.Root, rel string) error {
	if rel == "." {
		return r.walkNested(ctx, root, ".")
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i := range len(parts) - 1 {
		dir := filepath.Join(parts[:i+1]...)
		info, err := root.Lstat(dir)
		if err != nil || !info.IsDir() {
			return nil // missing, or not a directory: git stages nothing in it
		}
		nested, err := r.nestedGitDir(root, dir)
		if err != nil {
			return err
		}
		if nested {
			return fmt.Errorf("path '%s' is inside the nested repository or submodule '%s', another repository than the one served: %w", rel, dir, errOutside)
		}
	}
	if info, err := root.Lstat(rel); err != nil || !info.IsDir() {
		return nil
	}
	return r.walkNested(ctx, root, rel)
}

// walkNested refuses a nested repository or submodule under dir (dir
// included, the top of the served repository excluded) whose git
// directory is outside the repository.
func (r *Repository) walkNested(ctx context.Context, root *os.Root, dir string) error {
	return fs.WalkDir(root.FS(), filepath.ToSlash(dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("checking '%s' for nested repositories: %w", p, err)
		}
		if !d.IsDir() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if strings.EqualFold(d.Name(), ".git") {
			return fs.SkipDir
		}
		if p == "." {
			return nil // the served repository itself
		}
		nested, err := r.nestedGitDir(root, filepath.FromSlash(p))
		if err != nil {
			return err
		}
		if nested {
			return fs.SkipDir // git does not enter it
		}
		return nil
	})
}

// nestedGitDir looks for a .git entry in dir (relative to the top of the
// repository). It reports whether there is one, and an error when the
// nested repository's git directory is outside the served repository: a
// .git file whose "gitdir:" line, or a .git link whose target, leads out
// of it.
func (r *Repository) nestedGitDir(root *os.Root, dir string) (bool, error) {
	name := filepath.Join(dir, ".git")
	info, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("'%s': %w: %w", name, errOutside, err)
	}
	abs := filepath.Join(r.root, dir)
	var target string
	switch {
	case info.IsDir():
		return true, nil // its own, inside the tree
	case info.Mode()&fs.ModeSymlink != 0:
		target = filepath.Join(abs, ".git")
	case info.Mode().IsRegular():
		f, err := root.Open(name)
		if err != nil {
			return true, fmt.Errorf("'%s': %w: %w", name, errOutside, err)
		}
		b, err := io.ReadAll(io.LimitReader(f, maxGitFile))
		f.Close()
		if err != nil {
			return true, fmt.Errorf("'%s': %w: %w", name, errOutside, err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		gitdir, ok := strings.CutPrefix(line, "gitdir:")
		if !ok {
			return true, nil // git reads no repository from it
		}
		target = strings.TrimSpace(gitdir)
		if !filepath.IsAbs(target) {
			target = filepath.Join(abs, target)
		}
	default:
		return true, nil
	}
	real, err := filepath.EvalSymlinks(target)
	if err == nil {
		if rel, err := filepath.Rel(r.root, real); err == nil && filepath.IsLocal(rel) {
			return true, nil
		}
	}
	return true, fmt.Errorf("'%s' is a nested repository or submodule whose git directory '%s' is outside the repository '%s': %w", dir, target, r.root, errOutside)
}
