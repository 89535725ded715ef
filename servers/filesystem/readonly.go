package filesystem

import (
	"errors"
	"fmt"
	"os"
	"slices"
)

// An access is what a tool does with a path it resolves: every tool
// names one, so that a tool that writes cannot reach a path without the
// read-only check (the official server's validatePath takes the same).
type access int

const (
	forRead  access = iota
	forWrite        // refused inside a read-only directory
	forMove         // refused inside one, and when it holds one
)

// A readOnlyDir is a directory of Options.ReadOnlyDirs: its names (as
// given, made absolute, and its real path), and the directory itself held
// open, so that where it is now can be asked of the system after a rename
// (of it, or of a directory above it).
type readOnlyDir struct {
	names []string
	f     *os.File
}

func openReadOnlyDirs(paths []string) ([]*readOnlyDir, error) {
	var out []*readOnlyDir
	for _, p := range paths {
		d, err := openDir(p)
		if err != nil {
			closeReadOnlyDirs(out)
			return nil, fmt.Errorf("%w: a read-only directory must exist when the server starts", err)
		}
		f, err := d.root.Open(".")
		d.root.Close()
		if err != nil {
			closeReadOnlyDirs(out)
			return nil, fmt.Errorf("filesystem: cannot serve %s read-only: %w", p, err)
		}
		out = append(out, &readOnlyDir{names: d.names, f: f})
	}
	return out, nil
}

func closeReadOnlyDirs(ro []*readOnlyDir) {
	for _, d := range ro {
		d.f.Close()
	}
}

// paths are the names of the directory and, where the system can tell,
// the path it has now.
func (d *readOnlyDir) paths() []string {
	out := d.names
	if now, ok := currentPath(d.f); ok && !slices.Contains(out, now) {
		out = append(slices.Clip(out), now)
	}
	return out
}

// readOnlyList is the official server's list of the read-only
// directories: each one's names, without repeats.
func (f *FS) readOnlyList() []string {
	var out []string
	for _, d := range f.ro {
		for _, n := range d.names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// errReadOnly is wrapped by the refusal of a write into a read-only
// directory.
var errReadOnly = errors.New("read-only directory")

// A readOnlyError is a write refused in a read-only directory, worded as
// the official server words it.
type readOnlyError struct{ text string }

func (e *readOnlyError) Error() string        { return e.text }
func (e *readOnlyError) Is(target error) bool { return target == errReadOnly }

// checkAccess refuses a write (or move) of the real path p (a target's
// path) inside a read-only directory, and a move of one that holds one.
func (f *FS) checkAccess(p string, a access) error {
	if a == forRead {
		return nil
	}
	for _, d := range f.ro {
		for _, name := range d.paths() {
			if _, in := within(p, name); in {
				return &readOnlyError{fmt.Sprintf("Access denied - read-only directory: %s is in %s, which the server was started with --read-only-dir", p, d.names[0])}
			}
		}
	}
	if a != forMove {
		return nil
	}
	for _, d := range f.ro {
		for _, name := range d.paths() {
			if _, in := within(name, p); in {
				return &readOnlyError{fmt.Sprintf("Access denied - read-only directory: %s contains %s, which the server was started with --read-only-dir", p, d.names[0])}
			}
		}
	}
	return nil
}

// resolve resolves a requested path for an access: the read-only
// directories refuse writes and moves once it is resolved (its real
// path: a symbolic link into one is refused too).
func (c *call) resolve(req string, a access) (*target, error) {
	t, err := c.set.resolve(req)
	if err != nil {
		return nil, err
	}
	if err := c.checkAccess(t.path(), a); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

// withinAny reports whether p is one of dirs or below one.
func withinAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if _, ok := within(p, d); ok {
			return true
		}
	}
	return false
}
