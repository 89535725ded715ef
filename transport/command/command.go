// Package command is the client side of MCP's stdio transport: it starts
// an MCP server as a subprocess and talks to it over the server's
// standard input and output, one JSON-RPC message per line.
//
//	cmd := exec.Command("npx", "-y", "@modelcontextprotocol/server-everything")
//	t := command.New(cmd, &command.Options{Logger: logger})
//	conn, err := t.Start(ctx) // the process runs; conn is a transport.Conn
//	...
//	err = conn.Close() // the shutdown sequence below
//
// # Standard error
//
// The server may write anything to its stderr, and the specification says
// that a client should not take it as a sign of failure. Each line goes to
// Options.Logger, at level Info, with the message "stderr" and the
// attributes command (the program's base name), pid and line; lines are
// cut at Options.MaxStderrLine bytes (attribute truncated=true). With no
// Logger the lines are dropped: this package never writes to the
// program's own stdout or stderr. The last lines are kept, so that when
// the server fails its error can show them (ExitError).
//
// # Shutdown
//
// Conn.Close follows the sequence of the MCP specification (lifecycle,
// "Shutdown"): it closes the server's stdin and waits up to
// Options.TerminateTimeout for the server to exit; then it sends SIGTERM
// and waits up to Options.KillTimeout; then it sends SIGKILL. On Windows,
// which has no SIGTERM, the second step kills the process. The process is
// always reaped, and every goroutine the connection started has ended when
// Close returns. Close reports an error only when the server failed: it
// exited with a non-zero status, or was killed by a signal, that this
// package did not send.
//
// If the server exits on its own, Read returns io.EOF once its output is
// read (and a Write that finds its stdin closed returns an error that
// holds the *ExitError of a failed server), and Conn.ExitError tells how
// it ended:
//
//	if _, err := conn.Read(ctx); err == io.EOF {
//		if err := conn.ExitError(); err != nil {
//			log.Fatal(err) // command: server (pid 4242) exited with status 1, ...
//		}
//	}
//
// The engine of package jsonrpc does the reading and the closing when the
// MCP client runs over this transport.
package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// Defaults for Options.
const (
	DefaultTerminateTimeout = 2 * time.Second
	DefaultKillTimeout      = 2 * time.Second
	DefaultMaxStderrLine    = 4096
)

// ioGrace is how long, after the server has exited, its stdout and stderr
// may stay open before they are treated as ended. They stay open when the
// server left a child process of its own holding them.
const ioGrace = time.Second

// Options configure a command transport. A nil *Options, and every zero
// field, mean the defaults.
type Options struct {
	// Limits bound each message read from the server's stdout; see
	// transport.LineOptions.
	Limits jsonrpc.Limits
	// Methods are method names the decoder returns without allocating.
	// Default: mcp.KnownMethods().
	Methods []string
	// Observer, if set, sees every frame read and written, including
	// lines that are not valid messages (see transport.Frame).
	Observer transport.Observer
	// Logger receives the server's stderr, one record per line. Default:
	// discarded.
	Logger *slog.Logger
	// TerminateTimeout is how long Close waits for the server to exit
	// after closing its stdin, before sending SIGTERM. Default 2s.
	TerminateTimeout time.Duration
	// KillTimeout is how long Close waits after SIGTERM before sending
	// SIGKILL. Default 2s.
	KillTimeout time.Duration
	// MaxStderrLine is the longest stderr line logged, in bytes; the rest
	// of a longer line is dropped. Default 4096.
	MaxStderrLine int
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.TerminateTimeout <= 0 {
		r.TerminateTimeout = DefaultTerminateTimeout
	}
	if r.KillTimeout <= 0 {
		r.KillTimeout = DefaultKillTimeout
	}
	if r.MaxStderrLine <= 0 {
		r.MaxStderrLine = DefaultMaxStderrLine
	}
	return r
}

// A Transport starts an MCP server process for each connection.
type Transport struct {
	opts   Options
	newCmd func() *exec.Cmd

	mu   sync.Mutex
	once *exec.Cmd // the command given to New, until it is started
	used bool      // New's command has been started
}

