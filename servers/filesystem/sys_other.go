//go:build !linux

package filesystem

import (
	"os"
	"time"
)

// openNonblock is 0 where non-blocking opens are not portable.
const openNonblock = 0

// renameNoReplace: see portableRenameNoReplace.
func renameNoReplace(srcDir *os.Root, src string, dstDir *os.Root, dst string) error {
	return portableRenameNoReplace(srcDir, src, dstDir, dst)
}

// birthTime: see portableBirthTime.
func birthTime(dir *os.Root, name string) time.Time { return portableBirthTime(dir, name) }

// statDetails: see portableStatDetails.
func statDetails(fi os.FileInfo) (uint32, time.Time, uint64) { return portableStatDetails(fi) }

// listDir: see portableListDir.
func listDir(dir *os.Root, f *os.File, limit int) ([]entry, error) {
	return portableListDir(dir, f, limit)
}

// currentPath: see portableCurrentPath.
func currentPath(f *os.File) (string, bool) { return portableCurrentPath(f) }
