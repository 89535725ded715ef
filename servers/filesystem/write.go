package filesystem

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (c *call) writeFile(ctx context.Context, args *writeArgs) (string, error) {
	if int64(len(args.Content)) > c.opts.MaxWriteBytes {
		return "", errorf("Content too large: %d bytes, more than the limit of %d bytes that write_file writes", len(args.Content), c.opts.MaxWriteBytes)
	}
	t, err := c.resolve(args.Path, forWrite)
	if err != nil {
		return "", err
	}
	defer t.close()
	if err := c.write(t, []byte(args.Content), true); err != nil {
		return "", err
	}
	return "Successfully wrote to " + args.Path, nil
}

// parentMissing is the official server's refusal of a path whose
// directory does not exist.
func parentMissing(t *target) error {
	return errorf("Parent directory does not exist: %s", filepath.Dir(t.path()))
}

// notRegular refuses to write over what is not a regular file (a
// directory, a FIFO, a socket, a device), as the official server does.
func notRegular(t *target) error {
	return errorf("Refusing to write: not a regular file: %s", t.path())
}

// write writes data to the target as the official server does: a new
// file is created exclusively (never through a link); an existing one,
// which must be a regular file, is replaced by renaming a fresh file
// over it, which keeps its permission bits (the official server writes
// it in place; the rename leaves the old content or the new, never part
// of either, when a write fails). create is false for edit_file, which
// only replaces. A failed call leaves no file behind: not the new file
// it created, not the temporary one.
func (c *call) write(t *target, data []byte, create bool) error {
	if t.missing && len(t.tail) > 0 {
		return parentMissing(t)
	}
	if t.base == "." {
		return notRegular(t)
	}
	if create {
		f, err := t.parent.OpenFile(t.base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		switch {
		case err == nil:
			_, werr := f.Write(data)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				t.parent.Remove(t.base) // ours: created above, exclusively
			}
			return opErr("write", t.path(), werr)
		case !errors.Is(err, fs.ErrExist):
			return opErr("open", t.path(), err)
		}
	}
	orig, err := t.parent.Lstat(t.base)
	if err != nil {
		return opErr("lstat", t.path(), err)
	}
	if !orig.Mode().IsRegular() {
		return notRegular(t)
	}
	var rnd [16]byte
	rand.Read(rnd[:])
	tmp := t.base + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	f, err := t.parent.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return opErr("open", filepath.Join(filepath.Dir(t.path()), tmp), err)
	}
	_, err = f.Write(data)
	if err == nil {
		// The permission bits of the file it replaces; a failure here does
		// not fail the write, as in the official server.
		f.Chmod(orig.Mode().Perm())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.parent.Rename(tmp, t.base)
	}
	if err != nil {
		t.parent.Remove(tmp)
		return opErr("rename", filepath.Join(filepath.Dir(t.path()), tmp), err).(*opError).withDest(t.path())
	}
	return nil
}

func (c *call) appendFile(ctx context.Context, args *writeArgs) (string, error) {
	if int64(len(args.Content)) > c.opts.MaxWriteBytes {
		return "", errorf("Content too large: %d bytes, more than the limit of %d bytes that append_file writes", len(args.Content), c.opts.MaxWriteBytes)
	}
	t, err := c.resolve(args.Path, forWrite)
	if err != nil {
		return "", err
	}
	defer t.close()
	if t.missing && len(t.tail) > 0 {
		return "", parentMissing(t)
	}
	if t.base == "." {
		return "", errorf("Refusing to append: not a regular file: %s", t.path())
	}
	// A new file is created exclusively (never through a link); an
	// existing one must be a regular file, opened without waiting on a
	// FIFO and checked to be the file seen before the open (a link
	// swapped in meanwhile is refused). Both append (O_APPEND), so an
	// append that lands meanwhile is kept.
	notFile := errorf("Refusing to append: not a regular file: %s", t.path())
	f, err := t.parent.OpenFile(t.base, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o666)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		seen, lerr := t.parent.Lstat(t.base)
		if lerr != nil {
			return "", opErr("lstat", t.path(), lerr)
		}
		if !seen.Mode().IsRegular() {
			return "", notFile
		}
		if f, err = t.parent.OpenFile(t.base, os.O_WRONLY|os.O_APPEND|openNonblock, 0); err == nil {
			if fi, serr := f.Stat(); serr != nil || !os.SameFile(fi, seen) {
				f.Close()
				return "", errorf("Refusing to append: %s was replaced while it was being opened", t.path())
			}
		}
	}
	if err != nil {
		return "", opErr("open", t.path(), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", opErr("fstat", t.path(), err)
	}
	if !fi.Mode().IsRegular() {
		return "", notFile
	}
	if err := appendAll(f, fi.Size(), []byte(args.Content)); err != nil {
		if created {
			f.Close()
			t.parent.Remove(t.base)
		}
		return "", opErr("write", t.path(), err)
	}
	return "Successfully appended to " + args.Path, nil
}

