// Command mcpbench measures MCP server implementations side by side and
// writes docs/benchmarks.md.
//
// It builds one minimal server per implementation (bench/servers: the
// floor, a bare JSON-RPC loop on encoding/json; mcpwire; the official Go
// SDK; mcp-go), checks that each answers exactly what the floor answers,
// and drives them all with raw JSON-RPC over stdio and Streamable HTTP on
// the loopback interface. Every measurement is repeated; within a
// repetition the implementations run one after the other in an order
// that rotates from one repetition to the next, so that the drift of a
// shared machine hits all alike. Each figure is the median over the
// repetitions with its min–max, and each ratio is taken against the
// floor's figure of the same repetition.
//
// Usage, from the bench directory (or `bash bench/run` from the
// repository root):
//
//	go run ./cmd/mcpbench [-quick] [-reps N] [-dur D] [-o ../docs/benchmarks.md]
//
// Every load loop is bounded in time and in count, and every server is
// stopped before the next starts.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// metrics are the figures of one run, by name.
type metrics map[string]float64

// limits bound one run.
type limits struct {
	warm, dur   time.Duration // warm-up, then the measured window
	maxCalls    int           // calls in the window, at most
	idleTimeout time.Duration // opening the idle sessions, at most
}

// An impl is one implementation under test.
type impl struct {
	name, title string
	bin         string
	size        int64
	prebuilt    bool     // given with -with: not built here
	stateless   []string // the flags that make its HTTP server serve 2026-07-28 requests

	// Whether it serves the 2026-07-28 era over stdio and over HTTP (with
	// the stateless flags), as checkAll found: where it does not, its
	// figures for that era are "n/a".
	modernStdio, modernHTTP bool
}

var impls = []*impl{
	{name: "floor", title: "floor"},
	{name: "mcpwire", title: "mcpwire"},
	{name: "gosdk", title: "official Go SDK", stateless: []string{"-stateless"}},
	{name: "mcpgo", title: "mcp-go"},
}

// config is the command line.
type config struct {
	out, raw  string
	quick     bool
	reps      int
	lim       limits
	sessions  []int
	benchtime string
	only      string
	check     bool
}

