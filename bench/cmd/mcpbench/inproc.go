package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// inProcessRuns are the go test -bench runs of bench/inprocess, each a
// scenario of its own: the in-memory round trip in each era, and each
// library's Streamable HTTP client against the floor in a process of its
// own (the client's cost per call).
var inProcessRuns = []struct{ key, bench string }{
	{"inprocess", "BenchmarkRoundTrip"},
	{"inprocess-modern", "BenchmarkRoundTripModern"},
	{"client-http", "BenchmarkHTTPClient"},
	{"client-http-modern", "BenchmarkHTTPClientModern"},
}

// inProcessSelected reports whether -only selects any of inProcessRuns.
func inProcessSelected(only string) bool {
	for _, r := range inProcessRuns {
		if selected(only, r.key) {
			return true
		}
	}
	return false
}

// inProcess compiles the in-process benchmarks once and runs each
// implementation's round trip in each era separately, in the rotated
// order, once per repetition. An implementation that skips an era (its
// client cannot speak it) is "n/a" there.
func inProcess(cfg config, r *report) error {
	tmp, err := os.MkdirTemp("", "mcpbench-inprocess")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "inprocess.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, "./inprocess")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	names := []string{"floor", "mcpwire", "gosdk", "mcpgo"}
	for rep := range cfg.reps {
		for _, era := range inProcessRuns {
			if !selected(cfg.only, era.key) {
				continue
			}
			for i := range names {
				name := names[(i+rep)%len(names)]
				out, err := exec.Command(bin, "-test.run", "^$", "-test.bench", "^"+era.bench+"$/^"+name+"$",
					"-test.benchmem", "-test.benchtime", cfg.benchtime, "-test.timeout", "2m").CombinedOutput()
				if err != nil {
					return fmt.Errorf("%s, %s: %v\n%s", era.bench, name, err, out)
				}
				if bytes.Contains(out, []byte("--- SKIP")) {
					r.markNA(era.key, name)
					continue
				}
				m, err := parseBench(out)
				if err != nil {
					return fmt.Errorf("%s, %s: %v\n%s", era.bench, name, err, out)
				}
				r.add(era.key, name, m)
			}
			logf("rep %d/%d %s: %s", rep+1, cfg.reps, era.key, r.brief(era.key, rep))
		}
	}
	return nil
}

// parseBench reads the one result line of a go test -bench run.
func parseBench(out []byte) (metrics, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		m := metrics{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, err
			}
			m[f[i+1]] = v
		}
		return m, nil
	}
	return nil, fmt.Errorf("no benchmark result")
}
