//go:build unix

package cli

import (
	"syscall"
)

// alive reports whether the process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
