package bench

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// A Result is what mcpwire bench reports of one server: the load, what
// it measured, and what the generator itself cost.
type Result struct {
	Server    string // the server's name and version, as it says
	Protocol  string // the revision the sessions speak
	Transport string // "stdio: COMMAND", "http: URL"
	Stats     Stats
	// GeneratorCPU is the CPU time mcpwire used while it loaded this
	// server (its own process: not the server's); -1 when unknown.
	GeneratorCPU time.Duration
}

// The JSON of mcpwire bench --json: one object, whose members name their
// units. With --compare the second server's report is the member
// "compare".
type jsonReport struct {
	Tool        string           `json:"tool"`
	Server      string           `json:"server"`
	Protocol    string           `json:"protocol"`
	Transport   string           `json:"transport"`
	Sessions    int              `json:"sessions"`
	Concurrency int              `json:"concurrency"`
	Rate        float64          `json:"rate,omitempty"`
	Requests    int64            `json:"requests"`
	Errors      int64            `json:"errors"`
	ErrorKinds  map[string]int64 `json:"errors_by_kind"`
	FirstError  string           `json:"first_error,omitempty"`
	Missed      int64            `json:"missed,omitempty"`
	Lost        int              `json:"lost_sessions,omitempty"`
	DurationS   float64          `json:"duration_s"`
	RPS         float64          `json:"rps"`
	LatencyMS   jsonLatency      `json:"latency_ms"`
	Histogram   []jsonBucket     `json:"histogram"`
	Generator   *jsonGenerator   `json:"generator,omitempty"`
	Compare     *jsonReport      `json:"compare,omitempty"`
}

type jsonLatency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// jsonBucket is one row of the histogram: the calls whose latency is at
// most LeMS and more than the row before's.
type jsonBucket struct {
	LeMS  float64 `json:"le_ms"`
	Count uint64  `json:"count"`
}

type jsonGenerator struct {
	CPUS          float64 `json:"cpu_s"`
	CPUUsPerCall  float64 `json:"cpu_us_per_call"`
	CoresUsed     float64 `json:"cores"`
	CallsPerCPU_S float64 `json:"calls_per_cpu_s"`
}

// ms returns d in milliseconds, to the microsecond... and a bit.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/1e3) / 1e3
}

// toJSON returns the JSON report of r.
func (r *Result) toJSON(o *options) *jsonReport {
	s := &r.Stats
	j := &jsonReport{
		Tool:        o.tool,
		Server:      r.Server,
		Protocol:    r.Protocol,
		Transport:   r.Transport,
		Sessions:    o.sessions,
		Concurrency: o.concurrency,
		Rate:        o.rate,
		Requests:    s.Calls,
		Errors:      s.Errors,
		ErrorKinds:  s.ErrorKinds,
		FirstError:  s.FirstError,
		Missed:      s.Missed,
		Lost:        s.LostSessions,
		DurationS:   math.Round(s.Elapsed.Seconds()*1e3) / 1e3,
		RPS:         math.Round(s.RPS()*10) / 10,
		LatencyMS: jsonLatency{
			Min: ms(s.Hist.Min()), Mean: ms(s.Hist.Mean()),
			P50: ms(s.Hist.Quantile(0.5)), P90: ms(s.Hist.Quantile(0.9)),
			P99: ms(s.Hist.Quantile(0.99)), P999: ms(s.Hist.Quantile(0.999)),
			Max: ms(s.Hist.Max()),
		},
		Histogram: []jsonBucket{},
	}
	if j.ErrorKinds == nil {
		j.ErrorKinds = map[string]int64{}
	}
	for _, row := range histogramRows(&s.Hist) {
		j.Histogram = append(j.Histogram, jsonBucket{LeMS: ms(row.le), Count: row.count})
	}
	if g := r.generator(); g != nil {
		j.Generator = g
	}
	return j
}

// generator returns what the generator cost, or nil when unknown.
func (r *Result) generator() *jsonGenerator {
	s := &r.Stats
	if r.GeneratorCPU < 0 || s.Calls == 0 || s.Elapsed <= 0 {
		return nil
	}
	cpu := r.GeneratorCPU.Seconds()
	g := &jsonGenerator{
		CPUS:         math.Round(cpu*1e3) / 1e3,
		CPUUsPerCall: math.Round(cpu/float64(s.Calls)*1e7) / 10,
		CoresUsed:    math.Round(cpu/s.Elapsed.Seconds()*100) / 100,
	}
	if cpu > 0 {
		g.CallsPerCPU_S = math.Round(float64(s.Calls) / cpu)
	}
	return g
}

