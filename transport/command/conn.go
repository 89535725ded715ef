package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

var _ jsonrpc.PushStream = (*Conn)(nil)

// A Conn is the connection to a running server process. It is a
// transport.Conn: newline-delimited JSON-RPC over the server's stdin and
// stdout (see transport.NewLineConn for the framing and its bounds).
type Conn struct {
	conn   transport.Conn // the line connection (a jsonrpc.PushStream)
	cmd    *exec.Cmd
	name   string
	pid    int
	opts   Options
	stdin  *os.File
	stdout *stdoutReader
	stderr *stderrLog

	exited    chan struct{} // closed when the process has been reaped
	waitErr   error         // a failure of Wait itself, set before exited is closed
	signalled atomic.Bool   // Close sent a signal: the exit is ours
	// writeFailed is set by the first write that failed, which waited
	// for the process to exit.
	writeFailed atomic.Bool

	stopMu sync.Mutex
	stop   <-chan struct{} // Shutdown's ctx.Done(): the sequence stops waiting when it is closed
}

// Pid returns the server's process id.
func (c *Conn) Pid() int { return c.pid }

// Exited returns a channel that is closed when the server process has
// exited and has been reaped.
func (c *Conn) Exited() <-chan struct{} { return c.exited }

// ExitError reports how the server ended: nil while it runs, after a zero
// exit status, and after an exit that Close caused by a signal; otherwise
// an *ExitError (or the error that prevented waiting for the process).
func (c *Conn) ExitError() error {
	select {
	case <-c.exited:
	default:
		return nil
	}
	if c.waitErr != nil {
		return fmt.Errorf("command: waiting for %s (pid %d): %w", c.name, c.pid, c.waitErr)
	}
	st := c.cmd.ProcessState
	if st == nil || st.Success() || c.signalled.Load() {
		return nil
	}
	return &ExitError{Command: c.name, Pid: c.pid, State: st, Stderr: c.stderr.tail()}
}

// Read returns the next message from the server. When the server's output
// ends, Read waits (at most a second) for the process to be reaped before
// it returns io.EOF, so that ExitError then tells how it ended.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.conn.Read(ctx)
	if err == io.EOF {
		c.awaitExit(ctx.Done())
	}
	return m, err
}

// Push delivers the server's messages as the line connection does (see
// jsonrpc.PushStream, which jsonrpc.NewConn prefers to Read); the end of
// the output is delivered as Read returns it, once the process is reaped
// or a second has passed.
func (c *Conn) Push(deliver func(jsonrpc.Message, error)) (handOff func()) {
	return c.conn.(jsonrpc.PushStream).Push(func(m jsonrpc.Message, err error) {
		if err == io.EOF {
			c.awaitExit(nil)
		}
		deliver(m, err)
	})
}

// awaitExit waits until the process is reaped, ioGrace has passed or
// cancel is closed.
func (c *Conn) awaitExit(cancel <-chan struct{}) {
	t := time.NewTimer(ioGrace)
	defer t.Stop()
	select {
	case <-c.exited:
	case <-t.C:
	case <-cancel:
	}
}

// Write sends a message to the server's stdin. When the write fails
// because the server's stdin is closed (the server has exited, or is
// exiting), Write waits, as Read does at the end of the output, at most
// a second for the process to be reaped: its error then holds the
// *ExitError of a server that failed, and ExitError tells how it ended.
func (c *Conn) Write(ctx context.Context, m jsonrpc.Message) error {
	err := c.conn.Write(ctx, m)
	if err == nil || errors.Is(err, jsonrpc.ErrClosed) || ctx.Err() != nil {
		return err
	}
	if !c.writeFailed.Swap(true) {
		c.awaitExit(ctx.Done()) // once: a failed write stays failed
	}
	var ee *ExitError
	if exit := c.ExitError(); errors.As(exit, &ee) {
		return fmt.Errorf("%w; %w", err, exit)
	}
	return err
}

// Close shuts the server down as the package overview describes and
// returns once it has been reaped. It returns the server's failure, if
// any (see ExitError). It is idempotent.
func (c *Conn) Close() error {
	return c.conn.Close()
}

