package server_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestRoundTripBudget holds the in-process tools/call round trip (100-byte
// payload) to its budget: in a legacy session at most 34 allocations and
// 3 KiB, in the stateless era (which carries the _meta envelope both ways)
// at most 60 allocations and 6 KiB. The race detector allocates on its
// own, so the test runs without it.
func TestRoundTripBudget(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation counts are only meaningful without -race")
	}
	for _, c := range []struct {
		v             mcp.Version
		allocs, bytes int64
	}{
		{mcp.LatestLegacy, 34, 3072},
		{mcp.Latest, 60, 6144},
	} {
		res := testing.Benchmark(func(b *testing.B) { benchRoundTrip(b, c.v) })
		if a, by := res.AllocsPerOp(), res.AllocedBytesPerOp(); a > c.allocs || by > c.bytes {
			t.Errorf("tools/call round trip, %s: %d allocs and %d bytes per op, budget %d and %d", c.v, a, by, c.allocs, c.bytes)
		} else {
			t.Logf("tools/call round trip, %s: %d allocs, %d bytes per op", c.v, a, by)
		}
	}
}