func main() {
	var cfg config
	flag.StringVar(&cfg.out, "o", "../docs/benchmarks.md", "write the report to `FILE` (- for stdout)")
	flag.StringVar(&cfg.raw, "raw", "../docs/benchmarks-raw", "write every run's figures as JSON into `DIR` (empty: none)")
	flag.BoolVar(&cfg.check, "check", false, "only build the servers and check their answers against the floor's (no measurement, no report)")
	flag.BoolVar(&cfg.quick, "quick", false, "a short run (about 4 minutes): fewer repetitions, shorter windows, 2,000 idle sessions only")
	flag.IntVar(&cfg.reps, "reps", 0, "repetitions (default 5, 2 with -quick)")
	flag.DurationVar(&cfg.lim.dur, "dur", 0, "measured window of one run (default 1.5s, 400ms with -quick)")
	flag.StringVar(&profileDir, "profile", "", "servers write CPU profiles into `DIR`, one per run (SCENARIO-IMPL-N.prof)")
	flag.StringVar(&cfg.only, "only", "", "run only the scenarios whose key contains `TEXT` (comma-separated)")
	flag.Func("with", "also measure a prebuilt server `NAME=BINARY` (following the contract), e.g. a baseline build", func(v string) error {
		name, bin, ok := strings.Cut(v, "=")
		if !ok || name == "" || bin == "" {
			return fmt.Errorf("want NAME=BINARY")
		}
		abs, err := filepath.Abs(bin)
		if err != nil {
			return err
		}
		impls = append(impls, &impl{name: name, title: name, bin: abs, prebuilt: true})
		return nil
	})
	flag.Parse()
	if cfg.reps == 0 {
		cfg.reps = 5
		if cfg.quick {
			cfg.reps = 2
		}
	}
	if cfg.lim.dur == 0 {
		cfg.lim.dur = 1500 * time.Millisecond
		if cfg.quick {
			cfg.lim.dur = 400 * time.Millisecond
		}
	}
	cfg.lim.warm = cfg.lim.dur / 4
	cfg.lim.maxCalls = 2_000_000
	cfg.lim.idleTimeout = 3 * time.Minute
	cfg.sessions = []int{2_000, 10_000}
	cfg.benchtime = "1s"
	if cfg.quick {
		cfg.sessions = []int{2_000}
		cfg.benchtime = "300ms"
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func run(cfg config) error {
	start := time.Now()
	tmp, err := os.MkdirTemp("", "mcpbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, im := range impls {
		if im.prebuilt {
			fi, err := os.Stat(im.bin)
			if err != nil {
				return err
			}
			im.size = fi.Size()
			continue
		}
		im.bin = filepath.Join(tmp, im.name)
		logf("building %s", im.name)
		cmd := exec.Command("go", "build", "-o", im.bin, "./servers/"+im.name)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %v", im.name, err)
		}
		fi, err := os.Stat(im.bin)
		if err != nil {
			return err
		}
		im.size = fi.Size()
	}
	logf("checking every server's answers against the floor's")
	wants, err := checkAll()
	if err != nil {
		return fmt.Errorf("answers: %v", err)
	}
	if cfg.check {
		logf("every server answers what the floor answers (stdio and HTTP, legacy session and 2026-07-28)")
		return nil
	}
	r := &report{cfg: cfg, results: map[string]map[string][]metrics{}, na: map[string]map[string]bool{}}
	scenarios := buildScenarios(cfg, wants)
	for rep := range cfg.reps {
		for _, sc := range scenarios {
			if !selected(cfg.only, sc.key) {
				continue
			}
			for i := range impls {
				im := impls[(i+rep)%len(impls)]
				if sc.skip != nil && sc.skip(im) {
					r.markNA(sc.key, im.name)
					continue
				}
				currentRun = sc.key + "-" + im.name
				m, err := sc.run(im)
				if err != nil && !errors.As(err, new(wrongAnswer)) {
					// One run that fails (a peer's server that exits, say) is
					// run again once, and the report says so; a second
					// failure, or a wrong answer, ends the benchmark.
					what := fmt.Sprintf("%s, %s (repetition %d): %v", sc.key, im.name, rep+1, err)
					logf("run failed, running it again: %s", what)
					if m, err = sc.run(im); err != nil {
						return fmt.Errorf("%s; and again: %v", what, err)
					}
					r.retried = append(r.retried, what)
				}
				if err != nil {
					return fmt.Errorf("%s, %s (repetition %d): %v", sc.key, im.name, rep+1, err)
				}
				r.add(sc.key, im.name, m)
			}
			logf("rep %d/%d %s: %s", rep+1, cfg.reps, sc.key, r.brief(sc.key, rep))
		}
	}
	if inProcessSelected(cfg.only) {
		logf("in-process round trips and HTTP clients (go test -bench)")
		if err := inProcess(cfg, r); err != nil {
			return fmt.Errorf("in-process benchmarks: %v", err)
		}
	}
	r.elapsed = time.Since(start)
	if cfg.raw != "" {
		if err := os.MkdirAll(cfg.raw, 0o755); err == nil {
			b, _ := json.MarshalIndent(r.results, "", "  ")
			os.WriteFile(filepath.Join(cfg.raw, start.Format("20060102-150405")+".json"), b, 0o644)
		}
	}
	text := r.markdown()
	if cfg.out == "-" {
		fmt.Print(text)
		return nil
	}
	logf("writing %s (%v in all)", cfg.out, r.elapsed.Round(time.Second))
	return os.WriteFile(cfg.out, []byte(text), 0o644)
}

func selected(only, key string) bool {
	if only == "" {
		return true
	}
	for _, s := range strings.Split(only, ",") {
		if s != "" && strings.Contains(key, s) {
			return true
		}
	}
	return false
}

// A scenario is one measurement run for each implementation.
type scenario struct {
	key  string
	run  func(im *impl) (metrics, error)
	skip func(im *impl) bool
}

// answers are the floor's results, which every server must give: legacy
// tools/call results (100 B and 64 KiB, the same over stdio and HTTP) and
// the 2026-07-28 ones (100 B) over stdio and HTTP, nil where the server
// does not serve that era.
type answers struct {
	small, big              json.RawMessage
	modernStdio, modernHTTP json.RawMessage
}

const (
	smallPayload = 100
	bigPayload   = 64 << 10
)

func buildScenarios(cfg config, w answers) []scenario {
	small, big := newCallTemplate(smallPayload, false), newCallTemplate(bigPayload, false)
	modern := newCallTemplate(smallPayload, true)
	lim := cfg.lim
	var sc []scenario
	sc = append(sc, scenario{key: "coldstart", run: func(im *impl) (metrics, error) { return coldStarts(im.bin, 7) }})
	for _, p := range []struct {
		name string
		t    *callTemplate
		want json.RawMessage
	}{{"100B", small, w.small}, {"64KiB", big, w.big}} {
		sc = append(sc,
			scenario{key: "stdio-seq-" + p.name, run: func(im *impl) (metrics, error) { return stdioSequential(im.bin, p.t, p.want, lim) }},
			scenario{key: "stdio-pipe64-" + p.name, run: func(im *impl) (metrics, error) { return stdioPipelined(im.bin, p.t, p.want, 64, lim) }},
		)
	}
	// The 2026-07-28 era, as a client.Connect speaks it by default.
	noStdio := func(im *impl) bool { return !im.modernStdio }
	noHTTP := func(im *impl) bool { return !im.modernHTTP }
	sc = append(sc,
		scenario{key: "stdio-modern-seq-100B", skip: noStdio, run: func(im *impl) (metrics, error) { return stdioSequential(im.bin, modern, w.modernStdio, lim) }},
		scenario{key: "stdio-modern-pipe64-100B", skip: noStdio, run: func(im *impl) (metrics, error) {
			return stdioPipelined(im.bin, modern, w.modernStdio, 64, lim)
		}},
	)
	for _, c := range []int{1, 16, 64} {
		sc = append(sc, scenario{key: fmt.Sprintf("http-%d-100B", c), run: func(im *impl) (metrics, error) { return httpLoad(im.bin, nil, small, w.small, c, lim) }})
	}
	for _, c := range []int{1, 64} {
		sc = append(sc, scenario{key: fmt.Sprintf("http-modern-%d-100B", c), skip: noHTTP, run: func(im *impl) (metrics, error) {
			return httpLoad(im.bin, im.stateless, modern, w.modernHTTP, c, lim)
		}})
	}
	sc = append(sc, sustainedScenarios(lim, small, modern, w, noHTTP)...)
	for _, n := range cfg.sessions {
		sc = append(sc, scenario{key: fmt.Sprintf("idle-%d", n), run: func(im *impl) (metrics, error) { return idleSessions(im.bin, n, lim) }})
	}
	return sc
}

// coldStarts is the median of several cold starts in a row.
func coldStarts(bin string, n int) (metrics, error) {
	var ms []float64
	for range n {
		m, err := coldStart(bin)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m["ms"])
	}
	return metrics{"ms": median(ms)}, nil
}

