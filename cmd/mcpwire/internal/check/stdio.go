package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// Timing of a server process.
const (
	// stopWait is how long close waits for the server to exit once its
	// stdin is closed, before killing it (the MCP shutdown sequence,
	// without the SIGTERM step, which Windows lacks), unless the check's
	// context ends first.
	stopWait = 2 * time.Second
	// probeGrace is how long a wire waits, once its probe is answered,
	// for a late answer to the frame sent before the probe.
	probeGrace = 100 * time.Millisecond
	// maxSeen bounds the messages a reply keeps of those that arrived
	// meanwhile.
	maxSeen = 256
	// DefaultStartTimeout bounds the wait for a server process's first
	// answer, which includes its start (npx may install it first), when
	// that is longer than --response-timeout.
	DefaultStartTimeout = time.Minute
	// noiseWait bounds the wait for an answer once a server process that
	// has sent no valid message yet writes output that is not JSON-RPC
	// (when that is shorter than --response-timeout): the process has
	// started, and a server that prints a banner before it serves
	// answers right after it; a program that does not speak JSON-RPC
	// never does.
	noiseWait = 2 * time.Second
)

// stdioWire is a wire to a server process that it started: frames are
// written, as lines, straight to the server's stdin; its stdout is read
// by a line connection of package transport (the framing, limits and
// decoding of every stdio client), one goroutine that hands each message
// over.
type stdioWire struct {
	cmd     *exec.Cmd
	stdin   *os.File
	conn    transport.Conn // reads stdout
	tracker *transport.FrameTracker
	stderr  *tailWriter
	timeout time.Duration // the wait for an answer
	// probe returns a call of id that the server answers at once, in the
	// era of the connection (ping, or server/discover): sent after a
	// frame that may go unanswered, its answer says when to stop waiting.
	probe func(id jsonrpc.ID) *frame

	in      chan item     // the server's messages, from the reader
	exited  chan struct{} // closed once the process is reaped
	waitErr error         // cmd.Wait's error, set before exited is closed
	stopped bool          // close has begun: the exit is ours
	eof     bool          // the server's output has ended
	started bool          // the server has written something
	valid   bool          // the server has sent a valid message
	noise   *noise        // the first output that was not JSON-RPC, or nil
	nextID  int64

	// batches are the starts of the batches read and not yet handed over
	// (the observer sees a frame before the reader hands it over).
	batchMu sync.Mutex
	batches []string
}

// An item is a message from the server, or why there is none.
type item struct {
	msg   jsonrpc.Message
	noise *noise // output that is not JSON-RPC (msg and err are nil)
	err   error
}

// A noise is output of the server that is not JSON-RPC: a line that is
// not a valid message, or a batch, which the revisions the check speaks
// do not allow.
type noise struct {
	n       int64  // its position: the nth message from the server
	rule    string // what is wrong with it
	excerpt string // its size and start, quoted (jsonrpc.DecodeError.Excerpt)
}

func (n *noise) String() string {
	return fmt.Sprintf("%s (message %d from the server, %s)", n.rule, n.n, n.excerpt)
}

// A notJSONRPCError reports a server process that answered a frame with
// nothing but output that is not JSON-RPC, having never sent a valid
// message: a program that does not speak it.
type notJSONRPCError struct {
	method string // of the frame it did not answer
	first  *noise
}

func (e *notJSONRPCError) Error() string {
	return fmt.Sprintf("it answered %s with nothing but output that is not JSON-RPC, the first: %s", e.method, e.first)
}

// startStdio starts the server of cmd and returns the wire to it. Its
// frames are shown to obs; its stderr is kept (the last lines, to tell
// why it ended) and copied to logw when logw is not nil.
func startStdio(cmd *exec.Cmd, obs transport.Observer, logw io.Writer, timeout time.Duration) (*stdioWire, error) {
	childIn, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdout, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		stdin.Close()
		return nil, err
	}
	w := &stdioWire{
		cmd:     cmd,
		stdin:   stdin,
		stderr:  &tailWriter{log: logw},
		timeout: timeout,
		in:      make(chan item, 64),
		exited:  make(chan struct{}),
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, w.stderr
	cmd.WaitDelay = time.Second
	err = cmd.Start()
	childIn.Close()
	childOut.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, err
	}
	w.tracker = transport.NewFrameTracker(obs, transport.TransportCommand, "")
	w.conn = transport.NewLineConn(stdout, io.Discard, stdout, &transport.LineOptions{
		Methods:   methods,
		Transport: transport.TransportCommand,
		Observer: transport.ObserverFunc(func(f *transport.Frame) {
			w.tracker.Observe(transport.Received, f.Raw, f.Message, f.Err, 0)
			if _, ok := f.Message.(*jsonrpc.Batch); ok {
				w.batchMu.Lock()
				w.batches = append(w.batches, excerpt(f.Raw))
				w.batchMu.Unlock()
			}
		}),
	})
	go func() {
		w.waitErr = cmd.Wait()
		close(w.exited)
	}()
	go w.read()
	return w, nil
}

