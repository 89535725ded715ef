package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// A tree is a commit of the repository, written out: what a release tag
// publishes.
type tree struct {
	Dir    string    // the files of the commit
	Commit string    // its hash
	Time   time.Time // its committer date: the time of every file in the archives
}

// exportTree writes the commit rev of the repository at repo into dir
// (git archive: only what is committed, never the work tree's changes).
func exportTree(repo, rev, dir string) (*tree, error) {
	out, err := exec.Command("git", "-C", repo, "log", "-1", "--format=%H %ct", rev).Output()
	if err != nil {
		return nil, fmt.Errorf("git log %s: %w%s", rev, err, stderrOf(err))
	}
	var hash string
	var secs int64
	if _, err := fmt.Sscan(string(out), &hash, &secs); err != nil {
		return nil, fmt.Errorf("git log %s: %q: %v", rev, out, err)
	}
	archive := exec.Command("git", "-C", repo, "archive", "--format=tar", hash)
	var stderr bytes.Buffer
	archive.Stderr = &stderr
	r, err := archive.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := archive.Start(); err != nil {
		return nil, fmt.Errorf("git archive: %w", err)
	}
	untarErr := untar(r, dir)
	io.Copy(io.Discard, r)
	if err := archive.Wait(); err != nil {
		return nil, fmt.Errorf("git archive: %w: %s", err, stderr.Bytes())
	}
	if untarErr != nil {
		return nil, untarErr
	}
	return &tree{Dir: dir, Commit: hash, Time: time.Unix(secs, 0).UTC()}, nil
}

// exportWorktree copies the files of the work tree at repo that git
// tracks or would track (not ignored) into dir, for a proxy of what is
// being edited.
func exportWorktree(repo, dir string) (*tree, error) {
	out, err := exec.Command("git", "-C", repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files: %w%s", err, stderrOf(err))
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src := filepath.Join(repo, filepath.FromSlash(name))
		st, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			return nil, err
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return nil, err
		}
		switch {
		case st.Mode().IsRegular():
			data, err := os.ReadFile(src)
			if err != nil {
				return nil, err
			}
			if err := os.WriteFile(dst, data, st.Mode().Perm()); err != nil {
				return nil, err
			}
		case st.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(src)
			if err != nil {
				return nil, err
			}
			if err := os.Symlink(target, dst); err != nil {
				return nil, err
			}
		}
	}
	return &tree{Dir: dir, Commit: "worktree", Time: time.Now().UTC().Truncate(time.Second)}, nil
}

// untar writes the regular files, directories and symbolic links of a
// tar stream under dir. git archive writes nothing else; names that
// would leave dir are refused.
func untar(r io.Reader, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading git archive: %w", err)
		}
		name := filepath.FromSlash(strings.TrimSuffix(h.Name, "/"))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fs.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := root.Symlink(h.Linkname, name); err != nil {
				return err
			}
		case tar.TypeXGlobalHeader: // git archive's commit id
		default:
			return fmt.Errorf("git archive: %s: unexpected type %q", h.Name, h.Typeflag)
		}
	}
}

// A mod is one module of the tree.
type mod struct {
	Path string // its module path
	Dir  string // its directory, relative to the tree
}

// modules lists the modules of the tree: every directory with a go.mod.
func modules(t *tree) ([]mod, error) {
	var mods []mod
	err := filepath.WalkDir(t.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != t.Dir) {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		path := modfile.ModulePath(data)
		if path == "" {
			return fmt.Errorf("%s: no module line", p)
		}
		rel, err := filepath.Rel(t.Dir, filepath.Dir(p))
		if err != nil {
			return err
		}
		mods = append(mods, mod{Path: path, Dir: filepath.ToSlash(rel)})
		return nil
	})
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods, err
}

// writeProxy publishes every module of the tree at version into proxy, a
// directory laid out as a module proxy (GOPROXY=file://proxy): as tagging
// the commit with version (and DIR/version for a module in DIR) and
// fetching it through proxy.golang.org would publish it. Each module
// requires the others at the version the tree's go.mod files name, which
// must be version: a release names itself (checkRequirements).
func writeProxy(t *tree, proxy, version string) ([]mod, error) {
	mods, err := modules(t)
	if err != nil {
		return nil, err
	}
	if err := checkRequirements(t, mods, version); err != nil {
		return nil, err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, t.Time})
	if err != nil {
		return nil, err
	}
	for _, m := range mods {
		esc, err := module.EscapePath(m.Path)
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(proxy, filepath.FromSlash(esc), "@v")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		src := filepath.Join(t.Dir, filepath.FromSlash(m.Dir))
		gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
		if err != nil {
			return nil, err
		}
		f, err := os.Create(filepath.Join(dir, version+".zip"))
		if err != nil {
			return nil, err
		}
		err = zip.CreateFromDir(f, module.Version{Path: m.Path, Version: version}, src)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("module %s: %w", m.Path, err)
		}
		for name, data := range map[string][]byte{version + ".mod": gomod, version + ".info": info, "list": []byte(version + "\n")} {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return mods, nil
}

// checkRequirements makes sure that the modules of the tree require each
// other at version, and only at version: the release's go.mod files must
// name the release (scripts/release says how to set them).
func checkRequirements(t *tree, mods []mod, version string) error {
	ours := map[string]bool{}
	for _, m := range mods {
		ours[m.Path] = true
	}
	var errs []error
	for _, m := range mods {
		name := filepath.Join(t.Dir, filepath.FromSlash(m.Dir), "go.mod")
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		f, err := modfile.ParseLax(name, data, nil)
		if err != nil {
			return err
		}
		if len(f.Replace) > 0 {
			errs = append(errs, fmt.Errorf("%s/go.mod has a replace directive: go install refuses such a module", m.Dir))
		}
		for _, r := range f.Require {
			if ours[r.Mod.Path] && r.Mod.Version != version {
				errs = append(errs, fmt.Errorf("%s/go.mod requires %s %s, not %s", m.Dir, r.Mod.Path, r.Mod.Version, version))
			}
		}
	}
	return errors.Join(errs...)
}

// stderrOf is the standard error an *exec.ExitError kept, for messages.
func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return ": " + strings.TrimSpace(string(ee.Stderr))
	}
	return ""
}
