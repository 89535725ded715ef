// Command fsbench compares mcpwire serve filesystem with the official
// filesystem server (@modelcontextprotocol/server-filesystem, on Node 22),
// both started as stdio subprocesses over the same generated tree:
//
//   - cold start: from starting the process to the answer to initialize,
//     and to the result of the first tool call;
//   - read_text_file of a 1 MiB file;
//   - directory_tree and search_files ("**/*.go") over 20,000 files in
//     420 directories.
//
// Usage, from the bench directory:
//
//	go run ./cmd/fsbench [-quick] [-n N] [-o FILE]
//
// It builds mcpwire from the working tree and installs the official
// server with scripts/install-peers.sh (pinned, cached; $NODE22 and
// $SERVER_FILESYSTEM, when set, name them instead). Both servers get the
// same requests in the 2025-11-25 revision (the official server's), as
// raw JSON-RPC lines, and must answer each with the same text: the
// program checks it before it measures. The two servers alternate, call
// after call, so that the drift of a shared machine hits both alike.
// Each figure is the median of N runs, with the 90th percentile; the
// ratio is the official server's median over mcpwire's.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	quick := flag.Bool("quick", false, "fewer runs")
	n := flag.Int("n", 0, "runs of each measurement (default 31, 9 with -quick)")
	out := flag.String("o", "-", "write the report to this file (- for stdout)")
	flag.Parse()
	if err := run(*quick, *n, *out); err != nil {
		fmt.Fprintln(os.Stderr, "fsbench:", err)
		os.Exit(1)
	}
}

// A server is one implementation under test: the command that starts it
// over a directory.
type server struct {
	name string
	cmd  func(dir string) *exec.Cmd
}

