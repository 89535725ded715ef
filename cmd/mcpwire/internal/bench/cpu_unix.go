//go:build unix

package bench

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) that this process has
// used, and true; on systems where it cannot be read, 0 and false.
// Servers that mcpwire starts are other processes: their time is not in
// it.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