// A histRow is one row of the histogram of a report.
type histRow struct {
	le    time.Duration // the row's bound
	count uint64        // the latencies in (previous bound, le]
}

// maxHistRows bounds the rows of the histogram of a report;
// histBarWidth is the width of its bars.
const (
	maxHistRows  = 14
	histBarWidth = 40
)

// histogramRows returns the histogram of h for people: rows bounded by
// the steps 1, 2, 5, 10, 20, 50... (of microseconds) from the minimum to
// the maximum, or, when that would make too many rows, by powers of ten.
func histogramRows(h *Histogram) []histRow {
	if h.Count() == 0 {
		return nil
	}
	for _, steps := range [][]int64{{1, 2, 5}, {1}} {
		var bounds []time.Duration
		for dec := int64(1); ; dec *= 10 {
			done := false
			for _, s := range steps {
				b := time.Duration(s * dec * int64(time.Microsecond))
				if b >= h.Min() || len(bounds) > 0 {
					bounds = append(bounds, b)
				}
				if b >= h.Max() {
					done = true
					break
				}
			}
			if done || dec > 1e12 {
				break
			}
		}
		if len(bounds) > maxHistRows && steps[0] == 1 && len(steps) > 1 {
			continue
		}
		rows := make([]histRow, 0, len(bounds))
		var below uint64
		for _, b := range bounds {
			n := h.CountAtMost(b)
			rows = append(rows, histRow{le: b, count: n - below})
			below = n
		}
		if below < h.Count() { // rounding at the top bucket
			rows[len(rows)-1].count += h.Count() - below
		}
		return rows
	}
	return nil
}

// writeText writes the report of r for people.
func (r *Result) writeText(w io.Writer, o *options) {
	s := &r.Stats
	fmt.Fprintf(w, "server     %s, protocol %s\n", r.Server, r.Protocol)
	fmt.Fprintf(w, "           %s\n", r.Transport)
	fmt.Fprintf(w, "load       %s\n", o.describeLoad())
	fmt.Fprintf(w, "calls      %s in %.2fs: %s calls/s\n", thousands(s.Calls), s.Elapsed.Seconds(), formatRate(s.RPS()))
	if s.Missed > 0 {
		fmt.Fprintf(w, "missed     %s calls due at --rate %s were never sent: all %d workers were busy (raise -c or --sessions)\n",
			thousands(s.Missed), formatRate(o.rate), o.sessions*o.concurrency)
	}
	if s.LostSessions > 0 {
		fmt.Fprintf(w, "lost       %d of %d sessions ended during the run\n", s.LostSessions, o.sessions)
	}
	if s.Errors == 0 {
		fmt.Fprintf(w, "errors     0\n")
	} else {
		fmt.Fprintf(w, "errors     %s (%.2f%%)\n", thousands(s.Errors), 100*float64(s.Errors)/float64(max(s.Calls, 1)))
		var t app.Table
		for _, k := range s.Kinds() {
			t.Add(thousands(s.ErrorKinds[k]), k)
		}
		t.Write(w, "           ")
		fmt.Fprintf(w, "           first: %s\n", app.OneLine(clipLine(s.FirstError, 200)))
	}
	if s.Hist.Count() == 0 {
		return
	}
	h := &s.Hist
	fmt.Fprintf(w, "latency    min %s  p50 %s  p90 %s  p99 %s  max %s  mean %s\n",
		formatMS(h.Min()), formatMS(h.Quantile(0.5)), formatMS(h.Quantile(0.9)), formatMS(h.Quantile(0.99)), formatMS(h.Max()), formatMS(h.Mean()))
	if o.rate > 0 {
		fmt.Fprintf(w, "           (from the time each call was due at --rate, waiting included)\n")
	}
	rows := histogramRows(h)
	var most uint64
	for _, row := range rows {
		most = max(most, row.count)
	}
	fmt.Fprintf(w, "histogram\n")
	labelWidth, countWidth := 0, 0
	for _, row := range rows {
		labelWidth = max(labelWidth, len(formatMS(row.le)))
		countWidth = max(countWidth, len(thousands(int64(row.count))))
	}
	for _, row := range rows {
		n := int(math.Ceil(float64(row.count) / float64(max(most, 1)) * histBarWidth))
		fmt.Fprintf(w, "  ≤ %-*s  %s%s  %5.1f%%  %*s\n", labelWidth, formatMS(row.le),
			strings.Repeat("█", n), strings.Repeat(" ", histBarWidth-n),
			100*float64(row.count)/float64(h.Count()), countWidth, thousands(int64(row.count)))
	}
	if g := r.generator(); g != nil {
		fmt.Fprintf(w, "generator  %.1f µs of CPU per call, %.2f cores (mcpwire's own process, not the server's)\n", g.CPUUsPerCall, g.CoresUsed)
	}
}

