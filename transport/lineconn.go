package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// LineOptions configure a line connection (NewLineConn). A nil
// *LineOptions, and every zero field, mean the defaults.
type LineOptions struct {
	// Limits bound each incoming message. Limits.MaxMessageSize is the
	// longest line accepted, not counting its line ending; default
	// jsonrpc.DefaultMaxMessageSize (16 MiB).
	Limits jsonrpc.Limits
	// Methods are method names the decoder returns without allocating
	// when they appear in a message. MCP peers pass mcp.KnownMethods().
	Methods []string
	// Observer, if set, sees every line read and written (see Frame),
	// including lines that are not valid messages. Default: none, at no
	// cost.
	Observer Observer
	// Transport names the transport in the frames the observer sees.
	// Default TransportLine.
	Transport string
}

// lineBufferSize is the size of a line connection's read buffer. Lines
// that fit in it are copied once, straight into their frame.
const lineBufferSize = 64 << 10

// lineMaxRetained is the largest scratch buffer (the write buffer, the
// buffer assembling long lines) that a line connection keeps between
// messages; larger ones go back to the garbage collector after use.
const lineMaxRetained = 1 << 20

// lineHoldMax is the most output a line connection holds back while it
// has more input to handle (see lineConn.hold): past it, what is held is
// written at once.
const lineHoldMax = 64 << 10

// lineHoldFor is the longest a line connection holds back an answer while
// it has more input to handle: a burst of calls that each take a while
// (but less than the hand-off's 100 µs) would otherwise keep the first
// answer until 64 KiB of answers were written after it.
const lineHoldFor = time.Millisecond

// lineCloseWait bounds how long Close waits for the reader goroutine after
// closing the closer. Closing a pipe, a socket or an os/exec pipe ends a
// pending read at once; a closer that does not (os.Stdin, which is in
// blocking mode) must not hang Close.
const lineCloseWait = time.Second

// NewLineConn returns a Conn that carries newline-delimited JSON-RPC
// messages over a byte stream: it reads messages from r and writes them to
// w, one message per line. This is the framing of MCP's stdio transport,
// and it suits pipes and sockets as well.
//
// Reading. Each line is one message, decoded strictly (jsonrpc.Decoder).
// A line may end in "\n" or "\r\n"; blank lines are skipped; a last line
// without a line ending is read at the end of the input. A line longer
// than opts.Limits.MaxMessageSize is never held in memory: Read returns a
// *jsonrpc.DecodeError (jsonrpc.CodeInvalidRequest, "message exceeds N
// bytes", with the line's id when its first N bytes hold it: see
// jsonrpc.FrameTooLarge) as soon as the limit is passed, the rest of the
// line is discarded, and the next line is read normally. A line that is not a
// valid message also yields a *jsonrpc.DecodeError, and reading goes on.
// Read returns io.EOF at the end of the input and jsonrpc.ErrClosed after
// Close.
//
// Reads from r happen in one goroutine owned by the connection, started by
// the first Read (or by Push: the connection is a jsonrpc.PushStream,
// which jsonrpc.NewConn prefers), which reads at most one message ahead. So Read returns
// as soon as its context is done or Close is called, even when r blocks,
// as os.Stdin does; a message read but not yet returned is kept for the
// next Read.
//
// Writing. Write encodes the message on one line, leaving "id" out of
// error responses whose id is unknown (MCP's schema has no "id": null),
// and writes it, with its "\n", in a single call to w.Write; if w has a
// Flush() error method, as *bufio.Writer has, it is flushed after each
// such call. Write is safe for concurrent use (the connection is a
// jsonrpc.ConcurrentWriter: it serializes its lines itself). A Write
// blocked in w cannot be interrupted by its context; Close, through
// closer, can. After a failed write the line may be cut, so every later
// Write fails with the same error.
//
// Writing under pipelining. When the connection pushes what it reads (as
// it does under jsonrpc.NewConn) and delivers a message while the input
// already buffered holds another whole line, the messages written from
// then on are held, until the connection would wait for more input, and
// written together in one call to w.Write (and one flush), as a buffered
// hand-written loop would: a client that pipelines calls gets their
// answers in one write rather than one system call each. What is held is
// also written when the reading moves to another goroutine (a call that
// takes long) and once it reaches 64 KiB; so no message is held while the
// connection waits for its peer. A Write that was held returns nil; if
// writing it fails, the next Write reports the failure.
//
// Closing. Close makes a pending Read return and every later Read and
// Write fail with jsonrpc.ErrClosed, and closes closer if it is not nil.
// What is held is written first (waiting at most a second for the peer
// to take it): the engine closes the stream once its answers are written.
// It is idempotent; every call returns the result of the first. Closer
// should be what makes a blocked read of r return, such as the pipe or
// socket r reads from; Close then waits, at most a second, for the reader
// goroutine to end. With a nil closer Close does not wait. Either way, a
// reader goroutine blocked in a read that nothing interrupts (os.Stdin is
// in blocking mode: closing it does not end a pending read) ends when the
// next input or the end of the input arrives, and discards it. That is
// the only goroutine that can outlive Close.
func NewLineConn(r io.Reader, w io.Writer, closer io.Closer, opts *LineOptions) Conn {
	var o LineOptions
	if opts != nil {
		o = *opts
	}
	max := o.Limits.MessageSize()
	size := lineBufferSize
	if max < size-2 {
		size = max + 2 // room for the line ending
	}
	c := &lineConn{
		br:         bufio.NewReaderSize(r, size),
		dec:        jsonrpc.NewDecoder(o.Limits, o.Methods...),
		max:        max,
		items:      make(chan lineItem),
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
		closer:     closer,
		w:          w,
	}
	if f, ok := w.(interface{ Flush() error }); ok {
		c.flush = f.Flush
	}
	if o.Observer != nil {
		name := o.Transport
		if name == "" {
			name = TransportLine
		}
		c.tr = NewFrameTracker(o.Observer, name, "")
	}
	return c
}

