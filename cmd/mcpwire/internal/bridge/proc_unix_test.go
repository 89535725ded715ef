//go:build unix

package bridge

import (
	"syscall"
	"time"
)

// alive reports whether the process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// processCPU returns the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
