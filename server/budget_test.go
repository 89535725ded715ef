package server_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestRoundTripBudget holds the in-process tools/call round trip (legacy
// era, 100-byte payload) to its budget: at most 40 allocations and 3 KiB.
// The race detector allocates on its own, so the test runs without it.
func TestRoundTripBudget(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation counts are only meaningful without -race")
	}
	res := testing.Benchmark(func(b *testing.B) { benchRoundTrip(b, mcp.LatestLegacy) })
	if a, by := res.AllocsPerOp(), res.AllocedBytesPerOp(); a > 40 || by > 3072 {
		t.Errorf("tools/call round trip: %d allocs and %d bytes per op, budget 40 and 3072", a, by)
	} else {
		t.Logf("tools/call round trip: %d allocs, %d bytes per op", a, by)
	}
}
