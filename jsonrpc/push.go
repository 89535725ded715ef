package jsonrpc

import "time"

// A PushStream is a Stream that can also deliver what it reads by calling
// a function from the goroutine that reads, instead of being read with
// Read. NewConn prefers it: a call that can start at once then runs in
// the reading goroutine, so a small call is read, handled and answered
// with no hand-off between goroutines, as a hand-written loop would do
// it. (Waking another goroutine for each message costs little CPU but
// wakes another thread, which on a busy machine is most of a small call's
// latency.)
//
// Push starts reading and returns at once; it is called at most once, and
// Read is not called then. For each message read, in order, the stream
// calls deliver(m, nil); for a frame that is not a valid message,
// deliver(nil, err) with a *DecodeError; when reading ends (the end of the
// input, a read error, Close), deliver(nil, err) once more with io.EOF,
// ErrClosed or the read error, and never again. Deliveries are made one
// at a time, in one goroutine at a time.
//
// handOff, which Push returns, may be called at any time from any
// goroutine: if a delivery is in progress, the stream goes on reading and
// delivering in a new goroutine, and the goroutine making that delivery
// stops reading when it returns; otherwise handOff does nothing. The
// connection calls it when a call it runs in the reading goroutine lasts
// longer than a moment or waits for the peer, so that the peer's
// cancellations and responses are still read.
type PushStream interface {
	Stream
	Push(deliver func(Message, error)) (handOff func())
}

// handOffAfter is how long a call runs in the reading goroutine of a
// PushStream before reading moves to another goroutine.
const handOffAfter = 100 * time.Microsecond

// startPush makes c take its messages from s.
func (c *Conn) startPush(s PushStream) {
	c.mu.Lock() // deliveries wait for handOff to be set
	c.handOff = s.Push(c.deliver)
	c.mu.Unlock()
}

// deliver takes one delivery of a PushStream (see readLoop for Read).
func (c *Conn) deliver(msg Message, err error) {
	if err != nil {
		if !c.invalidFrame(err) {
			c.readerGone(err)
		}
		return
	}
	n := c.framesIn.Add(1)
	if req, ok := msg.(*Request); ok && req.IsCall() {
		c.receiveCall(req, nil, true)
		return
	}
	c.receive(msg, n)
}

// runInlineLocked runs a call in the reading goroutine of a PushStream,
// which goes on reading elsewhere if the call lasts longer than
// handOffAfter or makes a call of its own. c.mu is held on entry and
// released; ic's context is set.
func (c *Conn) runInlineLocked(ic *incoming) {
	c.inlineGen++
	gen := c.inlineGen
	if c.inlineTimer == nil {
		c.inlineTimer = time.AfterFunc(handOffAfter, c.handOff)
	} else {
		c.inlineTimer.Reset(handOffAfter)
	}
	c.mu.Unlock()
	c.inlineRunning.Add(1)
	resp := c.call(ic)
	c.inlineRunning.Add(-1)
	c.mu.Lock()
	if c.inlineGen == gen {
		// Still the reader's timer: no later call in a new reading
		// goroutine has set it again.
		c.inlineTimer.Stop()
	}
	c.mu.Unlock()
	c.finishCall(ic, resp)
}
