//go:build race

package inspect

// raceEnabled: the race detector slows the tests that read megabytes.
const raceEnabled = true