// read hands the server's messages over until its output ends: each
// message, or the noise of a line that is not one (the recorder has its
// frame; nothing answers it) or of a batch.
func (w *stdioWire) read() {
	defer close(w.in)
	for n := int64(1); ; n++ {
		m, err := w.conn.Read(context.Background())
		var de *jsonrpc.DecodeError
		switch {
		case errors.As(err, &de):
			w.in <- item{noise: &noise{n: n, rule: de.Rule(), excerpt: de.Excerpt()}}
		case err != nil:
			w.in <- item{err: err}
			return
		default:
			if _, ok := m.(*jsonrpc.Batch); ok {
				w.batchMu.Lock()
				start := "a JSON array"
				if len(w.batches) > 0 { // the observer saw it first
					start, w.batches = w.batches[0], w.batches[1:]
				}
				w.batchMu.Unlock()
				w.in <- item{noise: &noise{n: n, rule: "a batch (a JSON array), which MCP allows in 2025-03-26 only", excerpt: start}}
				continue
			}
			w.in <- item{msg: m}
		}
	}
}

// excerpt describes a frame as jsonrpc.DecodeError.Excerpt does: its size
// and start, quoted.
func excerpt(raw []byte) string {
	e := &jsonrpc.DecodeError{Size: len(raw), Frame: raw[:min(len(raw), jsonrpc.MaxFrameExcerpt)]}
	for len(e.Frame) > 0 && len(e.Frame) < len(raw) && !utf8.RuneStart(raw[len(e.Frame)]) {
		e.Frame = e.Frame[:len(e.Frame)-1]
	}
	return e.Excerpt()
}

// heard notes an item from the server, and reports whether it is noise:
// output that is not JSON-RPC, which answers nothing.
func (w *stdioWire) heard(it item) bool {
	w.started = true
	if it.noise != nil {
		if w.noise == nil {
			w.noise = it.noise
		}
		return true
	}
	if it.msg != nil {
		w.valid = true
	}
	return false
}

func (w *stdioWire) transport() string { return "stdio" }

// id returns a new request id.
func (w *stdioWire) id() jsonrpc.ID {
	w.nextID++
	return jsonrpc.StringID(fmt.Sprintf("mcpwire-check-%d", w.nextID))
}

