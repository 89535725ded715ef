//go:build linux

package filesystem

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// These two operations need what os.Root does not offer: renaming
// without replacing, and a file's birth time. Each works on directories
// opened through the roots and on one plain name inside them, never
// following a symbolic link, so it cannot reach outside either.

// openNonblock opens without waiting (for a FIFO's writer).
const openNonblock = syscall.O_NONBLOCK

// withDirFDs runs f with the descriptors of the two directories.
func withDirFDs(a, b *os.Root, f func(afd, bfd int) error) error {
	af, err := a.Open(".")
	if err != nil {
		return err
	}
	defer af.Close()
	bf, err := b.Open(".")
	if err != nil {
		return err
	}
	defer bf.Close()
	ac, err := af.SyscallConn()
	if err != nil {
		return err
	}
	bc, err := bf.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := ac.Control(func(afd uintptr) {
		if err := bc.Control(func(bfd uintptr) { ferr = f(int(afd), int(bfd)) }); err != nil {
			ferr = err
		}
	}); err != nil {
		return err
	}
	return ferr
}

// renameNoReplace renames src in srcDir to dst in dstDir, failing with an
// error matching fs.ErrExist when dst exists: atomically where the file
// system supports RENAME_NOREPLACE, else by looking first, as the
// official server always does.
func renameNoReplace(srcDir *os.Root, src string, dstDir *os.Root, dst string) error {
	return withDirFDs(srcDir, dstDir, func(sfd, dfd int) error {
		err := unix.Renameat2(sfd, src, dfd, dst, unix.RENAME_NOREPLACE)
		if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) {
			return err
		}
		var st unix.Stat_t
		if unix.Fstatat(dfd, dst, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			return unix.EEXIST
		}
		return unix.Renameat(sfd, src, dfd, dst)
	})
}

// birthTime returns when name in dir was created, or the Unix epoch when
// the file system does not say (as Node reports it then).
func birthTime(dir *os.Root, name string) time.Time {
	var t time.Time = time.Unix(0, 0)
	withDirFDs(dir, dir, func(fd, _ int) error {
		var stx unix.Statx_t
		flags := unix.AT_SYMLINK_NOFOLLOW
		if name == "." {
			name, flags = "", flags|unix.AT_EMPTY_PATH
		}
		if unix.Statx(fd, name, flags, unix.STATX_BTIME, &stx) == nil && stx.Mask&unix.STATX_BTIME != 0 {
			t = time.Unix(stx.Btime.Sec, int64(stx.Btime.Nsec))
		}
		return nil
	})
	return t
}

// statDetails returns the mode bits (permissions in the low nine), the
// access time and the number of hard links of a file.
func statDetails(fi os.FileInfo) (uint32, time.Time, uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Mode, time.Unix(st.Atim.Sec, st.Atim.Nsec), uint64(st.Nlink)
	}
	return uint32(fi.Mode().Perm()), fi.ModTime(), 1
}

// listDir reads the entries of dir (f, opened in it) with the types the
// file system records (getdents64), and lstats only those it does not
// record. os.File.ReadDir would lstat every entry of a directory opened
// in a Root.
func listDir(dir *os.Root, f *os.File, limit int) ([]entry, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var out []entry
	var rerr error
	buf := make([]byte, 32<<10)
	cerr := rc.Control(func(fd uintptr) {
		for {
			n, err := unix.ReadDirent(int(fd), buf)
			if err != nil {
				rerr = err
				return
			}
			if n <= 0 {
				return
			}
			for b := buf[:n]; len(b) >= 19; {
				// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
				reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
				if reclen < 19 || reclen > len(b) {
					rerr = errors.New("malformed directory entry")
					return
				}
				ino, typ, name := *(*uint64)(unsafe.Pointer(&b[0])), b[18], b[19:reclen]
				b = b[reclen:]
				if i := bytes.IndexByte(name, 0); i >= 0 {
					name = name[:i]
				}
				if ino == 0 || string(name) == "." || string(name) == ".." {
					continue
				}
				if len(out) >= limit {
					rerr = tooMany(limit)
					return
				}
				out = append(out, entry{name: string(name), typ: direntType(typ)})
			}
		}
	})
	if cerr != nil {
		return nil, cerr
	}
	if rerr != nil {
		return nil, rerr
	}
	for i := range out {
		if out[i].typ == unknownType {
			fi, err := dir.Lstat(out[i].name)
			if err != nil {
				out[i].typ = 0 // gone meanwhile: a file, as Node would say
				continue
			}
			out[i].typ = fi.Mode().Type()
		}
	}
	return out, nil
}

const unknownType = ^fs.FileMode(0)

func direntType(t uint8) fs.FileMode {
	switch t {
	case unix.DT_REG:
		return 0
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	}
	return unknownType
}

// currentPath is where the open directory f is now, as the kernel
// tracks it (/proc/self/fd): a rename of it, or of a directory above it,
// shows. It is false when the directory was removed or cannot be told.
func currentPath(f *os.File) (string, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	var p string
	var rerr error
	if err := rc.Control(func(fd uintptr) {
		p, rerr = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
	}); err != nil || rerr != nil || !filepath.IsAbs(p) || strings.HasSuffix(p, " (deleted)") {
		return "", false
	}
	return p, true
}
