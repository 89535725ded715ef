package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport/command"
)

// A child is one server process of the bridge and the bridge's side of
// its stdio connection: what it writes to the process, serialized, and a
// reader goroutine that delivers the process's responses to the calls
// waiting for them and hands everything else (the server's notifications
// and requests) to route, in the order the process wrote them. route
// runs on the reader: while it blocks the process's output is not read,
// and the pipe pushes back on the process. A pooled process serves many
// clients, so its route never waits on one (see outbox); a session's
// process serves one client, whose slow stream holds up that session
// only.
type child struct {
	conn  *command.Conn
	log   *slog.Logger
	route func(*child, *jsonrpc.Request)
	ended func(reason string) // called once, on the reader, when the process's output has ended, before the waiting calls fail

	wmu  sync.Mutex    // serializes writes
	done chan struct{} // closed when the output has ended: the child is gone

	mu      sync.Mutex
	calls   map[jsonrpc.ID]chan *jsonrpc.Response // calls written, by the id the process sees
	closing bool                                  // Close was called: the end is ours
	gone    string                                // why it ended, once done is closed
}

// startChild starts a server process and its reader.
func startChild(ctx context.Context, t *command.Transport, log *slog.Logger, route func(*child, *jsonrpc.Request), ended func(reason string)) (*child, error) {
	conn, err := t.Start(ctx)
	if err != nil {
		return nil, err
	}
	c := &child{conn: conn, log: log, route: route, ended: ended, done: make(chan struct{}), calls: make(map[jsonrpc.ID]chan *jsonrpc.Response)}
	go c.read()
	return c, nil
}

// read delivers the process's messages until its output ends, then fails
// the calls still waiting.
func (c *child) read() {
	ctx := context.Background()
	for {
		m, err := c.conn.Read(ctx)
		if err != nil {
			var de *jsonrpc.DecodeError
			if errors.As(err, &de) {
				c.invalid(de)
				continue
			}
			break
		}
		c.deliver(m)
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	reason := c.describeEnd(closing)
	c.mu.Lock()
	c.gone = reason
	calls := c.calls
	c.calls = nil
	c.mu.Unlock()
	close(c.done)
	// The owner learns of the end before the waiting calls do, so that
	// what they do on failing (a session ends with its last call) sees it.
	if c.ended != nil {
		c.ended(reason)
	}
	for _, ch := range calls {
		ch <- nil // the waiter reads c.reason
	}
	c.conn.Close() // reaps the process (and stops it, if it only closed its output)
}

// deliver hands one message of the process on.
func (c *child) deliver(m jsonrpc.Message) {
	switch m := m.(type) {
	case *jsonrpc.Response:
		c.mu.Lock()
		ch := c.calls[m.ID]
		delete(c.calls, m.ID)
		c.mu.Unlock()
		if ch == nil {
			c.log.Debug("bridge: a response to no waiting call dropped", "pid", c.conn.Pid(), "id", m.ID.String())
			return
		}
		ch <- m
	case *jsonrpc.Request:
		c.route(c, m)
	case *jsonrpc.Batch: // no MCP server sends one; taken member by member
		for _, x := range m.Messages {
			c.deliver(x)
		}
	}
}

// invalid handles a line of the process that is not a valid message: a
// call it was meant to answer fails at once, naming the line; anything
// else is logged and skipped.
func (c *child) invalid(de *jsonrpc.DecodeError) {
	if de.ResponseID.IsValid() {
		c.mu.Lock()
		ch := c.calls[de.ResponseID]
		delete(c.calls, de.ResponseID)
		c.mu.Unlock()
		if ch != nil {
			ch <- &jsonrpc.Response{ID: de.ResponseID, Error: jsonrpc.Errorf(jsonrpc.CodeInternalError,
				"Internal error: the server answered with a message that is not valid JSON-RPC (%s)", de.Err.Message)}
			return
		}
	}
	c.log.Warn("bridge: the server wrote a line that is not valid JSON-RPC", "pid", c.conn.Pid(), "error", de.Err.Message)
}

// describeEnd says how the process's output ended: how the process
// exited, with the last line of its stderr, or that it closed its output.
func (c *child) describeEnd(closing bool) string {
	if closing {
		return reasonStopped
	}
	select {
	case <-c.conn.Exited(): // Read has waited a second for it
	default:
		return "the server closed its output"
	}
	var ee *command.ExitError
	switch err := c.conn.ExitError(); {
	case errors.As(err, &ee):
		s := fmt.Sprintf("the server exited with status %d", ee.ExitCode())
		if ee.ExitCode() < 0 {
			s = fmt.Sprintf("the server was stopped (%s)", ee.State)
		}
		if n := len(ee.Stderr); n > 0 {
			s += ": " + strings.TrimSpace(ee.Stderr[n-1])
		}
		return s
	case err != nil:
		return "the server could not be waited for: " + err.Error()
	}
	return "the server exited with status 0"
}

// call writes the call req, whose id is the one the process sees, and
// returns the channel its response arrives on: nil there means the
// process ended first (see reason).
func (c *child) call(ctx context.Context, req *jsonrpc.Request) (<-chan *jsonrpc.Response, error) {
	ch := make(chan *jsonrpc.Response, 1)
	c.mu.Lock()
	if c.calls == nil {
		c.mu.Unlock()
		return nil, c.errGone()
	}
	c.calls[req.ID] = ch
	c.mu.Unlock()
	if err := c.write(ctx, req); err != nil {
		c.forget(req.ID)
		return nil, err
	}
	return ch, nil
}

// forget stops waiting for the response to id (the call was cancelled).
func (c *child) forget(id jsonrpc.ID) {
	c.mu.Lock()
	if c.calls != nil {
		delete(c.calls, id)
	}
	c.mu.Unlock()
}

// write sends one message to the process.
func (c *child) write(ctx context.Context, m jsonrpc.Message) error {
	select {
	case <-c.done:
		return c.errGone()
	default:
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.conn.Write(ctx, m); err != nil {
		select {
		case <-c.done:
			return c.errGone()
		default:
		}
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

// errGone is the error of a child whose output has ended.
func (c *child) errGone() error {
	select {
	case <-c.done:
		return &goneError{reason: c.reason()}
	default:
		return &goneError{reason: "the server is stopping"}
	}
}

// reason says why the child ended; "" while it runs.
func (c *child) reason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

// close stops the process: its stdin is closed, then it is signalled if
// it does not exit (see command.Conn.Close). It returns once the process
// has been reaped and the reader has ended.
func (c *child) close() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.conn.Close()
	<-c.done
}

// reasonStopped is why a child ended that the bridge stopped.
const reasonStopped = "the server was stopped"

// goneError is the error of a call that a server process will not answer.
type goneError struct{ reason string }

func (e *goneError) Error() string { return e.reason }

// goneResponse answers the call id that the child will not answer.
func goneResponse(id jsonrpc.ID, err error) *jsonrpc.Response {
	var ge *goneError
	if errors.As(err, &ge) {
		return &jsonrpc.Response{ID: id, Error: jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: %s before answering", ge.reason)}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, jsonrpc.ErrClosed) {
		return &jsonrpc.Response{ID: id, Error: jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the server is gone")}
	}
	return &jsonrpc.Response{ID: id, Error: jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: %v", err)}
}