// coldStart is the time from starting a server to its first response (to
// initialize, over stdio).
func coldStart(bin string) (metrics, error) {
	t0 := time.Now()
	c, err := openStdioNoInit(bin)
	if err != nil {
		return nil, err
	}
	defer c.p.kill()
	if err := c.send(initializeRequest(0)); err != nil {
		return nil, err
	}
	line, err := c.readResponse()
	d := time.Since(t0)
	if err != nil {
		return nil, err
	}
	if _, err := parseResponse(line); err != nil {
		return nil, err
	}
	if err := c.p.stop(); err != nil {
		return nil, err
	}
	return metrics{"ms": float64(d.Microseconds()) / 1e3}, nil
}

func openStdioNoInit(bin string) (*stdioClient, error) {
	p, err := startStdio(bin)
	if err != nil {
		return nil, err
	}
	return &stdioClient{p: p, w: newWriter(p)}, nil
}

// checkAll checks every server's answers over stdio and HTTP against the
// floor's, and returns the floor's answers. A server that does not serve
// the 2026-07-28 era on a transport is marked so (its figures there are
// "n/a"); one that serves it must answer what the floor answers. The
// floor and mcpwire must serve both eras on both transports.
func checkAll() (answers, error) {
	var w answers
	small, big := newCallTemplate(smallPayload, false), newCallTemplate(bigPayload, false)
	modern := newCallTemplate(smallPayload, true)
	for _, im := range impls { // the floor first
		got, err := probe(im, small, big, modern)
		if err != nil {
			return w, fmt.Errorf("%s: %v", im.name, err)
		}
		im.modernStdio, im.modernHTTP = got.modernStdio != nil, got.modernHTTP != nil
		if (im.name == "floor" || im.name == "mcpwire") && !(im.modernStdio && im.modernHTTP) {
			return w, fmt.Errorf("%s: does not serve 2026-07-28 over both stdio and HTTP", im.name)
		}
		if im.name == "floor" {
			w = got
			continue
		}
		for _, c := range []struct {
			what      string
			got, want json.RawMessage
		}{
			{"tools/call, 100 B", got.small, w.small},
			{"tools/call, 64 KiB", got.big, w.big},
			{"2026-07-28 tools/call over stdio", got.modernStdio, w.modernStdio},
			{"2026-07-28 tools/call over HTTP", got.modernHTTP, w.modernHTTP},
		} {
			if c.got == nil { // an era it does not serve
				continue
			}
			if err := sameAnswer(c.got, c.want); err != nil {
				return w, fmt.Errorf("%s, %s: %v", im.name, c.what, err)
			}
		}
		if !im.modernStdio || !im.modernHTTP {
			logf("%s serves 2026-07-28 over stdio: %v, over HTTP: %v (n/a where it does not)", im.name, im.modernStdio, im.modernHTTP)
		}
	}
	return w, nil
}