// appendAll appends data to f, opened O_APPEND when it had size bytes.
// When the write fails part way, what it wrote is taken back, unless
// something else has appended meanwhile: a failed call leaves the file
// as it found it.
func appendAll(f *os.File, size int64, data []byte) error {
	n, err := f.Write(data)
	if err == nil {
		return nil
	}
	if n > 0 {
		if fi, serr := f.Stat(); serr == nil && fi.Size() == size+int64(n) {
			f.Truncate(size)
		}
	}
	return err
}

type copyArgs struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

func (c *call) copyFile(ctx context.Context, args *copyArgs) (string, error) {
	src, err := c.resolve(args.Source, forRead)
	if err != nil {
		return "", err
	}
	defer src.close()
	dst, err := c.resolve(args.Destination, forWrite)
	if err != nil {
		return "", err
	}
	defer dst.close()
	switch {
	case !dst.missing:
		return "", errorf("Destination already exists: %s", dst.path())
	case len(dst.tail) > 0:
		return "", parentMissing(dst)
	case src.missing:
		return "", opErr("lstat", src.path(), syscall.ENOENT)
	case src.info.IsDir():
		return "", errorf("Cannot copy a directory: %s. copy_file copies one regular file; create the directory at the destination and copy its files one at a time.", src.path())
	case !src.info.Mode().IsRegular():
		return "", errorf("Cannot copy: not a regular file: %s", src.path())
	}
	in, err := src.parent.OpenFile(src.base, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return "", opErr("open", src.path(), err)
	}
	defer in.Close()
	fi, err := in.Stat()
	switch {
	case err != nil:
		return "", opErr("fstat", src.path(), err)
	case !fi.Mode().IsRegular() || !os.SameFile(fi, src.info):
		return "", errorf("Refusing to copy: %s was replaced while it was being opened", src.path())
	}
	// Owner-only until the copy is whole and takes the source's mode, so
	// a private file is never readable at the destination in between.
	out, err := dst.parent.OpenFile(dst.base, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return "", errorf("Destination already exists: %s", dst.path())
	}
	if err != nil {
		return "", opErr("open", dst.path(), err)
	}
	err = copyData(ctx, out, in)
	if err == nil {
		err = out.Chmod(fi.Mode().Perm())
	}
	if err == nil {
		atime := fi.ModTime()
		if _, at, _ := statDetails(fi); !at.IsZero() {
			atime = at
		}
		err = dst.parent.Chtimes(dst.base, atime, fi.ModTime())
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		dst.parent.Remove(dst.base) // a failed copy leaves nothing behind
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", opErr("copyfile", src.path(), err).(*opError).withDest(dst.path())
	}
	return "Successfully copied " + args.Source + " to " + args.Destination, nil
}

// copyData copies in to out, in chunks, until the end or until ctx ends.
func copyData(ctx context.Context, out io.Writer, in io.Reader) error {
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := in.Read(buf)
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (c *call) createDirectory(ctx context.Context, args *pathArgs) (string, error) {
	t, err := c.resolve(args.Path, forWrite)
	if err != nil {
		return "", err
	}
	defer t.close()
	switch {
	case !t.missing && t.info.IsDir():
	case !t.missing:
		// Named as the official server names it: by its last component.
		return "", opErr("mkdir", filepath.Base(t.path()), syscall.EEXIST)
	default:
		if err := t.parent.MkdirAll(filepath.Join(append([]string{t.base}, t.tail...)...), 0o777); err != nil {
			return "", opErr("mkdir", t.path(), err)
		}
	}
	return "Successfully created directory " + args.Path, nil
}

type moveArgs struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

func (c *call) moveFile(ctx context.Context, args *moveArgs) (string, error) {
	src, err := c.resolve(args.Source, forMove)
	if err != nil {
		return "", err
	}
	defer src.close()
	dst, err := c.resolve(args.Destination, forMove)
	if err != nil {
		return "", err
	}
	defer dst.close()
	switch {
	case !dst.missing:
		return "", errorf("Destination already exists: %s", dst.path())
	case len(dst.tail) > 0:
		return "", parentMissing(dst)
	case src.missing:
		return "", opErr("rename", src.path(), syscall.ENOENT).(*opError).withDest(dst.path())
	case src.base == ".":
		return "", errorf("Cannot move %s: it is an allowed directory itself", src.path())
	}
	if err := renameNoReplace(src.parent, src.base, dst.parent, dst.base); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", errorf("Destination already exists: %s", dst.path())
		}
		return "", opErr("rename", src.path(), err).(*opError).withDest(dst.path())
	}
	return "Successfully moved " + args.Source + " to " + args.Destination, nil
}

func (e *opError) withDest(dest string) error {
	e.dest = dest
	return e
}
