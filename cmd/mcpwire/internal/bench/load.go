package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A Caller makes one tool call: a client.Session, in a real run.
type Caller interface {
	CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
	Done() <-chan struct{}
}

// A Plan is one stretch of load on one server: which tool, with what
// arguments, from how many workers, for how long or how many calls, at
// what rate.
type Plan struct {
	Tool string
	Args *Template
	// Sessions are the connections to the server; Concurrency workers
	// call through each.
	Sessions    []Caller
	Concurrency int
	// Count bounds the calls (0: no bound); Duration bounds the time in
	// which calls start. At least one of the two is set.
	Count    int64
	Duration time.Duration
	// Rate, if positive, is the calls per second over all sessions, sent
	// on a fixed schedule (an open loop): a call's latency is measured
	// from the time it was due, not from when it was sent, so that a
	// server that stalls is charged for the calls that waited
	// (coordinated omission). Zero: each worker calls again as soon as
	// its call returns (a closed loop).
	Rate float64
	// CallTimeout bounds each call; 0 for none.
	CallTimeout time.Duration
	// Seed makes the random values of the arguments; each worker derives
	// its own source from it.
	Seed uint64
	// FirstSeq is the {{seq}} of the first call (a compared run goes on
	// counting from round to round).
	FirstSeq int64
	// Progress, if set, counts calls and errors as they end, for the
	// progress bar.
	Progress *Progress
}

// Progress is what a live view reads of a run in progress.
type Progress struct {
	Calls  atomic.Int64
	Errors atomic.Int64
}

// Stats are the results of a run, or of several merged.
type Stats struct {
	Calls   int64 // calls that ended: succeeded or failed
	Errors  int64 // calls that failed, in any way (ErrorKinds)
	Missed  int64 // calls due (Rate) that were never sent: the workers were all busy
	Elapsed time.Duration
	Hist    Histogram // the latencies of every call, failed ones included
	// ErrorKinds counts the failures by kind ("tool error (isError)",
	// "-32602 Invalid params", "timeout", ...); at most maxErrorKinds
	// kinds, the rest under "other".
	ErrorKinds map[string]int64
	// FirstError is the text of the first failure, as an example.
	FirstError string
	// LostSessions counts sessions that ended during the run (the server
	// exited, or the connection broke).
	LostSessions int
}

// maxErrorKinds bounds the kinds of errors a run keeps apart.
const maxErrorKinds = 32

// Merge adds o to s.
func (s *Stats) Merge(o *Stats) {
	s.Calls += o.Calls
	s.Errors += o.Errors
	s.Missed += o.Missed
	s.Elapsed += o.Elapsed
	s.Hist.Merge(&o.Hist)
	for k, n := range o.ErrorKinds {
		s.addError(k, n)
	}
	if s.FirstError == "" {
		s.FirstError = o.FirstError
	}
	s.LostSessions = max(s.LostSessions, o.LostSessions)
}

// addError counts n failures of kind k.
func (s *Stats) addError(k string, n int64) {
	if s.ErrorKinds == nil {
		s.ErrorKinds = map[string]int64{}
	}
	if _, ok := s.ErrorKinds[k]; !ok && len(s.ErrorKinds) >= maxErrorKinds {
		k = "other"
	}
	s.ErrorKinds[k] += n
}

// Kinds returns the error kinds, most frequent first.
func (s *Stats) Kinds() []string {
	ks := make([]string, 0, len(s.ErrorKinds))
	for k := range s.ErrorKinds {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := s.ErrorKinds[ks[i]], s.ErrorKinds[ks[j]]
		if a != b {
			return a > b
		}
		return ks[i] < ks[j]
	})
	return ks
}

// RPS returns the calls per second.
func (s *Stats) RPS() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Calls) / s.Elapsed.Seconds()
}

// Run puts the load of p on the server and returns what it measured. It
// returns when the calls are done (Count), the time is up (Duration: the
// calls under way then are waited for), every session has ended, or ctx
// is done. Every loop of it is bounded by one of those.
func Run(ctx context.Context, p *Plan) *Stats {
	r := &run{plan: p}
	if p.Rate > 0 {
		r.interval = float64(time.Second) / p.Rate
	}
	workers := len(p.Sessions) * max(p.Concurrency, 1)
	r.local = make([]Stats, workers)
	r.start = time.Now()
	if p.Duration > 0 {
		r.deadline = r.start.Add(p.Duration)
	}
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(ctx, i)
		}()
	}
	wg.Wait()
	out := &Stats{Elapsed: time.Since(r.start)}
	for i := range r.local {
		out.Merge(&r.local[i])
	}
	out.Elapsed = time.Since(r.start)
	if p.Rate > 0 {
		due := r.dueBy(out.Elapsed)
		if out.Missed = due - out.Calls; out.Missed < 0 {
			out.Missed = 0
		}
	}
	for _, s := range p.Sessions {
		select {
		case <-s.Done():
			out.LostSessions++
		default:
		}
	}
	return out
}

