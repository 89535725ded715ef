//go:build unix

package streamable_test

import (
	"syscall"
	"time"
)

// benchCPU returns the CPU time (user and system) the process has used.
func benchCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
