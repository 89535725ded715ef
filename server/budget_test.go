package server_test

import (
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestRoundTripBudget holds the in-process tools/call round trip (100-byte
// payload, client.New + memory.NewPair + Server.Connect) to its budget in
// both eras: at most 40 allocations and 3 KiB. The modern era is what
// client.Connect speaks by default, and carries the _meta envelope both
// ways. The race detector allocates on its own, so the test runs without
// it.
func TestRoundTripBudget(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocation counts are only meaningful without -race")
	}
	for _, c := range []struct {
		v             mcp.Version
		allocs, bytes int64
	}{
		{mcp.LatestLegacy, 40, 3072},
		{mcp.Latest, 40, 3072},
	} {
		res := testing.Benchmark(func(b *testing.B) { benchRoundTrip(b, c.v) })
		if a, by := res.AllocsPerOp(), res.AllocedBytesPerOp(); a > c.allocs || by > c.bytes {
			t.Errorf("tools/call round trip, %s: %d allocs and %d bytes per op, budget %d and %d", c.v, a, by, c.allocs, c.bytes)
		} else {
			t.Logf("tools/call round trip, %s: %d allocs, %d bytes per op", c.v, a, by)
		}
	}
}
