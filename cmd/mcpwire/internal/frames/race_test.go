//go:build race

package frames

const raceEnabled = true