// lineConn is the Conn returned by NewLineConn.
type lineConn struct {
	// Read side. br, dec, acc, discard, eof and readErr belong to the
	// reader goroutine; readErr is published by closing readerDone.
	br         *bufio.Reader
	dec        *jsonrpc.Decoder
	max        int
	acc        []byte // scratch for lines longer than br's buffer
	discard    bool   // the rest of an oversized line is still to be skipped
	eof        bool   // the input has ended after the last line returned
	items      chan lineItem
	readErr    error         // why the reader stopped
	readerDone chan struct{} // closed when the reader goroutine has returned
	tr         *FrameTracker // nil without an observer

	mu      sync.Mutex // guards started, closed and push
	started bool       // the reader goroutine has been started
	closed  bool       // Close has been called
	push    *pushState // set by Push (lineconn_push.go); Read fails then

	done      chan struct{} // closed by Close
	closer    io.Closer
	closeOnce sync.Once
	closeErr  error

	// Write side, guarded by wmu.
	wmu   sync.Mutex
	w     io.Writer
	flush func() error
	wbuf  []byte    // the messages held (see hold), then scratch
	since time.Time // when the first message held was written to wbuf
	werr  error     // sticky: a write failed and the line may be cut
	// closing is set, once, when Close starts: from then on nothing more
	// is held (setHold refuses), since the stream may end before the
	// next write. Atomic, so that Close need not wait for wmu, which a
	// write blocked on a peer that stopped reading holds until the
	// closer ends it.
	closing atomic.Bool

	// hold is set when the pushing reader delivers a message while the
	// input buffered holds another whole line, and cleared before a read
	// that can wait for input or when reading is handed off: meanwhile
	// Write leaves its line in wbuf, to be written with the next ones.
	// Set only with wmu held; whoever clears it writes what is held
	// (setHold). Lines are held only while hold is set.
	hold atomic.Bool
}

// lineItem is what the reader goroutine hands to Read: a message or the
// *jsonrpc.DecodeError that replaces it.
type lineItem struct {
	msg jsonrpc.Message
	err error
}

var lineEncoder = jsonrpc.Encoder{OmitNullID: true}

// Read returns the next message; see NewLineConn.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if !c.start() {
		return nil, jsonrpc.ErrClosed
	}
	select {
	case it := <-c.items:
		return it.msg, it.err
	case <-c.readerDone:
		return nil, c.readErr
	case <-c.done:
		return nil, jsonrpc.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// start starts the reader goroutine unless it runs already; it reports
// false if the connection is closed.
func (c *lineConn) start() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.push != nil {
		return false
	}
	if !c.started {
		c.started = true
		go c.readLoop()
	}
	return true
}