// New returns a transport that runs cmd. An exec.Cmd runs once, so
// Connect succeeds once; use NewFunc for a transport that can connect
// again (after the server exited, say).
//
// The transport connects cmd's stdin and stdout, which must be nil. If
// cmd.Stderr is set, the server's stderr goes there as well as to the
// logger. If cmd.WaitDelay is zero it is set to one second, so that a
// process the server leaves behind, holding its stderr open, cannot make
// Close wait for it.
func New(cmd *exec.Cmd, opts *Options) *Transport {
	return &Transport{opts: opts.withDefaults(), once: cmd}
}

// NewFunc returns a transport that runs the command newCmd returns, a new
// one on each Connect. The rules of New apply to each command.
func NewFunc(newCmd func() *exec.Cmd, opts *Options) *Transport {
	return &Transport{opts: opts.withDefaults(), newCmd: newCmd}
}

// Connect starts the server process; see Start.
func (t *Transport) Connect(ctx context.Context) (transport.Conn, error) {
	c, err := t.Start(ctx)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// command returns the command to start.
func (t *Transport) command() (*exec.Cmd, error) {
	if t.newCmd != nil {
		cmd := t.newCmd()
		if cmd == nil {
			return nil, errors.New("command: the command function returned nil")
		}
		return cmd, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.once == nil && !t.used:
		return nil, errors.New("command: no command to run")
	case t.used:
		return nil, errors.New("command: the command has been started already (an exec.Cmd runs once; use NewFunc to start a new process per connection)")
	}
	t.used = true
	cmd := t.once
	t.once = nil
	return cmd, nil
}

// Start starts the server process and returns the connection to it. The
// process is not tied to ctx, which only bounds the start; end it with
// Conn.Close.
func (t *Transport) Start(ctx context.Context) (*Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cmd, err := t.command()
	if err != nil {
		return nil, err
	}
	name := filepath.Base(cmd.Path)
	switch {
	case cmd.Process != nil:
		return nil, fmt.Errorf("command: %s has been started already", name)
	case cmd.Stdin != nil || cmd.Stdout != nil:
		return nil, fmt.Errorf("command: %s: Cmd.Stdin and Cmd.Stdout must be nil: the transport connects them", name)
	}

	// Our own pipes for stdin and stdout, rather than StdinPipe and
	// StdoutPipe: cmd.Wait closes those as soon as the process exits,
	// which could drop the last messages the server wrote.
	childIn, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	stdout, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		stdin.Close()
		return nil, fmt.Errorf("command: %w", err)
	}
	errLog := newStderrLog(t.opts.MaxStderrLine)
	defer errLog.start(nil) // in case Start fails: never block exec's copier
	cmd.Stdin, cmd.Stdout = childIn, childOut
	if cmd.Stderr != nil {
		cmd.Stderr = io.MultiWriter(cmd.Stderr, errLog)
	} else {
		cmd.Stderr = errLog
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = ioGrace
	}
	err = cmd.Start()
	childIn.Close() // the child has its own copies now
	childOut.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, fmt.Errorf("command: starting %s: %w", name, err)
	}

	pid := cmd.Process.Pid
	if t.opts.Logger != nil {
		errLog.start(t.opts.Logger.With("command", name, "pid", pid))
	}
	c := &Conn{
		cmd:    cmd,
		name:   name,
		pid:    pid,
		opts:   t.opts,
		stdin:  stdin,
		stdout: &stdoutReader{f: stdout},
		stderr: errLog,
		exited: make(chan struct{}),
	}
	c.conn = transport.NewLineConn(c.stdout, stdin, closerFunc(c.shutdown), &transport.LineOptions{
		Limits:    t.opts.Limits,
		Methods:   methodsOr(t.opts.Methods),
		Observer:  t.opts.Observer,
		Transport: transport.TransportCommand,
	})
	go c.wait()
	return c, nil
}

// closerFunc adapts a function to io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// methodsOr returns methods, or MCP's method names when it is nil.
func methodsOr(methods []string) []string {
	if methods == nil {
		return mcp.KnownMethods()
	}
	return methods
}

// Address returns the command line the transport runs (see
// transport.Addresser).
func (t *Transport) Address() string {
	t.mu.Lock()
	cmd := t.once
	t.mu.Unlock()
	if cmd == nil && t.newCmd != nil {
		cmd = t.newCmd()
	}
	if cmd == nil {
		return ""
	}
	return "command:" + strings.Join(append([]string{cmd.Path}, cmd.Args[min(1, len(cmd.Args)):]...), " ")
}
