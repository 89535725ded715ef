package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os/exec"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/command"
)

// maxStderr bounds the lines of stderr kept of one probe.
const maxStderr = 10

// runStdio examines a command: it starts, then answers in each era (a
// new process per probe: a server may end after a request it refuses).
func runStdio(ctx context.Context, r *Report, t *Target, o *Options) {
	cmd := t.NewCmd()
	program := cmd.Path
	if len(cmd.Args) > 0 {
		program = cmd.Args[0]
	}
	start := r.add(&Step{ID: "process", Title: "start the process " + program, Transport: "stdio"})
	var results []*stdioResult
	for i, era := range eras {
		s := &Step{ID: era.id, Title: era.title + " over stdio", Transport: "stdio", Protocol: string(era.version)}
		var res *stdioResult
		timed(s, func() { res = probeStdio(ctx, t.NewCmd, era.version, o) })
		if i == 0 {
			if res.startErr != nil {
				start.Status, start.Detail = Fail, res.startErr.Error()
				start.next = fmt.Sprintf("check the command: %s (is it installed, and on PATH?)", res.startErr)
				for _, e := range eras {
					r.skip(e.id, e.title+" over stdio", "the process did not start")
				}
				return
			}
			start.Status, start.Detail = OK, fmt.Sprintf("started (pid %d)", res.pid)
		}
		res.judge(s, program)
		r.add(s)
		results = append(results, res)
		if res.ok {
			r.OK = true
			r.Speaks = append(r.Speaks, fmt.Sprintf("%s over stdio (%s)", res.version, res.server))
		}
	}
	eraAdvice(r, results[0].ok, results[1].ok)
}

// eraAdvice turns the failure of one era's probe, when the other worked,
// into a warning.
func eraAdvice(r *Report, modern, legacy bool) {
	for _, s := range r.Steps {
		switch {
		case s.ID == "discover" && legacy && !modern && s.Status == Fail:
			s.Status, s.next = Warn, ""
			s.Detail = "the server does not speak 2026-07-28 (mcpwire uses the 2025-11-25 handshake): " + s.Detail
		case s.ID == "initialize" && modern && !legacy && s.Status == Fail:
			s.Status = Warn
			s.Detail = "the server speaks only 2026-07-28: " + s.Detail
			s.next = "the server speaks only 2026-07-28: clients of the 2025 revisions (most hosts today) cannot use it"
		}
	}
}

// stdioResult is what one probe of a command saw.
type stdioResult struct {
	startErr error
	pid      int
	ok       bool
	version  mcp.Version
	server   string
	err      error          // the client's error
	refused  bool           // the server answered with an error
	rpcErr   *jsonrpc.Error // the last error the server answered with
	invalid  string         // the first line it wrote that is not JSON-RPC
	exit     *command.ExitError
	exited   bool // the process had ended by itself
	stderr   []string
	timeout  bool
}

// probeStdio starts the command and connects in revision v.
func probeStdio(ctx context.Context, newCmd func() *exec.Cmd, v mcp.Version, o *Options) *stdioResult {
	res := &stdioResult{}
	var mu sync.Mutex
	obs := transport.ObserverFunc(func(f *transport.Frame) {
		if f.Direction != transport.Received {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if f.Err != nil && res.invalid == "" {
			res.invalid = clip(string(f.Raw), 200)
		}
		if resp, ok := f.Message.(*jsonrpc.Response); ok && resp.Error != nil {
			res.rpcErr = resp.Error
		}
	})
	tail := &stderrTail{}
	tr := command.NewFunc(newCmd, &command.Options{Observer: obs, Logger: slog.New(tail)})
	conn, err := tr.Start(ctx)
	if err != nil {
		res.startErr = startError(err)
		return res
	}
	res.pid = conn.Pid()
	pctx, cancel := context.WithTimeout(ctx, o.ProbeTimeout)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "mcpwire-doctor", Version: mcpwire.Version()}, &client.Options{Version: v, ProbeTimeout: o.ProbeTimeout})
	sess, err := c.Connect(pctx, started{conn})
	if err == nil {
		res.ok, res.version = true, sess.ProtocolVersion()
		info := sess.ServerInfo()
		res.server = strings.TrimSpace(info.Name + " " + info.Version)
		sess.Close()
	}
	res.err = err
	res.timeout = err != nil && pctx.Err() != nil
	select {
	case <-conn.Exited():
		res.exited = true
	default:
	}
	conn.Close()
	<-conn.Exited()
	var ee *command.ExitError
	if errors.As(conn.ExitError(), &ee) && res.exited {
		res.exit = ee
	}
	mu.Lock()
	defer mu.Unlock()
	res.stderr = tail.lines()
	if res.exit != nil && len(res.exit.Stderr) > 0 {
		res.stderr = res.exit.Stderr
	}
	var je *jsonrpc.Error
	res.refused = errors.As(err, &je) || res.rpcErr != nil
	return res
}

