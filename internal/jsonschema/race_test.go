//go:build race

package jsonschema

// The race detector makes sync.Pool drop items at random, so allocation
// counts are not meaningful under it.
func init() { raceEnabled = true }
