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

// inProcess compiles the in-process benchmarks once and runs each
// implementation's round trip separately, in the rotated order, once per
// repetition.
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
	names := []string{"floor", "mcpwire", "mcpwire-stateless", "gosdk", "mcpgo"}
	for rep := range cfg.reps {
		for i := range names {
			name := names[(i+rep)%len(names)]
			out, err := exec.Command(bin, "-test.run", "^$", "-test.bench", "^BenchmarkRoundTrip$/^"+name+"$",
				"-test.benchmem", "-test.benchtime", cfg.benchtime, "-test.timeout", "2m").CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s: %v\n%s", name, err, out)
			}
			m, err := parseBench(out)
			if err != nil {
				return fmt.Errorf("%s: %v\n%s", name, err, out)
			}
			r.add("inprocess", name, m)
		}
		logf("rep %d/%d inprocess: %s", rep+1, cfg.reps, r.brief("inprocess", rep))
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