// readLoop reads and decodes lines and hands them to Read, one at a time,
// until the input ends, a read fails or the connection is closed.
func (c *lineConn) readLoop() {
	defer close(c.readerDone)
	for {
		frame, err := c.readLine()
		var it lineItem
		switch {
		case err == nil:
			it.msg, it.err = c.dec.Decode(frame)
		case isDecodeError(err):
			it.err = err
		default:
			c.readErr = c.stopped(err)
			return
		}
		if c.tr != nil {
			c.tr.Observe(Received, frame, it.msg, it.err, 0)
		}
		select {
		case c.items <- it:
		case <-c.done:
			c.readErr = jsonrpc.ErrClosed
			return
		}
		if c.br.Buffered() == 0 {
			// The next read blocks this goroutine's thread in a system
			// call. Let the consumer just woken run here first: it would
			// otherwise wait for another thread to wake up and take it.
			runtime.Gosched()
		}
	}
}

// stopped returns the error Read reports after the reader stopped on err.
func (c *lineConn) stopped(err error) error {
	select {
	case <-c.done:
		return jsonrpc.ErrClosed // whatever the read said, we closed it
	default:
	}
	if err == io.EOF {
		return io.EOF
	}
	return fmt.Errorf("transport: reading: %w", err)
}

func isDecodeError(err error) bool {
	_, ok := err.(*jsonrpc.DecodeError)
	return ok
}

// readLine returns the next line that is not blank, without its line
// ending, in a new slice: the message decoded from it will refer to it. An
// oversized line yields a *jsonrpc.DecodeError, with its first max bytes
// when there is an observer to show them to (valid until the next read).
func (c *lineConn) readLine() ([]byte, error) {
	for {
		if c.discard {
			if err := c.skipLine(); err != nil {
				return nil, err
			}
		}
		if c.eof {
			return nil, io.EOF
		}
		line, err := c.readSlice()
		switch {
		case err == bufio.ErrBufferFull:
			frame, err := c.readLong(line)
			if frame == nil && err == nil {
				continue // a long blank line
			}
			return frame, err
		case err == io.EOF && len(line) > 0:
			c.eof = true // a last line without a line ending
		case err != nil:
			return nil, err
		}
		content := trimLineEnding(line)
		if len(content) > c.max {
			return c.partial(content), c.tooLong(content)
		}
		if isBlankLine(content) {
			continue
		}
		frame := make([]byte, len(content))
		copy(frame, content)
		return frame, nil
	}
}

// readSlice is br.ReadSlice('\n'), which writes what Write holds first
// unless the input buffered holds a whole line (the read cannot block).
func (c *lineConn) readSlice() ([]byte, error) {
	if c.hold.Load() && !c.lineBuffered() {
		c.setHold(false)
	}
	return c.br.ReadSlice('\n')
}

// lineBuffered reports whether the input buffered holds a whole line, so
// that reading the next line does not wait for input.
func (c *lineConn) lineBuffered() bool {
	n := c.br.Buffered()
	if n == 0 || c.discard {
		return false
	}
	b, _ := c.br.Peek(n) // buffered already: Peek does not read
	return bytes.IndexByte(b, '\n') >= 0
}

// setHold sets whether Write holds its lines; clearing it writes what is
// held.
func (c *lineConn) setHold(hold bool) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if hold {
		// Set, then look at closing: either Close sees hold set and
		// writes what is held, or this sees closing and clears it.
		c.hold.Store(true)
		if c.closing.Load() {
			c.hold.Store(false) // nothing held yet: wmu is ours
		}
		return
	}
	c.hold.Store(false)
	if len(c.wbuf) > 0 && c.werr == nil {
		c.writeHeldLocked()
	}
}

// readLong assembles a line longer than the read buffer, whose first part
// is first. It returns nil and no error for a blank line.
func (c *lineConn) readLong(first []byte) ([]byte, error) {
	acc := append(c.acc[:0], first...)
	defer func() {
		if cap(acc) <= lineMaxRetained {
			c.acc = acc[:0]
		} else {
			c.acc = nil
		}
	}()
	for {
		// Without its "\n", a line may hold max bytes and a '\r'.
		if len(acc)-1 > c.max {
			c.discard = true
			return c.partial(acc), c.tooLong(acc)
		}
		chunk, err := c.readSlice()
		acc = append(acc, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			c.eof = true
		} else if err != nil {
			return nil, err
		}
		break
	}
	content := trimLineEnding(acc)
	if len(content) > c.max {
		return c.partial(content), c.tooLong(content)
	}
	if isBlankLine(content) {
		return nil, nil
	}
	frame := make([]byte, len(content))
	copy(frame, content)
	return frame, nil
}