func run(quick bool, n int, out string) error {
	if n <= 0 {
		n = 31
		if quick {
			n = 9
		}
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		return err
	}
	node, official, err := peers(repo)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "fsbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := filepath.Join(work, "mcpwire")
	build := exec.Command("go", "build", "-o", bin, "./cmd/mcpwire")
	build.Dir = repo
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building mcpwire: %v", err)
	}
	tree := filepath.Join(work, "tree")
	files, dirs, err := makeTree(tree)
	if err != nil {
		return err
	}
	servers := []server{
		{"mcpwire", func(dir string) *exec.Cmd { return exec.Command(bin, "serve", "filesystem", dir) }},
		{"official", func(dir string) *exec.Cmd { return exec.Command(node, official, dir) }},
	}
	nodeVersion, _ := exec.Command(node, "--version").Output()

	var rows []row
	// Cold starts: a fresh process each time, alternating.
	initMs, toolMs, startCPU := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for i := range n {
		for _, s := range rotate(servers, i) {
			a, b, cpu, err := coldStart(s, tree)
			if err != nil {
				return fmt.Errorf("%s: cold start: %v", s.name, err)
			}
			initMs[s.name] = append(initMs[s.name], a)
			toolMs[s.name] = append(toolMs[s.name], b)
			startCPU[s.name] = append(startCPU[s.name], cpu)
		}
	}
	rows = append(rows, newRow("cold start to the answer to initialize", initMs, nil), newRow("cold start to the first tool result", toolMs, startCPU))

	// Calls on running servers.
	sess := map[string]*session{}
	for _, s := range servers {
		c, err := start(s, tree)
		if err != nil {
			return fmt.Errorf("%s: %v", s.name, err)
		}
		defer c.stop()
		sess[s.name] = c
	}
	calls := []struct {
		what string
		tool string
		args string
		reps int
	}{
		{"read_text_file, 1 MiB", "read_text_file", `{"path":"big.txt"}`, n},
		{fmt.Sprintf("directory_tree, %d files", files), "directory_tree", `{"path":"src"}`, max(5, n/3)},
		{fmt.Sprintf("search_files **/*.go, %d files", files), "search_files", `{"path":"src","pattern":"**/*.go"}`, max(5, n/3)},
	}
	for _, c := range calls {
		// Both must answer alike before anything is measured.
		var texts []string
		for _, s := range servers {
			text, _, err := sess[s.name].callTool(c.tool, c.args)
			if err != nil {
				return fmt.Errorf("%s: %s: %v", s.name, c.tool, err)
			}
			texts = append(texts, text)
		}
		if texts[0] != texts[1] {
			return fmt.Errorf("%s: the servers answer differently (%d and %d bytes)", c.tool, len(texts[0]), len(texts[1]))
		}
		ms, cpu := map[string][]float64{}, map[string][]float64{}
		for i := range c.reps {
			for _, s := range rotate(servers, i) {
				c0 := sess[s.name].cpu()
				_, d, err := sess[s.name].callTool(c.tool, c.args)
				if err != nil {
					return fmt.Errorf("%s: %s: %v", s.name, c.tool, err)
				}
				ms[s.name] = append(ms[s.name], float64(d.Microseconds())/1e3)
				cpu[s.name] = append(cpu[s.name], sess[s.name].cpu()-c0)
			}
		}
		rows = append(rows, newRow(c.what, ms, cpu))
	}
	rss := map[string]float64{}
	for _, s := range servers {
		rss[s.name] = sess[s.name].peakRSS()
	}

	var b strings.Builder
	fmt.Fprintf(&b, "| operation | mcpwire: time (median, p90) | official: time (median, p90) | time: official / mcpwire | mcpwire: CPU | official: CPU | CPU: official / mcpwire |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s ms, %s ms | %s ms, %s ms | **%.1fx** |", r.what,
			num(r.med["mcpwire"]), num(r.p90["mcpwire"]), num(r.med["official"]), num(r.p90["official"]), r.med["official"]/r.med["mcpwire"])
		if r.cpu == nil {
			b.WriteString(" | | |\n")
			continue
		}
		fmt.Fprintf(&b, " %s ms | %s ms | **%.1fx** |\n", num(r.cpu["mcpwire"]), num(r.cpu["official"]), r.cpu["official"]/r.cpu["mcpwire"])
	}
	fmt.Fprintf(&b, "| peak resident memory after the calls | %.1f MiB | %.1f MiB | **%.1fx** | | | |\n", rss["mcpwire"], rss["official"], rss["official"]/rss["mcpwire"])
	fmt.Fprintf(&b, "\nTime is from the request written to the whole answer read (not decoded); CPU is the server process's, all its threads (/proc/PID/task/*/schedstat), for the call or, for a cold start, from exec to the first tool result. %d runs of each cold start and of read_text_file, %d of each walk; the tree: %d files in %d directories, and a 1 MiB text file. %s, %d CPUs, Go %s, Node %s; %s.\n",
		n, max(5, n/3), files, dirs, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), strings.TrimPrefix(runtime.Version(), "go"), strings.TrimSpace(strings.TrimPrefix(string(nodeVersion), "v")), time.Now().UTC().Format("2006-01-02"))
	if out == "-" {
		_, err = io.WriteString(os.Stdout, b.String())
		return err
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

// rotate gives the servers in an order that alternates with i.
func rotate(s []server, i int) []server {
	if i%2 == 0 {
		return s
	}
	return []server{s[1], s[0]}
}

type row struct {
	what          string
	med, p90, cpu map[string]float64 // cpu: the median CPU time, nil if not measured
}

func newRow(what string, ms, cpu map[string][]float64) row {
	r := row{what: what, med: map[string]float64{}, p90: map[string]float64{}}
	for name, v := range ms {
		slices.Sort(v)
		r.med[name] = v[len(v)/2]
		r.p90[name] = v[min(len(v)-1, len(v)*9/10)]
	}
	if cpu != nil {
		r.cpu = map[string]float64{}
		for name, v := range cpu {
			slices.Sort(v)
			r.cpu[name] = v[len(v)/2]
		}
	}
	return r
}

func num(ms float64) string {
	if ms < 10 {
		return strconv.FormatFloat(ms, 'f', 2, 64)
	}
	return strconv.FormatFloat(ms, 'f', 1, 64)
}

// peers returns Node 22 and the official server's entry point: from the
// environment, or installed by scripts/install-peers.sh.
func peers(repo string) (node, official string, err error) {
	node, official = os.Getenv("NODE22"), os.Getenv("SERVER_FILESYSTEM")
	if node != "" && official != "" {
		return node, official, nil
	}
	cmd := exec.Command("bash", filepath.Join(repo, "scripts", "install-peers.sh"))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("installing the official server: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if u, err := strconv.Unquote(`"` + strings.ReplaceAll(v, `\ `, " ") + `"`); err == nil {
			v = u
		}
		switch k {
		case "NODE22":
			node = v
		case "SERVER_FILESYSTEM":
			official = v
		}
	}
	if node == "" || official == "" {
		return "", "", errors.New("scripts/install-peers.sh named no NODE22 or SERVER_FILESYSTEM")
	}
	return node, official, nil
}

