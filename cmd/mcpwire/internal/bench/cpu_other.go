//go:build !unix

package bench

import "time"

// processCPU returns 0 and false: this system's process CPU time is not
// read (see cpu_unix.go).
func processCPU() (time.Duration, bool) { return 0, false }
