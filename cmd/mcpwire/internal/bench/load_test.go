package bench

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// testServer is a server whose tools record what they are called with.
type testServer struct {
	srv *server.Server

	mu   sync.Mutex
	seqs map[int64]int // {{seq}} values received, and how often
	sess map[int64]bool
	once sync.Once // the first call of "stall" takes 50ms
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	ts := &testServer{
		srv:  server.New(mcp.Implementation{Name: "benchtest", Version: "1.0"}, nil),
		seqs: map[int64]int{},
		sess: map[int64]bool{},
	}
	type args struct {
		Seq     int64  `json:"seq,omitempty"`
		Session int64  `json:"session,omitempty"`
		Check   string `json:"check,omitempty"`
	}
	errs := []error{
		server.AddTool(ts.srv, &mcp.Tool{Name: "record"}, func(ctx context.Context, r *server.Request, in args) (string, error) {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.seqs[in.Seq]++
			ts.sess[in.Session] = true
			if in.Check == "bad" {
				return "", errors.New("bad check")
			}
			return "ok", nil
		}),
		server.AddTool(ts.srv, &mcp.Tool{Name: "fail"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
			return "", errors.New("the disk is full")
		}),
		server.AddTool(ts.srv, &mcp.Tool{Name: "stall"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
			first := false
			ts.once.Do(func() { first = true })
			if first {
				select {
				case <-time.After(50 * time.Millisecond):
				case <-ctx.Done():
				}
			}
			return "ok", nil
		}),
	}
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return ts
}

// bench runs mcpwire bench ARGS against ts in process and returns the exit
// code, stdout and stderr.
func (ts *testServer) bench(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	e.App.Connect = clitest.MemoryTarget(t, ts.srv)
	code := e.Execute(append(append([]string{"bench"}, args...), "--", "benchtest")...)
	return code, e.Stdout.String(), e.Stderr.String()
}

// benchJSON runs mcpwire bench --json ARGS and decodes its report.
func (ts *testServer) benchJSON(t *testing.T, want int, args ...string) *jsonReport {
	t.Helper()
	code, out, errOut := ts.bench(t, append([]string{"--json"}, args...)...)
	if code != want {
		t.Fatalf("mcpwire bench %s: exit %d, want %d; stderr: %s", strings.Join(args, " "), code, want, errOut)
	}
	var r jsonReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	return &r
}

