package main

import (
	"fmt"
	"math"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// A report collects every run's figures and renders docs/benchmarks.md.
type report struct {
	cfg     config
	results map[string]map[string][]metrics // scenario → implementation → one per repetition
	na      map[string]map[string]bool      // scenario → implementations that do not serve its era
	elapsed time.Duration
}

func (r *report) add(key, impl string, m metrics) {
	if r.results[key] == nil {
		r.results[key] = map[string][]metrics{}
	}
	r.results[key][impl] = append(r.results[key][impl], m)
}

// markNA records that impl does not serve the era of scenario key: its
// cells say "n/a".
func (r *report) markNA(key, impl string) {
	if r.na[key] == nil {
		r.na[key] = map[string]bool{}
	}
	r.na[key][impl] = true
}

// cell is spread or ratioCell of xs, or "n/a" where impl does not serve
// the scenario's era.
func (r *report) cell(key, impl string, xs []float64, ratio bool) string {
	if len(xs) == 0 && r.na[key][impl] {
		return "n/a"
	}
	if ratio {
		return ratioCell(xs)
	}
	return spread(xs)
}

// mainMetric is the figure shown in the progress log of a scenario.
func mainMetric(key string) string {
	switch {
	case key == "coldstart":
		return "ms"
	case strings.Contains(key, "-seq-"):
		return "p50 µs"
	case strings.HasPrefix(key, "idle"):
		return "heap+stacks B/session"
	case strings.HasPrefix(key, "inprocess"):
		return "allocs/op"
	}
	return "calls/s"
}

func (r *report) brief(key string, rep int) string {
	var b strings.Builder
	mm := mainMetric(key)
	fmt.Fprintf(&b, "%s:", mm)
	for name, ms := range r.results[key] {
		if rep < len(ms) {
			fmt.Fprintf(&b, " %s=%s", name, num(ms[rep][mm]))
		}
	}
	return b.String()
}

// values are one figure of one implementation over the repetitions.
func (r *report) values(key, impl, metric string) []float64 {
	var xs []float64
	for _, m := range r.results[key][impl] {
		if v, ok := m[metric]; ok && !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	return xs
}

// measured reports whether any implementation has the figure metric in
// scenario key.
func (r *report) measured(key, metric string) bool {
	for impl := range r.results[key] {
		if len(r.values(key, impl, metric)) > 0 {
			return true
		}
	}
	return false
}

// ratios are impl's figure over the floor's, repetition by repetition.
func (r *report) ratios(key, impl, metric string) []float64 {
	a, f := r.results[key][impl], r.results[key]["floor"]
	var xs []float64
	for i := range min(len(a), len(f)) {
		if fv := f[i][metric]; fv != 0 {
			xs = append(xs, a[i][metric]/fv)
		}
	}
	return xs
}

// num formats a figure with three significant digits.
func num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v):
		return "–"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

func spread(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	if len(xs) == 1 {
		return num(xs[0])
	}
	lo, hi := minMax(xs)
	return fmt.Sprintf("%s (%s–%s)", num(median(xs)), num(lo), num(hi))
}

func ratioCell(xs []float64) string {
	if len(xs) == 0 {
		return "–"
	}
	if len(xs) == 1 {
		return num(xs[0]) + "×"
	}
	lo, hi := minMax(xs)
	return fmt.Sprintf("**%s×** (%s–%s)", num(median(xs)), num(lo), num(hi))
}

// A target is one row of the targets table.
type target struct {
	measure, key, metric string
	ratio                bool    // a ratio to the floor, else an absolute figure
	higher               bool    // higher is better
	limit                float64 // the mcpwire target
	peers                string  // what the issue measured for the peers
}

func (r *report) targets() []target {
	idle := "idle-10000"
	if r.results[idle] == nil {
		idle = fmt.Sprintf("idle-%d", r.cfg.sessions[len(r.cfg.sessions)-1])
	}
	return []target{
		{"stdio sequential p50 latency, 100 B", "stdio-seq-100B", "p50 µs", true, false, 2, ""},
		{"stdio pipelined calls/s, 100 B", "stdio-pipe64-100B", "calls/s", true, true, 0.5, ""},
		{"server CPU per call, stdio, 64 KiB", "stdio-pipe64-64KiB", "cpu/call µs", true, false, 2, ""},
		{"HTTP calls/s, 64 sessions, 100 B", "http-64-100B", "calls/s", true, true, 0.75, ""},
		{"HTTP server CPU per call (64 sessions)", "http-64-100B", "cpu/call µs", true, false, 1.5, ""},
		{"memory per idle session, " + strings.TrimPrefix(idle, "idle-") + " sessions (bytes)", idle, "heap+stacks B/session", false, false, 4096, ""},
		{"in-process round trip, 100 B (allocs)", "inprocess", "allocs/op", false, false, 40, ""},
		{"in-process round trip, 100 B (bytes)", "inprocess", "B/op", false, false, 3072, ""},
		{"cold start to first response", "coldstart", "ms", true, false, 1.3, ""},
		// The 2026-07-28 era, which client.Connect speaks by default: the
		// same targets.
		{"2026-07-28: stdio sequential p50 latency, 100 B", "stdio-modern-seq-100B", "p50 µs", true, false, 2, ""},
		{"2026-07-28: stdio pipelined calls/s, 100 B", "stdio-modern-pipe64-100B", "calls/s", true, true, 0.5, ""},
		{"2026-07-28: HTTP calls/s, 64 clients, 100 B", "http-modern-64-100B", "calls/s", true, true, 0.75, ""},
		{"2026-07-28: HTTP server CPU per call (64 clients)", "http-modern-64-100B", "cpu/call µs", true, false, 1.5, ""},
		{"2026-07-28: in-process round trip, 100 B (allocs)", "inprocess-modern", "allocs/op", false, false, 40, ""},
		{"2026-07-28: in-process round trip, 100 B (bytes)", "inprocess-modern", "B/op", false, false, 3072, ""},
	}
}

func (r *report) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	mode := "full"
	if r.cfg.quick {
		mode = "quick (-quick)"
	}
	w("# Benchmarks\n\n")
	w("Generated by `bash bench/run` (which is `cd bench && go run ./cmd/mcpbench`) on %s, %s run:\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), mode)
	w("%d repetitions, %v measured per run after %v of warm-up, %v in all. %s, %s, %d CPUs.\n\n",
		r.cfg.reps, r.cfg.lim.dur, r.cfg.lim.warm, r.elapsed.Round(time.Second), runtime.Version(), cpuModel(), runtime.NumCPU())
	if rev := gitRev(); rev != "" {
		w("Working tree at commit %s.\n\n", rev)
	}
	w("**Read the ratios, not the absolute times.** The machine has 2 shared, noisy cores, and the load\n")
	w("generator runs on them too. Within a repetition every implementation runs one after the other, in an\n")
	w("order that rotates from one repetition to the next; each ratio is an implementation's figure over the\n")
	w("floor's of the same repetition. Cells show the median over the repetitions and (min–max).\n\n")
	w("The **floor** is a bare JSON-RPC loop on `encoding/json` doing the least work an MCP echo server can do\n")
	w("(bench/internal/floor). The servers (bench/servers) all follow one contract: one `echo` tool with input\n")
	w("schema `{\"text\": string}` (required) returning one text block. Before measuring, every server's\n")
	w("answers over stdio and HTTP (legacy session and 2026-07-28) are compared with the floor's, and during the\n")
	w("runs every answer is checked (its id and length, and one in 256 parsed and compared in full); a\n")
	w("difference fails the run.\n\n")

	w("## Targets\n\n")
	w("| measure |%s mcpwire target | met |\n|---|%s---|---|\n", headers(impls), strings.Repeat("---|", len(impls)))
	missed := 0
	for _, t := range r.targets() {
		if r.results[t.key] == nil {
			continue // not run (-only)
		}
		fl := spread(r.values(t.key, "floor", t.metric))
		var cells []string
		met := "–"
		for _, im := range others() {
			if t.ratio {
				cells = append(cells, r.cell(t.key, im, r.ratios(t.key, im, t.metric), true))
			} else {
				cells = append(cells, r.cell(t.key, im, r.values(t.key, im, t.metric), false))
			}
		}
		var got []float64
		if t.ratio {
			got = r.ratios(t.key, "mcpwire", t.metric)
		} else {
			got = r.values(t.key, "mcpwire", t.metric)
		}
		limit := fmt.Sprintf("≤ %s", num(t.limit))
		if t.higher {
			limit = fmt.Sprintf("≥ %s", num(t.limit))
		}
		if t.ratio {
			limit += "× floor"
		}
		if len(got) > 0 {
			m := median(got)
			if (t.higher && m >= t.limit) || (!t.higher && m <= t.limit) {
				met = "yes"
			} else {
				met = "**no**"
				missed++
			}
		}
		w("| %s | %s | %s | %s | %s |\n", t.measure, fl, strings.Join(cells, " | "), limit, met)
	}
	w("\nRatio rows show the floor's absolute figure (µs, calls/s or ms) and the others' ratios to it; the\n")
	w("memory and in-process rows are absolute. Rows without an era are the 2025-11-25 legacy session (the\n")
	w("peers pinned to it in process); the 2026-07-28 rows are what a client speaking that era (client.Connect's\n")
	w("default) gets, every request carrying the `_meta` envelope. *n/a*: the implementation does not serve\n")
	w("that era there. ")
	if missed > 0 {
		w("What the profiles say about the rows mcpwire misses,\nand why, is in [docs/design.md](design.md#performance-notes).\n\n")
	} else {
		w("What the profiles taught, and what the code does\nabout it, is in [docs/design.md](design.md#performance-notes).\n\n")
	}

	w("## Details\n\n")
	sections := []struct {
		title, note string
		keys        []string
		metrics     []string
	}{
		{"stdio, one call at a time", "One session, one tools/call in flight; latency is measured by the client, CPU from /proc/PID/stat of the server.",
			[]string{"stdio-seq-100B", "stdio-seq-64KiB"}, []string{"p50 µs", "p90 µs", "p99 µs", "calls/s", "cpu/call µs"}},
		{"stdio, pipelined", "One session, 64 calls in flight.",
			[]string{"stdio-pipe64-100B", "stdio-pipe64-64KiB"}, []string{"calls/s", "cpu/call µs", "peak RSS MB"}},
		{"stdio, 2026-07-28", "One session opened with server/discover (no initialize), every request carrying the 2026-07-28 `_meta` envelope; one call at a time (seq), then 64 in flight (pipe64); 100 B payload.",
			[]string{"stdio-modern-seq-100B", "stdio-modern-pipe64-100B"}, []string{"p50 µs", "p99 µs", "calls/s", "cpu/call µs"}},
		{"Streamable HTTP, legacy sessions", "N clients, each with its own connection and session (initialize, notifications/initialized), one call at a time each; 100 B payload.",
			[]string{"http-1-100B", "http-16-100B", "http-64-100B"}, []string{"calls/s", "p50 µs", "p99 µs", "cpu/call µs", "peak RSS MB"}},
		{"Streamable HTTP, 2026-07-28 (stateless)", "N clients without sessions, each on its own connection, one call at a time each (after one server/discover, as client.Connect does); every request carries the 2026-07-28 `_meta` envelope and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers. The official Go SDK serves this era only in its stateless mode (`-stateless`); mcpwire, mcp-go and the floor serve both eras on one endpoint.",
			[]string{"http-modern-1-100B", "http-modern-64-100B"}, []string{"calls/s", "p50 µs", "p99 µs", "cpu/call µs"}},
		{"Memory per idle session", "N legacy sessions opened over 8 connections (initialize, then notifications/initialized) and left idle, the connections closed. *heap+stacks* is the growth of the live Go heap plus goroutine stacks after two forced collections (GET /debug/mem, the same code in every server): what the library keeps per session, the fair figure. *RSS* is the growth of VmRSS, which also counts the collector's headroom and memory not yet returned to the OS.",
			[]string{"idle-2000", "idle-10000"}, []string{"heap+stacks B/session", "RSS B/session", "goroutines/session"}},
		{"Cold start", "From starting the binary to the response to initialize over stdio.",
			[]string{"coldstart"}, []string{"ms"}},
	}
	for _, s := range sections {
		w("### %s\n\n%s\n\n", s.title, s.note)
		w("| run | figure |%s\n|---|---|%s\n", headers(impls), strings.Repeat("---|", len(impls)))
		for _, k := range s.keys {
			if r.results[k] == nil {
				continue
			}
			for _, m := range s.metrics {
				if !r.measured(k, m) {
					continue // a figure this run does not give (latency of a pipelined run)
				}
				w("| %s | %s | %s", k, m, spread(r.values(k, "floor", m)))
				for _, im := range others() {
					w(" | %s", r.cell(k, im, r.values(k, im, m), false))
					if rs := r.ratios(k, im, m); len(rs) > 0 && !strings.HasPrefix(k, "idle") {
						w(" · %s×", num(median(rs)))
					}
				}
				w(" |\n")
			}
		}
		w("\n")
	}
	w("### In-process round trip\n\n`go test -bench` in bench/inprocess: a client and a server in one process, each library's own in-memory\n")
	w("path (mcpwire: transport/memory; official Go SDK: NewInMemoryTransports; mcp-go: its in-process client;\n")
	w("floor: encoding/json on both sides of a function call); one tools/call with a 100-byte text, in each era\n")
	w("(every client pinned to it: 2025-11-25 after initialize, 2026-07-28 after server/discover).\n\n")
	w("| era | implementation | ns/op | B/op | allocs/op |\n|---|---|---|---|---|\n")
	for _, era := range []struct{ key, title string }{{"inprocess", "2025-11-25"}, {"inprocess-modern", "2026-07-28"}} {
		for _, im := range append([]string{"floor"}, others()...) {
			if r.results[era.key][im] == nil && !r.na[era.key][im] {
				continue
			}
			w("| %s | %s | %s | %s | %s |\n", era.title, im, r.cell(era.key, im, r.values(era.key, im, "ns/op"), false),
				r.cell(era.key, im, r.values(era.key, im, "B/op"), false), r.cell(era.key, im, r.values(era.key, im, "allocs/op"), false))
		}
	}
	w("\n### Binary size\n\n|%s\n|%s\n|", headers(impls), strings.Repeat("---|", len(impls)))
	for _, im := range impls {
		w(" %.1f MB |", float64(im.size)/1e6)
	}
	w("\n\n(`go build` with default flags; the floor links net/http and encoding/json like the others.)\n\n")
	w("## Reproduce\n\n```\nbash bench/run            # full run, about 8 minutes; writes docs/benchmarks.md\nbash bench/run -quick     # about 2 minutes\n```\n\n")
	w("Each run also keeps its raw figures in docs/benchmarks-raw/ (not committed). The servers take\n")
	w("`-cpuprofile FILE` for profiling under the same load.\n")
	return b.String()
}

func cpuModel() string {
	out, err := exec.Command("sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").Output()
	if err != nil {
		return "unknown CPU"
	}
	return strings.TrimSpace(string(out))
}

func gitRev() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if out, _ := exec.Command("git", "status", "--porcelain", "--", "..").Output(); len(out) > 0 {
		rev += " with uncommitted changes"
	}
	return rev
}

// headers are the column titles of the implementations, each followed by
// " |".
func headers(ims []*impl) string {
	var b strings.Builder
	for _, im := range ims {
		b.WriteString(" " + im.title + " |")
	}
	return b.String()
}

// others are the names of the implementations other than the floor.
func others() []string {
	var names []string
	for _, im := range impls[1:] {
		names = append(names, im.name)
	}
	return names
}