// writeCompare writes two results side by side, with the ratio of the
// second to the first.
func writeCompare(w io.Writer, o *options, a, b *Result) {
	fmt.Fprintf(w, "load       %s, %d rounds each, interleaved\n", o.describeLoad(), o.rounds)
	fmt.Fprintf(w, "A          %s, protocol %s; %s\n", a.Server, a.Protocol, a.Transport)
	fmt.Fprintf(w, "B          %s, protocol %s; %s\n", b.Server, b.Protocol, b.Transport)
	t := app.Table{Header: []string{"", "A", "B", "B/A"}}
	ratio := func(x, y float64) string {
		if x == 0 {
			return ""
		}
		return fmt.Sprintf("%.2f×", y/x)
	}
	sa, sb := &a.Stats, &b.Stats
	t.Add("calls", thousands(sa.Calls), thousands(sb.Calls), "")
	t.Add("calls/s", formatRate(sa.RPS()), formatRate(sb.RPS()), ratio(sa.RPS(), sb.RPS()))
	t.Add("errors", thousands(sa.Errors), thousands(sb.Errors), "")
	for _, q := range []struct {
		name string
		f    func(h *Histogram) time.Duration
	}{
		{"min", (*Histogram).Min},
		{"p50", func(h *Histogram) time.Duration { return h.Quantile(0.5) }},
		{"p90", func(h *Histogram) time.Duration { return h.Quantile(0.9) }},
		{"p99", func(h *Histogram) time.Duration { return h.Quantile(0.99) }},
		{"max", (*Histogram).Max},
		{"mean", (*Histogram).Mean},
	} {
		x, y := q.f(&sa.Hist), q.f(&sb.Hist)
		t.Add(q.name, formatMS(x), formatMS(y), ratio(float64(x), float64(y)))
	}
	ga, gb := a.generator(), b.generator()
	if ga != nil && gb != nil {
		t.Add("generator µs/call", fmt.Sprintf("%.1f", ga.CPUUsPerCall), fmt.Sprintf("%.1f", gb.CPUUsPerCall), "")
	}
	t.Write(w, "")
	for _, r := range []struct {
		name string
		s    *Stats
	}{{"A", sa}, {"B", sb}} {
		if r.s.Errors > 0 {
			fmt.Fprintf(w, "%s errors: ", r.name)
			for i, k := range r.s.Kinds() {
				if i > 0 {
					fmt.Fprint(w, ", ")
				}
				fmt.Fprintf(w, "%s %s", thousands(r.s.ErrorKinds[k]), k)
			}
			fmt.Fprintf(w, "; first: %s\n", app.OneLine(clipLine(r.s.FirstError, 200)))
		}
	}
}

// formatMS writes a latency in milliseconds with three significant
// digits or so.
func formatMS(d time.Duration) string {
	m := float64(d) / 1e6
	switch {
	case m < 1:
		return strconv.FormatFloat(m, 'f', 3, 64) + " ms"
	case m < 10:
		return strconv.FormatFloat(m, 'f', 2, 64) + " ms"
	case m < 100:
		return strconv.FormatFloat(m, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(m, 'f', 0, 64) + " ms"
}

// formatRate writes a rate with one decimal, thousands separated.
func formatRate(r float64) string {
	tenths := int64(math.Round(r * 10))
	return thousands(tenths/10) + "." + strconv.FormatInt(tenths%10, 10)
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// clipLine cuts s to n bytes at most.
func clipLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
