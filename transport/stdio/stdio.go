// Package stdio is the server side of MCP's stdio transport: the client
// starts the server as a subprocess and they exchange newline-delimited
// JSON-RPC messages over the server's standard input and output.
//
// A server program serves one connection on its stdin and stdout:
//
//	t := stdio.New(nil)
//	conn, err := t.Connect(ctx) // a transport.Conn over os.Stdin and os.Stdout
//
// (The MCP server does this for you when given the transport.)
//
// # What goes where
//
// The specification allows nothing but MCP messages on stdout. This
// package writes there only the messages it is given, whole lines only:
// each message in one write, or, when the client pipelines calls, the
// answers to the calls already read together in one write (one system
// call for many answers; none waits for more input, see
// transport.NewLineConn). mcpwire never writes to stdout or stderr on its own: its
// diagnostics go to the *slog.Logger you inject, and are discarded when
// you inject none. Your own program must keep stdout clean too: log to
// stderr (the log package's default), which the client may show, store
// or ignore, and never print to stdout.
//
// # Bounds and shutdown
//
// Incoming lines are bounded (Options.Limits); an oversized or invalid
// line is answered with an error response and the connection goes on.
// Reading ends with io.EOF when the client closes the server's stdin,
// the first step of MCP's shutdown sequence; the server should then
// finish and exit. Close neither closes stdin nor stdout, which belong to
// the process; see transport.NewLineConn for what that means for the
// reading goroutine. If the client goes away without closing stdin,
// writes to stdout fail, and by Go's default a write to a broken stdout
// pipe ends the process with SIGPIPE, which is what a stdio server
// should do then.
package stdio

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// Options configure the stdio transport. A nil *Options, and every zero
// field, mean the defaults.
type Options struct {
	// Stdin is read for incoming messages. Default os.Stdin.
	Stdin io.Reader
	// Stdout receives outgoing messages. Default os.Stdout.
	Stdout io.Writer
	// Limits bound each incoming message; see transport.LineOptions.
	Limits jsonrpc.Limits
	// Methods are method names the decoder returns without allocating.
	// Default: mcp.KnownMethods().
	Methods []string
	// Observer, if set, sees every frame read and written, including
	// lines that are not valid messages (see transport.Frame).
	Observer transport.Observer
}

// A Transport is the server side of the stdio transport.
type Transport struct {
	opts Options

	mu        sync.Mutex
	connected bool
}

// New returns a stdio transport.
func New(opts *Options) *Transport {
	t := &Transport{}
	if opts != nil {
		t.opts = *opts
	}
	if t.opts.Stdin == nil {
		t.opts.Stdin = os.Stdin
	}
	if t.opts.Stdout == nil {
		t.opts.Stdout = os.Stdout
	}
	return t
}

// Connect returns the connection over stdin and stdout. A process has one
// standard input, which carries one connection: Connect fails if it was
// called before, and if ctx is done.
//
// Closing the connection closes neither stdin nor stdout.
func (t *Transport) Connect(ctx context.Context) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.connected {
		return nil, errors.New("stdio: Connect called twice: standard input carries one connection")
	}
	t.connected = true
	return transport.NewLineConn(t.opts.Stdin, t.opts.Stdout, nil, &transport.LineOptions{
		Limits:    t.opts.Limits,
		Methods:   methodsOr(t.opts.Methods),
		Observer:  t.opts.Observer,
		Transport: transport.TransportStdio,
	}), nil
}

// methodsOr returns methods, or MCP's method names when it is nil.
func methodsOr(methods []string) []string {
	if methods == nil {
		return mcp.KnownMethods()
	}
	return methods
}
