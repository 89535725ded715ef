//go:build unix

package inspect

import (
	"os"
	"syscall"
)

// fileTrust says why the servers of a configuration file must not be
// started from the page, or "": a file (or the symbolic link to it)
// that belongs to another user, or that other users may write, could
// name any command. (mcpwire servers and @NAME on the command line read
// it all the same: there the person typed the name.)
func fileTrust(path string) string {
	li, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	uid := os.Getuid()
	for _, i := range []os.FileInfo{li, fi} {
		if st, ok := i.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid && st.Uid != 0 {
			return "the file belongs to another user"
		}
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return "the file is writable by other users (chmod go-w " + path + ")"
	}
	return ""
}
