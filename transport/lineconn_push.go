package transport

import (
	"runtime"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A line connection can also push what it reads (jsonrpc.PushStream):
// its reader goroutine decodes each line and hands the message to the
// engine in the same goroutine, so a small call is read, handled and
// answered without waking another goroutine, as a hand-written loop
// would. The engine keeps the reader responsive by handing reading over
// (handOff) to a new goroutine when a call it runs there takes long or
// waits for the peer.

// pushState is the push side of a line connection.
type pushState struct {
	mu      sync.Mutex
	deliver func(jsonrpc.Message, error)
	reader  *pushReader // the goroutine that reads now
	ended   bool        // the final delivery has been made
}

// pushReader is one goroutine's turn at reading; fields guarded by
// pushState.mu.
type pushReader struct {
	delivering bool // in deliver
	handedOff  bool // another goroutine reads now; this one ends after deliver
}

// Push starts reading in a goroutine of the connection and delivering
// each message; see jsonrpc.PushStream. Read fails once Push is called.
func (c *lineConn) Push(deliver func(jsonrpc.Message, error)) (handOff func()) {
	c.mu.Lock()
	if c.started || c.closed {
		c.mu.Unlock()
		go deliver(nil, jsonrpc.ErrClosed)
		return func() {}
	}
	c.started = true
	c.push = &pushState{deliver: deliver, reader: &pushReader{}}
	r := c.push.reader
	c.mu.Unlock()
	go c.pushLoop(r)
	return c.handOff
}

// pushLoop reads and delivers messages until the input ends, a read
// fails, the connection is closed, or reading is handed to another
// goroutine.
func (c *lineConn) pushLoop(r *pushReader) {
	p := c.push
	for {
		frame, err := c.readLine()
		var msg jsonrpc.Message
		switch {
		case err == nil:
			msg, err = c.dec.Decode(frame)
		case isDecodeError(err):
		default:
			c.readErr = c.stopped(err)
			close(c.readerDone)
			c.endPush(c.readErr)
			return
		}
		if c.tr != nil {
			c.tr.Observe(Received, frame, msg, err, 0)
		}
		// Hold what is written while this message is handled if another
		// one is buffered already: it will be written with the answers
		// to those (see NewLineConn). The answer to the last one joins
		// them: what is held is written before the next read that can
		// wait (readSlice), or when this delivery lasts (handOff). This
		// looks at the input buffer, so it comes before delivering is
		// set: from then on handOff may start the next reader.
		if !c.hold.Load() && c.lineBuffered() {
			c.setHold(true)
		}
		p.mu.Lock()
		if p.ended {
			p.mu.Unlock()
			if c.hold.Load() {
				c.setHold(false) // what the last delivery held
			}
			close(c.readerDone)
			return
		}
		r.delivering = true
		p.mu.Unlock()
		p.deliver(msg, err)
		p.mu.Lock()
		r.delivering = false
		gone := r.handedOff
		p.mu.Unlock()
		if gone {
			return
		}
		if req, ok := msg.(*jsonrpc.Request); (!ok || !req.IsCall()) && c.br.Buffered() == 0 {
			// A response or a notification has woken another goroutine
			// (the caller, the dispatcher): as in readLoop, let it run on
			// this thread before the read blocks it. (A call ran here, in
			// the engine, and woke nobody.)
			runtime.Gosched()
		}
	}
}

// handOff makes a new goroutine take over reading if the current reader
// is delivering a message; the current one ends when its delivery
// returns. Otherwise (the reader waits for input) it does nothing.
func (c *lineConn) handOff() {
	p := c.push
	p.mu.Lock()
	r := p.reader
	if p.ended || !r.delivering || r.handedOff {
		p.mu.Unlock()
		return
	}
	r.handedOff = true
	next := &pushReader{}
	p.reader = next
	p.mu.Unlock()
	if c.hold.Load() {
		c.setHold(false) // the delivery lasts: write what it held
	}
	go c.pushLoop(next)
}

// endPush makes the final delivery, once: the error that ended reading.
func (c *lineConn) endPush(err error) {
	p := c.push
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	p.ended = true
	p.mu.Unlock()
	p.deliver(nil, err)
}