// run is the shared state of one Run.
type run struct {
	plan     *Plan
	start    time.Time
	deadline time.Time // zero without Duration
	interval float64   // nanoseconds between due times; 0 for a closed loop
	next     atomic.Int64
	local    []Stats // each worker's own
}

// dueBy returns how many calls were due in the first d of the run.
func (r *run) dueBy(d time.Duration) int64 {
	if r.plan.Duration > 0 {
		d = min(d, r.plan.Duration)
	}
	n := int64(float64(d) / r.interval)
	if r.plan.Count > 0 {
		n = min(n, r.plan.Count)
	}
	return n
}

// work is one worker: it takes the next call number, waits for its due
// time (with a rate), calls, and counts, until the plan says stop.
func (r *run) work(ctx context.Context, w int) {
	p := r.plan
	st := &r.local[w]
	sess := p.Sessions[w%len(p.Sessions)]
	c := Call{Session: w % len(p.Sessions), Rand: rand.New(rand.NewPCG(p.Seed, uint64(w)))}
	params := &mcp.CallToolParams{Name: p.Tool}
	var buf []byte
	for ctx.Err() == nil {
		n := r.next.Add(1) - 1
		if p.Count > 0 && n >= p.Count {
			return
		}
		now := time.Now()
		due := now
		if r.interval > 0 {
			due = r.start.Add(time.Duration(float64(n) * r.interval))
			if !r.deadline.IsZero() && !due.Before(r.deadline) {
				return
			}
			if wait := due.Sub(now); wait > 0 {
				if !sleep(ctx, sess.Done(), wait) {
					return
				}
			}
		}
		if !r.deadline.IsZero() && !time.Now().Before(r.deadline) {
			return
		}
		select {
		case <-sess.Done():
			return // the session ended: its workers stop
		default:
		}
		c.Seq = p.FirstSeq + n
		buf = p.Args.Expand(buf[:0], &c)
		params.Arguments = buf
		cctx, cancel := ctx, context.CancelFunc(nil)
		if p.CallTimeout > 0 {
			cctx, cancel = context.WithTimeout(ctx, p.CallTimeout)
		}
		res, err := sess.CallTool(cctx, params)
		if cancel != nil {
			cancel()
		}
		lat := time.Since(due)
		if err != nil && ctx.Err() != nil {
			return // interrupted: the call does not count
		}
		st.Calls++
		st.Hist.Record(lat)
		if p.Progress != nil {
			p.Progress.Calls.Add(1)
		}
		if kind := errorKind(res, err); kind != "" {
			st.Errors++
			st.addError(kind, 1)
			if st.FirstError == "" {
				st.FirstError = errorText(res, err)
			}
			if p.Progress != nil {
				p.Progress.Errors.Add(1)
			}
		}
	}
}

// sleep waits for d, or until ctx or done ends it; it reports whether the
// whole wait passed.
func sleep(ctx context.Context, done <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-done:
	}
	return false
}

// errorKind names the kind of a failed call, or returns "" for a call
// that succeeded.
func errorKind(res *mcp.CallToolResult, err error) string {
	var je *jsonrpc.Error
	var oe *client.OutputSchemaError
	switch {
	case err == nil && res != nil && res.IsError:
		return "tool error (isError)"
	case err == nil:
		return ""
	case errors.As(err, &oe):
		return "structuredContent does not match the outputSchema"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout (--call-timeout)"
	case errors.As(err, &je):
		if name := je.Code.String(); !strings.HasPrefix(name, "error ") {
			return fmt.Sprintf("%d %s", int64(je.Code), name)
		}
		return fmt.Sprintf("error %d", int64(je.Code))
	case errors.Is(err, jsonrpc.ErrClosed) || errors.Is(err, io.EOF):
		return "connection closed"
	}
	return "other: " + clipText(err.Error())
}

// errorText describes a failed call, for the example of the report.
func errorText(res *mcp.CallToolResult, err error) string {
	if err != nil {
		return err.Error()
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return "the tool reported an error: " + t.Text
		}
	}
	return "the tool reported an error"
}