// Shutdown is Close with the waits of the shutdown sequence bounded by
// ctx as well: once ctx is done, the server is no longer waited for, and
// is killed (SIGKILL) if it has not exited, as exec.CommandContext does.
// A program whose user set a deadline ends the server by then. Like
// Close, it returns once the process has been reaped; after Close, or a
// first Shutdown, it does nothing.
func (c *Conn) Shutdown(ctx context.Context) error {
	c.stopMu.Lock()
	if c.stop == nil {
		c.stop = ctx.Done()
	}
	c.stopMu.Unlock()
	return c.conn.Close()
}

// wait reaps the process. It is the one goroutine of a Conn besides the
// line connection's reader (and the copier of stderr, which os/exec owns
// and cmd.Wait waits for).
func (c *Conn) wait() {
	err := c.cmd.Wait()
	c.stderr.flush()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		c.waitErr = err
	}
	c.stdout.processExited()
	close(c.exited)
}

// shutdown is the line connection's closer: the MCP shutdown sequence.
// The line connection has already made Read return.
func (c *Conn) shutdown() error {
	c.stopMu.Lock()
	stop := c.stop // nil for Close: never
	c.stopMu.Unlock()
	c.stdin.Close() // the server reads EOF
	if !c.waitExit(c.opts.TerminateTimeout, stop) {
		c.signalled.Store(true)
		if !c.stopped(stop) {
			_ = terminate(c.cmd.Process)
		}
		if !c.waitExit(c.opts.KillTimeout, stop) {
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	}
	c.stdout.f.Close() // ends the reader goroutine
	return c.ExitError()
}

// waitExit waits up to d for the process to exit, or until stop is
// closed (Shutdown's context is done); it reports whether it exited.
func (c *Conn) waitExit(d time.Duration, stop <-chan struct{}) bool {
	if c.stopped(stop) {
		select {
		case <-c.exited:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
	case <-stop:
	}
	select { // an exit and the stop at once: the exit wins
	case <-c.exited:
		return true
	default:
		return false
	}
}

// stopped reports whether stop is closed.
func (c *Conn) stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// terminate asks the process to stop: SIGTERM, or on Windows, which has
// no such signal for other processes, Kill.
func terminate(p *os.Process) error {
	if runtime.GOOS == "windows" {
		return p.Kill()
	}
	return p.Signal(syscall.SIGTERM)
}

// An ExitError reports a server process that failed: it exited with a
// non-zero status or was killed by a signal it was not sent by Close.
type ExitError struct {
	Command string           // the program's base name
	Pid     int              // its process id
	State   *os.ProcessState // how it ended
	Stderr  []string         // the last lines it wrote to stderr (at most 10)
}

// ExitCode returns the exit status, or -1 if the process was killed by a
// signal.
func (e *ExitError) ExitCode() int { return e.State.ExitCode() }

// Error returns, for example, "command: server (pid 4242) exited with
// status 1", followed by the last lines of its stderr, one per line.
func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "command: %s (pid %d) ", e.Command, e.Pid)
	if code := e.State.ExitCode(); code >= 0 {
		fmt.Fprintf(&b, "exited with status %d", code)
	} else {
		fmt.Fprintf(&b, "ended: %s", e.State)
	}
	if len(e.Stderr) > 0 {
		b.WriteString("; the end of its stderr:")
		for _, l := range e.Stderr {
			b.WriteString("\n\t")
			b.WriteString(l)
		}
	}
	return b.String()
}

// stdoutReader reads the server's stdout. Once the process has exited,
// a read that waits a whole second for data ends the output: a process
// the server left behind may hold the pipe open, and the connection must
// still see the end.
type stdoutReader struct {
	f      *os.File
	exited atomic.Bool
}

func (r *stdoutReader) Read(p []byte) (int, error) {
	for {
		fresh := r.exited.Load()
		if fresh {
			_ = r.f.SetReadDeadline(time.Now().Add(ioGrace))
		}
		n, err := r.f.Read(p)
		switch {
		case err == nil:
			return n, nil
		case errors.Is(err, os.ErrDeadlineExceeded):
			if n > 0 {
				return n, nil
			}
			if fresh {
				return 0, io.EOF
			}
			// The deadline came from processExited while this read was
			// waiting: read again, now with a full grace period.
			continue
		case errors.Is(err, os.ErrClosed):
			return n, io.EOF // closed by shutdown
		}
		return n, err
	}
}

// processExited starts the grace period of a read in progress.
func (r *stdoutReader) processExited() {
	r.exited.Store(true)
	_ = r.f.SetReadDeadline(time.Now())
}
