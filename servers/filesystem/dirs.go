package filesystem

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
)

// An allowedDir is one directory the tools may use, opened as an os.Root:
// every access below it goes through the root, which refuses .., absolute
// paths and symbolic links that lead out, and resolves each path one
// component at a time from an open directory, so a path swapped in after
// a check cannot lead out either.
type allowedDir struct {
	// names are the absolute paths that name the directory: the path as
	// configured and, when symbolic links lead to it, its real path.
	names []string
	real  string // the real path, which results show
	root  *os.Root
}

// A dirSet is the set of allowed directories that applies to a request:
// the configured ones, or a client's roots. Requests hold a reference
// while they use it; the set closes its roots when it has been replaced
// and the last request is done.
type dirSet struct {
	dirs  []*allowedDir
	names []string // every name of every directory, in order
	refs  atomic.Int64
}

// openDirs opens the directories at paths (each absolute, or relative to
// the working directory, or starting with ~/). Every one must exist and be
// a directory.
func openDirs(paths []string) (*dirSet, error) {
	s := &dirSet{}
	s.refs.Store(1)
	for _, p := range paths {
		d, err := openDir(p)
		if err != nil {
			s.close()
			return nil, err
		}
		s.add(d)
	}
	return s, nil
}

func (s *dirSet) add(d *allowedDir) {
	s.dirs = append(s.dirs, d)
	s.names = append(s.names, d.names...)
}

func openDir(p string) (*allowedDir, error) {
	fail := func(name string, err error) error {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("filesystem: cannot serve %s: %w", name, err)
	}
	abs, err := filepath.Abs(expandHome(p))
	if err != nil {
		return nil, fail(p, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fail(abs, err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fail(abs, err)
	}
	fi, err := root.Stat(".")
	if err == nil && !fi.IsDir() {
		err = errors.New("not a directory")
	}
	if err != nil {
		root.Close()
		return nil, fail(abs, err)
	}
	d := &allowedDir{names: []string{abs}, real: real, root: root}
	if real != abs {
		d.names = append(d.names, real)
	}
	return d, nil
}

func (s *dirSet) acquire() { s.refs.Add(1) }

func (s *dirSet) release() {
	if s.refs.Add(-1) == 0 {
		s.close()
	}
}

func (s *dirSet) close() {
	for _, d := range s.dirs {
		d.root.Close()
	}
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

var windowsDrive = regexp.MustCompile(`^[A-Za-z]:([\\/]|$)`)

// absolute turns a requested path into an absolute one as the official
// server does: ~ is the home directory; a relative path is taken from the
// first allowed directory under which it stays.
func (s *dirSet) absolute(p string) (string, error) {
	req := p
	p = expandHome(p)
	if runtime.GOOS != "windows" && windowsDrive.MatchString(p) {
		return "", errorf("Access denied - Windows-style path received on a POSIX host: %s", req)
	}
	var abs string
	switch {
	case filepath.IsAbs(p):
		abs = filepath.Clean(p)
	case len(s.names) == 0:
		var err error
		if abs, err = filepath.Abs(p); err != nil {
			return "", err
		}
	default:
		abs = filepath.Join(s.names[0], p)
		for _, name := range s.names {
			if c := filepath.Join(name, p); s.contains(c) {
				abs = c
				break
			}
		}
	}
	if len(s.dirs) == 0 {
		return "", errorf("Access denied - no allowed directories: the client exposes no valid roots (%s)", abs)
	}
	if strings.IndexByte(abs, 0) >= 0 || !s.contains(abs) {
		return "", errorf("Access denied - path outside allowed directories: %s not in %s", abs, strings.Join(s.names, ", "))
	}
	return abs, nil
}

func (s *dirSet) contains(abs string) bool {
	_, _, ok := s.locate(abs)
	return ok
}

// within returns abs relative to dir, if abs is dir or below it.
func within(abs, dir string) (string, bool) {
	if abs == dir {
		return ".", true
	}
	if dir == string(filepath.Separator) {
		return abs[1:], strings.HasPrefix(abs, dir)
	}
	rest, ok := strings.CutPrefix(abs, dir+string(filepath.Separator))
	return rest, ok
}

// locate finds the allowed directory that holds the clean absolute path
// abs, and the path relative to it. When allowed directories nest, the
// outermost holds it: symbolic links then resolve in the largest root.
func (s *dirSet) locate(abs string) (*allowedDir, string, bool) {
	var best *allowedDir
	bestRel, bestLen := "", -1
	for _, d := range s.dirs {
		for _, name := range d.names {
			rel, ok := within(abs, name)
			n := len(rel)
			if rel == "." {
				n = 0
			}
			if ok && n > bestLen {
				best, bestRel, bestLen = d, rel, n
			}
		}
	}
	return best, bestRel, best != nil
}

func (s *dirSet) list() string { return strings.Join(s.names, ", ") }