// probe asks one server everything the benchmark relies on, over stdio
// and HTTP, and returns its tools/call results (the same on both
// transports, or an error).
func probe(im *impl, small, big, modern *callTemplate) (answers, error) {
	var a answers
	c, err := openStdio(im.bin)
	if err != nil {
		return a, fmt.Errorf("stdio: %v", err)
	}
	defer c.p.kill()
	if err := c.send(toolsListRequest); err != nil {
		return a, err
	}
	line, err := c.readResponse()
	if err != nil {
		return a, err
	}
	r, err := parseResponse(line)
	if err != nil {
		return a, fmt.Errorf("stdio tools/list: %v", err)
	}
	if err := checkToolList(r.Result); err != nil {
		return a, fmt.Errorf("stdio: %v", err)
	}
	for i, t := range []*callTemplate{small, big} {
		line, err := c.call(t, int64(10+i))
		if err != nil {
			return a, err
		}
		r, err := parseResponse(line)
		if err != nil {
			return a, fmt.Errorf("stdio tools/call: %v", err)
		}
		res := append(json.RawMessage(nil), r.Result...)
		if i == 0 {
			a.small = res
		} else {
			a.big = res
		}
	}
	if err := c.p.stop(); err != nil {
		return a, fmt.Errorf("stdio: %v", err)
	}
	// stdio, 2026-07-28: server/discover, then the call.
	if a.modernStdio, err = probeModernStdio(im.bin, modern); err != nil {
		return a, fmt.Errorf("stdio, 2026-07-28: %v", err)
	}
	// HTTP, legacy session: the same answers.
	p, err := startHTTP(im.bin)
	if err != nil {
		return a, err
	}
	defer p.kill()
	s, err := openLegacy(p.addr)
	if err != nil {
		return a, fmt.Errorf("HTTP: %v", err)
	}
	defer s.h.close()
	for i, t := range []*callTemplate{small, big} {
		body, err := s.call(t, int64(20+i))
		if err != nil {
			return a, fmt.Errorf("HTTP: %v", err)
		}
		r, err := parseResponse(body)
		if err != nil {
			return a, fmt.Errorf("HTTP tools/call: %v", err)
		}
		want := a.small
		if i == 1 {
			want = a.big
		}
		if err := sameAnswer(r.Result, want); err != nil {
			return a, fmt.Errorf("HTTP and stdio differ: %v", err)
		}
	}
	if err := p.stop(); err != nil {
		return a, err
	}
	// HTTP, 2026-07-28 (stateless).
	p, err = startHTTP(im.bin, im.stateless...)
	if err != nil {
		return a, err
	}
	defer p.kill()
	s, err = openModern(p.addr)
	if errors.Is(err, errNotModern) {
		return a, p.stop()
	}
	if err != nil {
		return a, err
	}
	defer s.h.close()
	body, err := s.call(modern, 30)
	if err != nil {
		return a, fmt.Errorf("HTTP, 2026-07-28: %v", err)
	}
	if r, err = parseResponse(body); err != nil {
		return a, fmt.Errorf("HTTP, 2026-07-28 tools/call: %v", err)
	}
	a.modernHTTP = append(json.RawMessage(nil), r.Result...)
	return a, p.stop()
}

// probeModernStdio opens a 2026-07-28 session over stdio and returns the
// result of one call; nil (and no error) when the server does not serve
// that era.
func probeModernStdio(bin string, modern *callTemplate) (json.RawMessage, error) {
	c, err := openStdioModern(bin)
	if errors.Is(err, errNotModern) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer c.p.kill()
	line, err := c.call(modern, 40)
	if err != nil {
		return nil, err
	}
	r, err := parseResponse(line)
	if err != nil {
		return nil, fmt.Errorf("tools/call: %v", err)
	}
	res := append(json.RawMessage(nil), r.Result...)
	return res, c.p.stop()
}
