//go:build !unix

package inprocess

import "time"

// processCPU is not measured here: the CPU-per-call figure is reported
// as 0 on systems without getrusage.
func processCPU() time.Duration { return 0 }
