//go:build !unix

package streamable_test

import "time"

// benchCPU returns 0: the process's CPU time is read on Unix only.
func benchCPU() time.Duration { return 0 }