// skipLine discards input up to and including the next "\n".
func (c *lineConn) skipLine() error {
	for {
		_, err := c.readSlice()
		switch err {
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			c.eof = true
		case nil:
		default:
			return err
		}
		c.discard = false
		return nil
	}
}

// partial returns the first max bytes of an oversized line for the
// observer, or nil when there is none.
func (c *lineConn) partial(line []byte) []byte {
	if c.tr == nil {
		return nil
	}
	return line[:min(len(line), c.max)]
}

// tooLong returns the error for a line longer than c.max, of which start
// was read: its id, if start holds it, tells which request is refused or
// which call's response it was (jsonrpc.FrameTooLarge).
func (c *lineConn) tooLong(start []byte) error {
	return jsonrpc.FrameTooLarge(start[:min(len(start), c.max)], c.max)
}

// trimLineEnding removes a trailing "\n" or "\r\n", or a "\r" that ends
// the input.
func trimLineEnding(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// isBlankLine reports whether b holds nothing but JSON whitespace.
func isBlankLine(b []byte) bool {
	for _, ch := range b {
		if ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n' {
			return false
		}
	}
	return true
}

// Write sends one message on one line; see NewLineConn.
func (c *lineConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.done:
		return jsonrpc.ErrClosed
	default:
	}
	if c.werr != nil {
		return c.werr
	}
	held := len(c.wbuf) // lines held before this one
	b, err := lineEncoder.Append(c.wbuf, m)
	if err != nil {
		c.wbuf = b[:held]
		return err
	}
	if c.tr != nil {
		c.tr.Observe(Sent, b[held:], m, nil, 0) // before the write: a request is seen before its response
	}
	c.wbuf = append(b, '\n')
	if c.hold.Load() && len(c.wbuf) < lineHoldMax {
		if held == 0 {
			c.since = time.Now()
			return nil
		}
		if time.Since(c.since) < lineHoldFor {
			return nil
		}
	}
	return c.writeHeldLocked()
}

// writeHeldLocked writes wbuf, the lines held and the last one, in one
// call to w.Write. c.wmu is held.
func (c *lineConn) writeHeldLocked() error {
	b := c.wbuf
	if cap(b) <= lineMaxRetained {
		c.wbuf = b[:0]
	} else {
		c.wbuf = nil
	}
	_, err := c.w.Write(b)
	if err == nil && c.flush != nil {
		err = c.flush()
	}
	if err != nil {
		select {
		case <-c.done:
			return jsonrpc.ErrClosed // the write failed because we closed
		default:
		}
		c.werr = fmt.Errorf("transport: writing: %w", err)
		return c.werr
	}
	return nil
}

// writeHeldBeforeClose writes the lines held, if any, before Close ends
// the stream: each was reported written (its Write returned nil), and the
// engine closes the stream once the answers in hand are written. A peer
// that does not take them within lineCloseWait does not hang Close: the
// closer then makes the write fail. From then on nothing is held
// (closing), so a line written before the stream ends is written at
// once, not left behind.
func (c *lineConn) writeHeldBeforeClose() {
	c.closing.Store(true)
	if !c.hold.Load() {
		// Nothing is held, and from now on nothing will be (setHold).
		// Not waiting for wmu: a write blocked on a peer that stopped
		// reading holds it until the closer ends that write.
		return
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		c.setHold(false) // writes what is held
	}()
	t := time.NewTimer(lineCloseWait)
	defer t.Stop()
	select {
	case <-written:
	case <-t.C:
	}
}

// ConcurrentWrites reports true: Write is safe for concurrent use (it
// serializes the lines itself), so the jsonrpc engine need not lock
// around it (jsonrpc.ConcurrentWriter).
func (c *lineConn) ConcurrentWrites() bool { return true }

// Close closes the connection; see NewLineConn.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		started := c.started
		c.mu.Unlock()
		c.writeHeldBeforeClose()
		close(c.done)
		if c.closer == nil {
			return
		}
		c.closeErr = c.closer.Close()
		if errors.Is(c.closeErr, os.ErrClosed) {
			c.closeErr = nil // closed already, by its owner
		}
		if started {
			t := time.NewTimer(lineCloseWait)
			defer t.Stop()
			select {
			case <-c.readerDone:
			case <-t.C:
			}
		}
	})
	c.mu.Lock()
	push := c.push
	c.mu.Unlock()
	if push != nil {
		c.endPush(jsonrpc.ErrClosed) // unless the reader has ended already
	}
	return c.closeErr
}