// write writes one line to the server.
func (w *stdioWire) write(raw []byte) error {
	msg, derr := decodeSent(raw)
	w.tracker.Observe(transport.Sent, raw, msg, derr, 0)
	line := make([]byte, 0, len(raw)+1)
	line = append(append(line, raw...), '\n')
	if _, err := w.stdin.Write(line); err != nil {
		w.eof = true // a broken pipe: the server is gone, or going
		if e := w.ended(); e != nil {
			return e
		}
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

func (w *stdioWire) notify(ctx context.Context, f *frame) error { return w.write(f.raw) }

// exchange sends f and waits for its answer; see wire. For a frame that
// may go unanswered (it has no id the server can read, or it breaks
// JSON-RPC), the wire sends a probe after it: once the probe is answered,
// and probeGrace has passed, the frame is taken as unanswered.
func (w *stdioWire) exchange(ctx context.Context, f *frame) (*reply, error) {
	if err := w.write(f.raw); err != nil {
		return nil, err
	}
	var probeID jsonrpc.ID
	if !f.id.IsValid() || f.probe {
		probeID = w.id()
		if err := w.write(w.probe(probeID).raw); err != nil {
			return nil, err
		}
	}
	r := &reply{}
	wait := w.timeout
	if !w.started {
		wait = max(wait, DefaultStartTimeout)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	shortened := false
	var grace <-chan time.Time
	for {
		select {
		case it, ok := <-w.in:
			if ok && w.heard(it) {
				if !w.valid && !shortened {
					// Started, and not speaking JSON-RPC so far: a
					// server with a banner answers right after it.
					shortened = true
					timer.Reset(min(w.timeout, noiseWait))
				}
				continue
			}
			if !ok || it.err != nil {
				w.eof = true
				if e := w.ended(); e != nil {
					return r, e
				}
				return r, fmt.Errorf("the server closed its output: %v", it.err)
			}
			switch m := it.msg.(type) {
			case *jsonrpc.Response:
				switch {
				case f.id.IsValid() && m.ID == f.id,
					!m.ID.IsValid() && m.Error != nil && r.resp == nil:
					r.resp = m
					if probeID.IsValid() && grace == nil {
						// Wait for the probe's answer too, so that it
						// is not taken for another frame's.
						continue
					}
					return r, nil
				case probeID.IsValid() && m.ID == probeID:
					if r.resp != nil {
						return r, nil
					}
					grace = time.After(probeGrace)
				}
			case *jsonrpc.Request:
				if len(r.seen) < maxSeen {
					r.seen = append(r.seen, m)
				}
				if m.IsCall() {
					w.answer(m)
				}
			}
		case <-grace:
			return r, nil
		case <-timer.C:
			if !w.valid && w.noise != nil {
				return r, &notJSONRPCError{method: f.method, first: w.noise}
			}
			return r, nil
		case <-ctx.Done():
			return r, ctx.Err()
		}
	}
}

// answer answers a request of the server: ping with an empty result,
// anything else (sampling, elicitation, roots: the check declares no
// capability) with -32601.
func (w *stdioWire) answer(m *jsonrpc.Request) {
	resp := &jsonrpc.Response{ID: m.ID, Result: []byte("{}")}
	if m.Method != "ping" {
		resp = &jsonrpc.Response{ID: m.ID, Error: jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "mcpwire check does not answer %s", m.Method)}
	}
	if b, err := jsonrpc.Encode(resp); err == nil {
		w.write(b)
	}
}

// watch sends f and reads the server's messages until until says so or
// the wait ends; it returns the messages read.
func (w *stdioWire) watch(ctx context.Context, f *frame, until func(jsonrpc.Message) bool) ([]jsonrpc.Message, error) {
	if err := w.write(f.raw); err != nil {
		return nil, err
	}
	var seen []jsonrpc.Message
	timer := time.NewTimer(w.timeout)
	defer timer.Stop()
	for {
		select {
		case it, ok := <-w.in:
			if ok && w.heard(it) {
				continue
			}
			if !ok || it.err != nil {
				w.eof = true
				if e := w.ended(); e != nil {
					return seen, e
				}
				return seen, fmt.Errorf("the server closed its output: %v", it.err)
			}
			if len(seen) < maxSeen {
				seen = append(seen, it.msg)
			}
			if m, ok := it.msg.(*jsonrpc.Request); ok && m.IsCall() {
				w.answer(m)
			}
			if until(it.msg) {
				return seen, nil
			}
		case <-timer.C:
			return seen, nil
		case <-ctx.Done():
			return seen, ctx.Err()
		}
	}
}

// exitWait is how long ended waits, once the server's output has ended,
// for the process to be reaped, so as to tell how it ended.
const exitWait = time.Second

// ended tells how the server process ended, once it has (unless close
// ended it).
func (w *stdioWire) ended() error {
	wait := time.Duration(0)
	if w.eof {
		wait = exitWait
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-w.exited:
	case <-t.C:
		return nil
	}
	if w.stopped {
		return nil
	}
	how := "exited with status 0"
	if st := w.cmd.ProcessState; st != nil && !st.Success() {
		how = "exited: " + st.String()
	} else if w.waitErr != nil {
		how = "ended: " + w.waitErr.Error()
	}
	if line := w.stderr.last(); line != "" {
		how += " (its last words: " + line + ")"
	}
	return fmt.Errorf("the server %s", how)
}

// close ends the connection: it closes the server's stdin, waits for it
// to exit (stopWait at most, and not past the end of ctx), and kills it
// if it does not.
func (w *stdioWire) close(ctx context.Context) error {
	if !w.stopped {
		w.stopped = true
		w.stdin.Close()
		t := time.NewTimer(stopWait)
		select {
		case <-w.exited:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		select {
		case <-w.exited:
		default:
			w.cmd.Process.Kill()
			<-w.exited // cmd.WaitDelay bounds the wait for its output
		}
		w.conn.Close()
		for range w.in { // the reader ends with the output
		}
	}
	return nil
}

// tailWriter keeps the last lines a server wrote on stderr, and copies
// them to log when it is set.
type tailWriter struct {
	log io.Writer

	mu    sync.Mutex
	part  []byte   // the line being written
	lines []string // the last tailLines lines
}

const (
	tailLines   = 5
	maxTailLine = 512
)

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if room := maxTailLine - len(t.part); room > 0 {
			t.part = append(t.part, chunk[:min(len(chunk), room)]...)
		}
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(t.part))
		t.part = t.part[:0]
		if t.log != nil {
			fmt.Fprintf(t.log, "[server] %s\n", line)
		}
		if line != "" {
			if len(t.lines) == tailLines {
				t.lines = t.lines[1:]
			}
			t.lines = append(t.lines, line)
		}
		p = p[i+1:]
	}
	return n, nil
}

// last returns the last line written, or "".
func (t *tailWriter) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := strings.TrimSpace(string(t.part)); s != "" {
		return s
	}
	if len(t.lines) == 0 {
		return ""
	}
	return t.lines[len(t.lines)-1]
}