func TestBenchCountsEveryCall(t *testing.T) {
	ts := newTestServer(t)
	r := ts.benchJSON(t, 0, "--tool", "record", "--args", `{"seq":"{{seq}}","session":"{{session}}"}`, "-n", "300", "-c", "4", "--sessions", "3")
	if r.Requests != 300 || r.Errors != 0 || r.RPS <= 0 || r.DurationS <= 0 {
		t.Errorf("requests %d errors %d rps %v duration %v", r.Requests, r.Errors, r.RPS, r.DurationS)
	}
	l := r.LatencyMS
	if !(0 < l.Min && l.Min <= l.P50 && l.P50 <= l.P90 && l.P90 <= l.P99 && l.P99 <= l.Max) {
		t.Errorf("latencies out of order: %+v", l)
	}
	var total uint64
	for _, b := range r.Histogram {
		total += b.Count
	}
	if total != 300 {
		t.Errorf("the histogram counts %d calls, want 300", total)
	}
	if r.Generator == nil || r.Generator.CPUUsPerCall <= 0 {
		t.Errorf("no generator CPU: %+v", r.Generator)
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for i := range int64(300) {
		if ts.seqs[i] != 1 {
			t.Fatalf("{{seq}} %d was sent %d times", i, ts.seqs[i])
		}
	}
	if len(ts.seqs) != 300 || len(ts.sess) != 3 {
		t.Errorf("%d seq values, sessions %v", len(ts.seqs), ts.sess)
	}
}

func TestBenchErrorsByKind(t *testing.T) {
	ts := newTestServer(t)
	r := ts.benchJSON(t, app.ExitFailure, "--tool", "fail", "-n", "20")
	if r.Requests != 20 || r.Errors != 20 || r.ErrorKinds["tool error (isError)"] != 20 || !strings.Contains(r.FirstError, "the disk is full") {
		t.Errorf("requests %d errors %d kinds %v first %q", r.Requests, r.Errors, r.ErrorKinds, r.FirstError)
	}
	// Some calls fail, others not.
	r = ts.benchJSON(t, app.ExitOK, "--tool", "record", "--args", `{"check":"{{choice good|bad}}"}`, "-n", "200", "--seed", "3")
	if r.Errors == 0 || r.Errors == 200 || len(r.ErrorKinds) != 1 {
		t.Errorf("half the arguments invalid: errors %d, kinds %v", r.Errors, r.ErrorKinds)
	}
}

func TestBenchTextReport(t *testing.T) {
	ts := newTestServer(t)
	code, out, errOut := ts.bench(t, "--tool", "fail", "-n", "5")
	if code != app.ExitFailure || !strings.Contains(errOut, "every call failed") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"server     benchtest 1.0, protocol 2026-07-28", "load       tools/call fail, 1 session × 1 concurrent call, closed loop, 5 calls",
		"calls      5 in", "errors     5 (100.00%)", "5  tool error (isError)", "first: the tool reported an error: the disk is full", "latency    min", "histogram", "generator"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// TestBenchRateChargesTheWait checks that with --rate a call's latency runs
// from the time it was due: when the server stalls on the first call for
// 50ms, the calls due meanwhile (one a millisecond) waited, and their
// latencies say so, although the server answers each at once once it is
// free. Measured from when each call was sent they would be microseconds.
func TestBenchRateChargesTheWait(t *testing.T) {
	ts := newTestServer(t)
	r := ts.benchJSON(t, 0, "--tool", "stall", "--rate", "1000", "-n", "100")
	if r.Requests != 100 || r.LatencyMS.Max < 50 {
		t.Fatalf("requests %d, max latency %v ms (want ≥ 50)", r.Requests, r.LatencyMS.Max)
	}
	// Call n (due at n ms, n < 40) could not be sent before the first call
	// returned, at 50 ms or later: its latency is at least 50 - n ≥ 10 ms.
	var slow uint64
	for _, b := range r.Histogram {
		if b.LeMS > 10 {
			slow += b.Count
		}
	}
	if slow < 40 {
		t.Errorf("%d calls over 10ms, want at least 40: %+v", slow, r.Histogram)
	}
}

func TestBenchCompare(t *testing.T) {
	ts := newTestServer(t)
	r := ts.benchJSON(t, 0, "--tool", "record", "--args", `{"seq":"{{seq}}"}`, "-n", "100", "--compare", "other-server --flag", "--rounds", "4")
	if r.Requests != 100 || r.Compare == nil || r.Compare.Requests != 100 {
		t.Fatalf("requests %d, compare %+v", r.Requests, r.Compare)
	}
	ts.mu.Lock()
	n := len(ts.seqs)
	ts.mu.Unlock()
	if n != 200 {
		t.Errorf("{{seq}} went through %d values over both servers, want 200", n)
	}
	code, out, _ := ts.bench(t, "--tool", "record", "-n", "10", "--compare", "other-server", "--rounds", "2")
	if code != 0 || !strings.Contains(out, "2 rounds each, interleaved") || !strings.Contains(out, "B/A") || !strings.Contains(out, "calls/s") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestBenchUsage(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"-n", "1"}, "name the tool to call with --tool NAME", app.ExitUsage},
		{[]string{"--tool", "record", "-c", "0"}, "-c 0: want from 1", app.ExitUsage},
		{[]string{"--tool", "record", "--sessions", "999"}, "--sessions 999", app.ExitUsage},
		{[]string{"--tool", "record", "--rate", "-1"}, "want a positive rate", app.ExitUsage},
		{[]string{"--tool", "record", "--args", `{"a":"{{bogus}}"}`}, "--args: unknown placeholder {{bogus}}", app.ExitUsage},
		{[]string{"--tool", "record", "--rounds", "3"}, "--rounds is for --compare", app.ExitUsage},
		{[]string{"--tool", "record", "--compare", "'unclosed"}, "a single quote is not closed", app.ExitUsage},
		{[]string{"--tool", "nope", "-n", "1"}, `has no tool "nope"; its tools: record, fail, stall`, app.ExitFailure},
	} {
		code, _, errOut := ts.bench(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("bench %s: exit %d, stderr %q; want %d and %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.want)
		}
	}
}

// TestBenchStopsWhenTheServerGoes checks that a session that ends during
// the run stops its workers (the run ends long before -d), is reported,
// and makes the run fail.
func TestBenchStopsWhenTheServerGoes(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "leaving", Version: "1.0"}, nil)
	quit := make(chan struct{})
	var once sync.Once
	calls := 0
	if err := server.AddTool(srv, &mcp.Tool{Name: "work"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		if calls++; calls == 50 {
			once.Do(func() { close(quit) })
		}
		return "ok", nil
	}); err != nil {
		t.Fatal(err)
	}
	e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	e.App.Connect = func(ctx context.Context, _ *app.Target, _ *slog.Logger) (*app.Link, error) {
		ct, st := memory.NewPair(nil)
		ss, err := srv.Connect(context.Background(), st)
		if err != nil {
			return nil, err
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			<-quit
			ss.Close() // the server goes away mid-run
		}()
		t.Cleanup(func() {
			once.Do(func() { close(quit) })
			<-done
			ss.Wait()
		})
		return &app.Link{Transport: ct}, nil
	}
	start := time.Now()
	code := e.Execute("bench", "--json", "--tool", "work", "-d", "30s", "--", "leaving")
	if code != app.ExitFailure || !strings.Contains(e.Stderr.String(), "1 session(s) ended during the run") {
		t.Errorf("exit %d, stderr %q", code, e.Stderr.String())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the run went on for %s after its only session ended", d)
	}
	var r jsonReport
	if err := json.Unmarshal(e.Stdout.Bytes(), &r); err != nil || r.Lost != 1 || r.Requests < 50 {
		t.Errorf("report %+v, %v", r, err)
	}
}