// makeTree writes big.txt (1 MiB of text lines) and src/, 20,000 files
// of a few lines in 20 × 20 directories.
func makeTree(root string) (files, dirs int, err error) {
	var big bytes.Buffer
	for i := 0; big.Len() < 1<<20; i++ {
		fmt.Fprintf(&big, "line %07d: the quick brown fox jumps over the lazy dog\n", i)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return 0, 0, err
	}
	if err := os.WriteFile(filepath.Join(root, "big.txt"), big.Bytes()[:1<<20], 0o644); err != nil {
		return 0, 0, err
	}
	exts := []string{".go", ".txt", ".md", ".json"}
	dirs = 1
	for a := range 20 {
		for b := range 20 {
			dir := filepath.Join(root, "src", fmt.Sprintf("pkg%02d", a), fmt.Sprintf("mod%02d", b))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return 0, 0, err
			}
			if b == 0 {
				dirs++
			}
			dirs++
			for f := range 50 {
				name := fmt.Sprintf("file%03d%s", f, exts[f%len(exts)])
				if err := os.WriteFile(filepath.Join(dir, name), []byte("content\n"), 0o644); err != nil {
					return 0, 0, err
				}
				files++
			}
		}
	}
	return files, dirs, nil
}

// A session is a running server and its stdio, spoken to in raw
// JSON-RPC.
type session struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func spawn(s server, dir string) (*session, error) {
	cmd := s.cmd(dir)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &session{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// start starts a server and completes the handshake.
func start(s server, dir string) (*session, error) {
	c, err := spawn(s, dir)
	if err != nil {
		return nil, err
	}
	if _, err := c.call("initialize", initParams); err != nil {
		c.stop()
		return nil, err
	}
	if err := c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

const initParams = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fsbench","version":"1"}}`

// coldStart measures one start: to the answer to initialize, and to the
// result of a first tool call.
func coldStart(s server, dir string) (initMs, toolMs, cpuMs float64, err error) {
	t0 := time.Now()
	c, err := spawn(s, dir)
	if err != nil {
		return 0, 0, 0, err
	}
	defer c.stop()
	if _, err := c.call("initialize", initParams); err != nil {
		return 0, 0, 0, err
	}
	initMs = float64(time.Since(t0).Microseconds()) / 1e3
	if err := c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return 0, 0, 0, err
	}
	if _, _, err := c.callTool("list_allowed_directories", `{}`); err != nil {
		return 0, 0, 0, err
	}
	toolMs = float64(time.Since(t0).Microseconds()) / 1e3
	return initMs, toolMs, c.cpu(), nil
}

func (c *session) send(line string) error {
	_, err := io.WriteString(c.in, line+"\n")
	return err
}

// call sends a request and returns its result, skipping notifications.
func (c *session) call(method, params string) (json.RawMessage, error) {
	res, _, err := c.timedCall(method, params)
	return res, err
}

// timedCall is call, and the time from writing the request to having
// read the whole answer (before decoding it).
func (c *session) timedCall(method, params string) (json.RawMessage, time.Duration, error) {
	c.id++
	t0 := time.Now()
	if err := c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.id, method, params)); err != nil {
		return nil, 0, err
	}
	for {
		line, err := c.out.ReadBytes('\n')
		d := time.Since(t0)
		if err != nil {
			return nil, 0, err
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, 0, fmt.Errorf("%v: %.200s", err, line)
		}
		if m.ID == nil {
			continue
		}
		if *m.ID != c.id {
			return nil, 0, fmt.Errorf("answer to %d, want %d", *m.ID, c.id)
		}
		if m.Error != nil {
			return nil, 0, fmt.Errorf("%s: %s", method, m.Error)
		}
		return m.Result, d, nil
	}
}

// callTool calls a tool and returns the text of its result and the time
// from the request to the whole answer read (its decoding not counted).
func (c *session) callTool(name, args string) (string, time.Duration, error) {
	raw, d, err := c.timedCall("tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, name, args))
	if err != nil {
		return "", 0, err
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", 0, err
	}
	if res.IsError || len(res.Content) != 1 {
		return "", 0, fmt.Errorf("%s failed: %.300s", name, raw)
	}
	return res.Content[0].Text, d, nil
}

// cpu is the CPU time the process's threads have run, in ms (Linux's
// schedstat: nanoseconds on the CPU).
func (c *session) cpu() float64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", c.cmd.Process.Pid))
	var ns float64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			v, _ := strconv.ParseFloat(f[0], 64)
			ns += v
		}
	}
	return ns / 1e6
}

// peakRSS is the process's peak resident memory, in MiB (Linux).
func (c *session) peakRSS() float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// stop ends the server: its input closes, then it is killed if it
// lingers.
func (c *session) stop() {
	c.in.Close()
	done := make(chan struct{})
	go func() {
		c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}
