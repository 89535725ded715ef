package main

import "fmt"

// loadSessions is the number of sessions of the sustained-load rows.
const loadSessions = 200

// sustainedScenarios are the rows of memory under sustained load:
// loadSessions clients over Streamable HTTP, each with its own connection
// (and, in the legacy era, its own session), each calling tools/call echo
// in a closed loop with one call in flight, for a longer window than the
// throughput rows (the resident set grows with time under load). They
// report the server's peak resident set (VmHWM) and calls/s, and, at the
// end of the window with every session still open, its live heap,
// goroutine stacks and goroutines.
func sustainedScenarios(lim limits, small, modern *callTemplate, w answers, noHTTP func(*impl) bool) []scenario {
	lim.dur = 4 * lim.dur
	lim.warm = lim.dur / 4
	return []scenario{
		{key: fmt.Sprintf("load-%d-100B", loadSessions), run: func(im *impl) (metrics, error) {
			return httpLoadMem(im.bin, nil, small, w.small, loadSessions, lim, true)
		}},
		{key: fmt.Sprintf("load-modern-%d-100B", loadSessions), skip: noHTTP, run: func(im *impl) (metrics, error) {
			return httpLoadMem(im.bin, im.stateless, modern, w.modernHTTP, loadSessions, lim, true)
		}},
	}
}
