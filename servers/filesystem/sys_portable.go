package filesystem

// The portable forms of what sys_linux.go does with Linux system calls:
// sys_other.go uses them on every other system, and their tests run on
// Linux too (sys_portable_test.go), so that the code Windows and macOS
// run is tested where CI runs.

import (
	"io/fs"
	"os"
	"time"
)

// portableRenameNoReplace renames src in srcDir to dst in dstDir unless dst
// exists. Without renameat2, it looks first, as the official server does,
// and can only rename within one directory tree opened as srcDir.
func portableRenameNoReplace(srcDir *os.Root, src string, dstDir *os.Root, dst string) error {
	if _, err := dstDir.Lstat(dst); err == nil {
		return fs.ErrExist
	}
	if srcDir != dstDir {
		return errorf("moving a file between two directories is supported on Linux only")
	}
	return srcDir.Rename(src, dst)
}

// portableBirthTime is unknown here: the modification time stands in.
func portableBirthTime(dir *os.Root, name string) time.Time {
	if fi, err := dir.Lstat(name); err == nil {
		return fi.ModTime()
	}
	return time.Unix(0, 0)
}

// portableStatDetails returns the permission bits, for want of a portable access
// time the modification time, and one link.
func portableStatDetails(fi os.FileInfo) (uint32, time.Time, uint64) {
	return uint32(fi.Mode().Perm()), fi.ModTime(), 1
}

// portableListDir reads the entries of f, a directory opened in dir.
func portableListDir(dir *os.Root, f *os.File, limit int) ([]entry, error) {
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

// portableCurrentPath cannot tell where a directory is now here: the read-only
// directories are known by their names only.
func portableCurrentPath(f *os.File) (string, bool) { return "", false }
