//go:build !unix

package otel_test

import "time"

// cpuTime is not measured where getrusage is not (windows): the benchmarks'
// cpu-ns/op reads 0 there.
func cpuTime() time.Duration { return 0 }
