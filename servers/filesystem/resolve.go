package filesystem

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/text/unicode/norm"
)

// maxLinks bounds the symbolic links followed to resolve one path, as
// Linux does.
const maxLinks = 40

// A target is a requested path resolved inside an allowed directory: the
// real (symbolic-link-free) path of what exists, and the open directory
// that holds its last component. Tools act on parent and base only, so
// whatever happens to the path meanwhile, they act inside the root.
type target struct {
	abs     string      // the path as requested, made absolute
	dir     *allowedDir // the allowed directory it resolved into
	real    []string    // the existing components below dir, links resolved
	parent  *os.Root    // the directory holding base
	own     bool        // parent is ours to close (it is not dir.root)
	base    string      // the last component; "." for dir itself; the first missing one when missing
	tail    []string    // when missing: the components after base
	missing bool        // base does not exist
	info    fs.FileInfo // Lstat of base, when it exists
}

// path is the target's real absolute path, as results show it.
func (t *target) path() string {
	parts := append([]string{t.dir.real}, t.real...)
	if t.base != "." {
		parts = append(parts, t.base)
	}
	return filepath.Join(append(parts, t.tail...)...)
}

func (t *target) close() {
	if t.own {
		t.parent.Close()
	}
}

func splitRel(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, string(filepath.Separator))
}

// resolve resolves a requested path as the official server's validatePath
// does (a real path inside an allowed directory, the missing tail of a
// path that does not exist yet, names equal under Unicode NFC taken for
// one another), with every step taken through an os.Root. The caller
// closes the target.
func (s *dirSet) resolve(req string) (*target, error) {
	abs, err := s.absolute(req)
	if err != nil {
		return nil, err
	}
	dir, rel, _ := s.locate(abs)
	t := &target{abs: abs}
	if err := s.walk(t, dir, splitRel(rel)); err != nil {
		return nil, err
	}
	return t, nil
}

func (s *dirSet) walk(t *target, dir *allowedDir, queue []string) error {
	cur, own := dir.root, false
	var real []string
	links := 0
	pending := 0   // how many components at the head of queue come from link targets
	lastLink := "" // the path of the last link followed
	fail := func(err error) error {
		if own {
			cur.Close()
		}
		return err
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		fromLink := pending > 0
		if pending > 0 {
			pending--
		}
		fi, err := cur.Lstat(c)
		if errors.Is(err, fs.ErrNotExist) {
			alt, aerr := equivalentName(cur, c)
			if aerr != nil {
				return fail(aerr)
			}
			if alt != "" {
				c = alt
				fi, err = cur.Lstat(c)
			}
		}
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return fail(opErr("realpath", t.abs, err))
			}
			if fromLink || pending > 0 { // a link that leads nowhere
				return fail(errorf("Broken symlink: %s points to a target that does not exist", lastLink))
			}
			*t = target{abs: t.abs, dir: dir, real: real, parent: cur, own: own, base: c, tail: queue, missing: true}
			return nil
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if links++; links > maxLinks {
				return fail(opErr("realpath", t.abs, syscall.ELOOP))
			}
			dest, err := cur.Readlink(c)
			if err != nil {
				return fail(opErr("realpath", t.abs, err))
			}
			lastLink = filepath.Join(append(append([]string{dir.real}, real...), c)...)
			var to string
			if filepath.IsAbs(dest) {
				to = filepath.Clean(dest)
			} else {
				to = filepath.Join(append(append([]string{dir.real}, real...), dest)...)
			}
			nd, nrel, ok := s.locate(to)
			if !ok {
				return fail(errorf("Access denied - symlink target outside allowed directories: %s not in %s", filepath.Join(append([]string{to}, queue...)...), s.list()))
			}
			parts := splitRel(nrel)
			pending += len(parts)
			queue = append(parts, queue...)
			if own {
				cur.Close()
			}
			cur, own, dir, real = nd.root, false, nd, nil
		case len(queue) == 0:
			*t = target{abs: t.abs, dir: dir, real: real, parent: cur, own: own, base: c, info: fi}
			return nil
		case !fi.IsDir():
			return fail(opErr("realpath", t.abs, syscall.ENOTDIR))
		default:
			next, err := cur.OpenRoot(c)
			if err != nil {
				return fail(opErr("realpath", t.abs, err))
			}
			if own {
				cur.Close()
			}
			cur, own = next, true
			real = append(real, c)
		}
	}
	// The allowed directory itself (or a link to it).
	fi, err := cur.Stat(".")
	if err != nil {
		return fail(opErr("realpath", t.abs, err))
	}
	*t = target{abs: t.abs, dir: dir, real: real, parent: cur, own: own, base: ".", info: fi}
	return nil
}

// equivalentName looks in dir for the one entry whose name equals name
// under Unicode NFC (a file named in NFD, as macOS writes them, asked for
// in NFC), as the official server does for paths that do not exist as
// given. It returns "" when there is none.
func equivalentName(dir *os.Root, name string) (string, error) {
	want := norm.NFC.String(name)
	asciiWant := isASCII(want)
	f, err := dir.Open(".")
	if err != nil {
		return "", nil
	}
	defer f.Close()
	var found []string
	for {
		names, err := f.Readdirnames(1024)
		for _, n := range names {
			if n == name || asciiWant && isASCII(n) {
				continue
			}
			if norm.NFC.String(n) == want {
				found = append(found, n)
			}
		}
		if err != nil || len(names) == 0 {
			break
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", errorf("Ambiguous Unicode path component: %s", name)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// openFile opens the target for reading; op names the operation in
// errors, as Node names them.
func (t *target) openFile(op string) (*os.File, fs.FileInfo, error) {
	if t.missing {
		return nil, nil, opErr(op, t.path(), syscall.ENOENT)
	}
	// Non-blocking: opening a FIFO would otherwise wait for a writer. It
	// changes nothing for a regular file, and the caller refuses the rest.
	f, err := t.parent.OpenFile(t.base, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, opErr(op, t.path(), err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, opErr(op, t.path(), err)
	}
	return f, fi, nil
}

// openDir opens the target as a root of its own, for listing and walking.
func (t *target) openDir(op string) (*os.Root, error) {
	if t.missing {
		return nil, opErr(op, t.path(), syscall.ENOENT)
	}
	if !t.info.IsDir() {
		return nil, opErr(op, t.path(), syscall.ENOTDIR)
	}
	r, err := t.parent.OpenRoot(t.base)
	if err != nil {
		return nil, opErr(op, t.path(), err)
	}
	return r, nil
}
