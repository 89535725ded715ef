// Package bench is `mcpwire bench`: a load generator for any MCP server,
// through mcpwire's own client, that reports the latency distribution,
// the throughput and the errors by kind of calls to one tool, and what the
// generator itself cost.
//
// # How a run goes
//
// The servers are started or reached first (--sessions S sessions each,
// bounded by --timeout), and their tools listed, so that a missing tool is
// a clear error and each session knows the tool's output schema (results
// that break it count as errors). Then Run puts the load on: S × c workers
// (-c calls at once per session) each take the next call number from a
// shared counter, expand the arguments' Template for it, call, and record
// the latency in their own Histogram; the histograms are merged at the
// end, so workers share nothing on the hot path but that counter and the
// progress counts.
//
// Without --rate the loop is closed: a worker calls again as soon as its
// call returns, which measures the most the server (and the generator)
// can do. With --rate R the loop is open: call n is due at n/R seconds
// after the start, whoever sends it, and its latency runs from that due
// time, so that a server that stalls is charged for the calls that waited
// behind the stall (coordinated omission, in Gil Tene's words); a call
// that came due while every worker was busy and could not be sent before
// the end is reported as missed.
//
// Every loop is bounded: by -n calls, by -d time (-n alone by
// DefaultMaxDuration), by --call-timeout per call, by the end of every
// session (a server that exits stops its workers), and by an interrupt.
//
// With --compare the second server gets the same load in turns with the
// first (--rounds turns each: A B, then B A), so that a machine that gets
// busier or quieter during the run affects both alike; the two reports are
// printed side by side.
//
// # What the generator costs
//
// The process's own CPU time (getrusage, on Unix) is read around each
// stretch of load and reported per call: mcpwire's client, the argument
// expansion and the bookkeeping, but not the server, which runs in its own
// process (or on another machine). A generator that costs a small share
// of a core per call cannot be what limits the rate. The arguments are
// compiled once: expanding them into a worker's buffer does not allocate.
//
// # Files
//
//	family.go    the command, its flags and help
//	bench.go     a run: sessions, rounds, the verdict
//	load.go      Run, the workers, the error kinds
//	template.go  --args placeholders
//	hist.go      the latency histogram
//	report.go    the text and JSON reports, side by side
//	progress.go  the progress bar
//	cpu_*.go     the process's CPU time
package bench