// startError words the failure to start a command.
func startError(err error) error {
	var ee *exec.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ee):
		return fmt.Errorf("cannot start %q: %v", ee.Name, ee.Err)
	case errors.As(err, &pe):
		return fmt.Errorf("cannot start %q: %v", pe.Path, pe.Err)
	}
	return errors.New(app.TrimPrefixes(err.Error()))
}

// judge sets the step from what the probe saw.
func (res *stdioResult) judge(s *Step, program string) {
	s.Stderr = res.stderr
	last := ""
	if n := len(res.stderr); n > 0 {
		last = res.stderr[n-1]
	}
	switch {
	case res.ok && res.invalid != "":
		s.Status = Warn
		s.Detail = fmt.Sprintf("%s answers, protocol %s; but it wrote a line on stdout that is not JSON-RPC: %q", res.server, res.version, res.invalid)
		s.next = "stdout carries JSON-RPC messages only: make the server write its logs and banners to stderr (some clients give up on such a line)"
	case res.ok:
		s.Status, s.Detail = OK, fmt.Sprintf("%s answers, protocol %s", res.server, res.version)
	case res.timeout:
		s.Status = Fail
		s.Detail = "no answer on stdout within the probe timeout"
		s.next = fmt.Sprintf("%s does not answer on stdout: is it an MCP server over stdio? Many need an argument (such as stdio) to serve on stdio", program)
	case res.invalid != "":
		s.Status = Fail
		s.Detail = fmt.Sprintf("it wrote a line on stdout that is not JSON-RPC: %q", res.invalid)
		s.next = "stdout carries JSON-RPC messages only: make the server write its logs and banners to stderr"
	case res.exited:
		how := "exited with status 0"
		if res.exit != nil {
			how = fmt.Sprintf("exited with status %d", res.exit.ExitCode())
			if res.exit.ExitCode() < 0 {
				how = fmt.Sprintf("was stopped (%s)", res.exit.State)
			}
		}
		s.Status, s.Detail = Fail, "the process "+how+" before answering"
		if last != "" {
			s.Detail += "; its last stderr line: " + last
		}
		s.next = fmt.Sprintf("the server exits at once: run %s in a terminal and read its stderr", program)
		if last != "" {
			s.next += fmt.Sprintf(" (it said %q)", last)
		}
	case res.refused:
		s.Status = Fail
		msg := app.TrimPrefixes(res.err.Error())
		if res.rpcErr != nil {
			msg = fmt.Sprintf("%s (code %d)", res.rpcErr.Message, res.rpcErr.Code)
		}
		s.Detail = "the server refused it: " + msg
		s.next = "the server refuses both revisions mcpwire speaks: check its version, or its documentation for the protocol revisions it supports"
	default:
		s.Status, s.Detail = Fail, app.TrimPrefixes(res.err.Error())
		s.next = "the connection failed: " + s.Detail
	}
}

// started is a transport whose one connection is already made.
type started struct{ c transport.Conn }

// Connect returns the connection.
func (s started) Connect(context.Context) (transport.Conn, error) { return s.c, nil }

// stderrTail is a slog.Handler that keeps the last stderr lines of a
// command transport ("stderr" records with a "line").
type stderrTail struct {
	mu sync.Mutex
	l  []string
}

func (h *stderrTail) Enabled(context.Context, slog.Level) bool { return true }

func (h *stderrTail) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "stderr" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			h.mu.Lock()
			h.l = append(h.l, clip(a.Value.String(), 300))
			if len(h.l) > maxStderr {
				h.l = h.l[1:]
			}
			h.mu.Unlock()
			return false
		}
		return true
	})
	return nil
}

func (h *stderrTail) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *stderrTail) WithGroup(string) slog.Handler      { return h }

// lines returns the lines kept.
func (h *stderrTail) lines() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.l...)
}
