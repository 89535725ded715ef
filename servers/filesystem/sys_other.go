//go:build !linux

package filesystem

import (
	"io/fs"
	"os"
	"time"
)

// openNonblock is 0 where non-blocking opens are not portable.
const openNonblock = 0

// renameNoReplace renames src in srcDir to dst in dstDir unless dst
// exists. Without renameat2, it looks first, as the official server does,
// and can only rename within one directory tree opened as srcDir.
func renameNoReplace(srcDir *os.Root, src string, dstDir *os.Root, dst string) error {
	if _, err := dstDir.Lstat(dst); err == nil {
		return fs.ErrExist
	}
	if srcDir != dstDir {
		return errorf("moving a file between two directories is supported on Linux only")
	}
	return srcDir.Rename(src, dst)
}

// birthTime is unknown here: the modification time stands in.
func birthTime(dir *os.Root, name string) time.Time {
	if fi, err := dir.Lstat(name); err == nil {
		return fi.ModTime()
	}
	return time.Unix(0, 0)
}

// statDetails returns the permission bits, for want of a portable access
// time the modification time, and one link.
func statDetails(fi os.FileInfo) (uint32, time.Time, uint64) {
	return uint32(fi.Mode().Perm()), fi.ModTime(), 1
}

// listDir reads the entries of f, a directory opened in dir.
func listDir(dir *os.Root, f *os.File, limit int) ([]entry, error) {
	var out []entry
	for {
		batch, err := f.ReadDir(1024)
		for _, e := range batch {
			out = append(out, entry{name: e.Name(), typ: e.Type()})
		}
		if len(out) > limit {
			return nil, tooMany(limit)
		}
		if err != nil || len(batch) == 0 {
			return out, nil
		}
	}
}

// currentPath cannot tell where a directory is now here: the read-only
// directories are known by their names only.
func currentPath(f *os.File) (string, bool) { return "", false }
