package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/internal/proxytest"
)

// A proc is one running benchmark server.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser       // stdio mode
	stdout *bufio.Reader        // stdio mode
	addr   string               // HTTP mode: host:port
	done   chan error           // receives cmd.Wait's error, then is closed
	stderr *proxytest.LogBuffer // what the server wrote to its standard error (os/exec writes it while errors read it)

	closers []io.Closer // closed when the process has ended
}

// profileDir, if set, is where servers write CPU profiles; currentRun
// names the run being measured.
var (
	profileDir string
	currentRun string
	profileSeq int
)

// profileArgs are the flags that make a server write its CPU profile and
// its heap profile (SCENARIO-IMPL-N.prof, SCENARIO-IMPL-N.mem.prof).
func profileArgs() []string {
	if profileDir == "" || currentRun == "" {
		return nil
	}
	profileSeq++
	base := filepath.Join(profileDir, fmt.Sprintf("%s-%d", currentRun, profileSeq))
	return []string{"-cpuprofile", base + ".prof", "-memprofile", base + ".mem.prof"}
}

// stderrFile is where a profiled server's standard error goes too
// (SCENARIO-IMPL-N.stderr, after profileArgs): GODEBUG=gctrace=1 in the
// environment of mcpbench leaves the collector's trace there.
func stderrFile() *os.File {
	if profileDir == "" || currentRun == "" {
		return nil
	}
	f, err := os.Create(filepath.Join(profileDir, fmt.Sprintf("%s-%d.stderr", currentRun, profileSeq)))
	if err != nil {
		return nil
	}
	return f
}

// clkTck is USER_HZ, the unit of utime and stime in /proc/PID/stat; it is
// 100 on every Linux the benchmark targets.
const clkTck = 100

// startStdio starts bin -stdio.
func startStdio(bin string, extra ...string) (*proc, error) {
	p := &proc{cmd: exec.Command(bin, append(append([]string{"-stdio"}, extra...), profileArgs()...)...), stderr: new(proxytest.LogBuffer)}
	p.cmd.Stderr = p.stderr
	in, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.stdin, p.stdout = in, bufio.NewReaderSize(out, 1<<20)
	if err := p.start(); err != nil {
		return nil, err
	}
	return p, nil
}

// startHTTP starts bin -http on a free loopback port and waits until it
// accepts connections.
func startHTTP(bin string, extra ...string) (*proc, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	p := &proc{cmd: exec.Command(bin, append(append([]string{"-http", addr}, extra...), profileArgs()...)...), addr: addr, stderr: new(proxytest.LogBuffer)}
	p.cmd.Stderr = p.stderr
	if f := stderrFile(); f != nil {
		p.cmd.Stderr = io.MultiWriter(p.stderr, f)
		p.closers = append(p.closers, f)
	}
	if err := p.start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return p, nil
		}
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited: %s", bin, p.stderr)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.kill()
			return nil, fmt.Errorf("%s: not listening on %s after 10s", bin, addr)
		}
	}
}

func (p *proc) start() error {
	if err := p.cmd.Start(); err != nil {
		return err
	}
	p.done = make(chan error, 1)
	go func() {
		err := p.cmd.Wait()
		for _, c := range p.closers {
			c.Close()
		}
		p.done <- err
		close(p.done)
	}()
	return nil
}

// cpu is the CPU time (user + system) the process has used so far.
func (p *proc) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / clkTck
}

// status reads one "kB" field of /proc/PID/status, in bytes.
func (p *proc) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// hwm is the peak resident set size (VmHWM).
func (p *proc) hwm() int64 { return p.status("VmHWM") }

// rss is the current resident set size (VmRSS).
func (p *proc) rss() int64 { return p.status("VmRSS") }

// stop ends the server: stdio servers see the end of their input, HTTP
// servers get SIGTERM; either is killed after 5 seconds.
func (p *proc) stop() error {
	if p.stdin != nil {
		p.stdin.Close()
	} else {
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) && p.stdin == nil && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGTERM {
			return nil
		}
		return err
	case <-time.After(5 * time.Second):
		p.kill()
		return errors.New("did not exit within 5s of the end of its input; killed")
	}
}

func (p *proc) kill() {
	p.cmd.Process.Kill()
	<-p.done
}
