package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// readLoop reads messages until the stream ends.
func (c *Conn) readLoop() {
	defer c.wg.Done()
	for {
		msg, err := c.stream.Read(c.base)
		if err != nil {
			if c.invalidFrame(err) {
				continue
			}
			c.readerGone(err)
			return
		}
		c.receive(msg, c.framesIn.Add(1))
	}
}

// invalidFrame takes a frame that was not a valid message, if err is a
// *DecodeError, and reports whether it was. A frame meant as the response
// to a waiting call (its id could be read, or it looks like a response
// and only one call waits) fails that call at once with a *FrameError.
// Any other frame is answered with an error, as JSON-RPC asks (unless
// answerInvalid says not), and the calls waiting keep it, to name it if
// they end unanswered (see FrameError).
func (c *Conn) invalidFrame(err error) bool {
	var de *DecodeError
	if !errors.As(err, &de) {
		return false
	}
	c.invalidMessage(de, c.framesIn.Add(1))
	if c.answerInvalid(de) {
		c.send(de.Response())
	}
	return true
}

// answerInvalid is the one rule for answering a frame, or a member of a
// batch, that is not a valid message: a server answers it, as JSON-RPC
// asks, since it may have been a call; a response is never answered, nor
// is anything a client receives (Options.Client), so that two peers
// never answer each other's errors in a loop.
func (c *Conn) answerInvalid(de *DecodeError) bool {
	return !de.IsResponse && !c.opts.Client
}

// invalidMessage takes de, a message that was not valid, the nth frame
// received (the frame itself, or a member of that batch): it fails the
// call it was meant to answer, or is kept by the calls waiting (see
// invalidFrame). Answering it is the caller's job.
func (c *Conn) invalidMessage(de *DecodeError, n int64) {
	var target *Pending
	kept := false
	c.mu.Lock()
	if de.ResponseID.IsValid() {
		target = c.st.pending[de.ResponseID]
	} else if de.IsResponse && len(c.st.pending) == 1 {
		for _, p := range c.st.pending {
			target = p
		}
	}
	if target != nil {
		delete(c.st.pending, target.id)
		c.st.takeInvalid(target.id)
	} else if len(c.st.pending) > 0 && !c.st.invalidKept {
		// Each waiting call keeps the first such frame; once they all
		// have one, a flood of them costs nothing more until a new call
		// starts.
		if c.st.invalid == nil {
			c.st.invalid = make(map[ID]*frameRecord)
		}
		for id, p := range c.st.pending {
			if c.st.invalid[id] == nil {
				c.st.invalid[id] = &frameRecord{n: n, err: de, method: p.method()}
				kept = true
			}
		}
		c.st.invalidKept = true
	}
	c.mu.Unlock()
	level := slog.LevelDebug // a frame no call of ours waited for: the peer's business
	if target != nil || kept {
		level = slog.LevelWarn
	}
	c.log.Log(c.base, level, "jsonrpc: the peer sent a frame that is not a valid message", "frame", n, "error", de.Rule(), "start", strconv.Quote(string(de.Frame)))
	if target != nil {
		target.ch <- delivery{err: &FrameError{Method: target.method(), ID: target.id, N: n, Err: de}}
	}
}

// readerGone records the end of the input: no response can arrive any
// more, so outstanding calls fail now, and the connection drains.
func (c *Conn) readerGone(err error) {
	if errors.Is(err, io.EOF) || errors.Is(err, ErrClosed) {
		err = io.EOF
	}
	c.mu.Lock()
	cause := err
	if c.st.closing {
		cause = c.st.cause // why we closed the stream
	}
	c.failPendingLocked(cause)
	c.mu.Unlock()
	c.shutdown(err)
}

// failPendingLocked fails every outstanding call: the connection ended
// because of cause, and no response can arrive any more.
func (c *Conn) failPendingLocked(cause error) {
	c.st.inputDone = true
	c.broadcastLocked()
	if len(c.st.pending) == 0 {
		return
	}
	closed := closedBy(cause)
	for id, p := range c.st.pending {
		err := closed
		if r := c.st.takeInvalid(id); r != nil {
			err = &FrameError{Method: r.method, ID: id, N: r.n, Err: r.err, Cause: closed}
		}
		p.ch <- delivery{err: err} // buffered, and each call is delivered once
		delete(c.st.pending, id)
	}
	c.st.invalid = nil
}

// receive routes one message read from the stream, the nth frame
// received.
func (c *Conn) receive(msg Message, n int64) {
	switch m := msg.(type) {
	case *Response:
		c.Resolve(m)
	case *Request:
		c.receiveRequest(m, nil)
	case *Batch:
		c.receiveBatch(m, n)
	}
}

func (c *Conn) isBarrier(req *Request) bool {
	return c.opts.Barrier != nil && c.opts.Barrier(req)
}

// receiveRequest takes an incoming call or notification: it is preempted,
// started at once, queued, or refused.
func (c *Conn) receiveRequest(req *Request, batch *batchReply) {
	if !req.IsCall() {
		c.receiveNotification(req)
		return
	}
	c.receiveCall(req, batch, false)
}

// receiveNotification queues a notification, unless it preempts. It
// never waits: the reader must go on reading responses and cancellations
// whatever the handlers do, since a handler may wait for them. A peer
// that gets more than MaxQueuedNotifications ahead of the handlers ends
// the connection.
func (c *Conn) receiveNotification(req *Request) {
	if c.preempter != nil && c.preempter.Preempt(c.base, req) {
		return
	}
	ic := &incoming{conn: c, req: req, barrier: c.isBarrier(req)}
	c.mu.Lock()
	if c.st.closing {
		c.mu.Unlock()
		c.log.Debug("jsonrpc: notification dropped: closing", "method", req.Method)
		return
	}
	if max := c.opts.MaxQueuedNotifications; c.st.queuedNotes >= max {
		c.mu.Unlock()
		err := fmt.Errorf("%w: more than %d are waiting for their handler (Options.MaxQueuedNotifications)", ErrTooManyNotifications, max)
		c.log.Error("jsonrpc: closing the connection: the peer sends notifications faster than they are handled",
			"limit", max, "option", "MaxQueuedNotifications", "method", req.Method)
		c.shutdown(err)
		return
	}
	c.st.noteSeq++
	ic.seq = c.st.noteSeq
	c.enqueueLocked(ic)
	c.mu.Unlock()
}

// receiveCall takes an incoming call: it is started at once, queued, or
// refused. inline says the caller is the reading goroutine of a
// PushStream, where a call that can start at once runs (see push.go).
func (c *Conn) receiveCall(req *Request, batch *batchReply, inline bool) {
	ic := &incoming{conn: c, req: req, batch: batch, barrier: c.isBarrier(req)}
	c.mu.Lock()
	var refuse *Error
	switch {
	case c.st.closing:
		refuse = NewError(CodeConnectionClosed, "Connection closing")
	case c.st.activeGet(req.ID) != nil:
		refuse = Errorf(CodeInvalidRequest, "Invalid Request: id %s is already in use", req.ID)
	case c.st.queuedCalls >= c.opts.MaxQueue:
		refuse = Errorf(CodeOverloaded, "Too many requests: %d are already waiting", c.st.queuedCalls)
	}
	if refuse != nil {
		c.mu.Unlock()
		c.complete(ic, &Response{ID: req.ID, Error: refuse})
		return
	}
	c.st.activeAdd(ic)
	switch {
	case ic.barrier || len(c.st.queue) > 0 || c.st.inline || c.st.running >= c.opts.MaxConcurrency:
		c.enqueueLocked(ic)
	case inline:
		c.st.running++
		ic.Context, ic.cancel = context.WithCancel(c.base)
		c.runInlineLocked(ic)
		return
	default:
		c.st.running++
		c.startLocked(ic)
	}
	c.mu.Unlock()
}

// Calls run in worker goroutines. A worker that has finished a call waits
// a moment for the next one before it ends, at most maxIdleWorkers of
// them at once: a goroutine that has run a call has grown its stack to
// what calls need, and a new goroutine pays for that growth again, which
// costs more than a small call itself.
const (
	maxIdleWorkers = 64
	workerIdle     = time.Second
)

// startLocked runs a call's handler in a worker goroutine: an idle one if
// there is one, else a new one.
func (c *Conn) startLocked(ic *incoming) {
	ic.Context, ic.cancel = context.WithCancel(c.base)
	if c.st.idleWorkers > 0 {
		select {
		case c.work <- ic:
			c.st.idleWorkers--
			return
		default:
			// Every slot holds a call that a waiting worker has not yet
			// taken: start another worker rather than block with mu held.
		}
	}
	c.wg.Add(1)
	go c.worker(ic)
}

// worker runs calls until it has waited workerIdle for one, or the
// connection closes.
func (c *Conn) worker(ic *incoming) {
	defer c.wg.Done()
	var idle *time.Timer
	for ic != nil {
		c.finishCall(ic, c.call(ic))
		ic = c.nextCall(&idle)
	}
	if idle != nil {
		idle.Stop()
	}
}

// nextCall waits for startLocked to hand the worker a call; nil means the
// worker ends. Workers waiting in nextCall are counted in st.idleWorkers,
// calls handed over but not yet received are in c.work, and each waiting
// worker is either counted or has a call waiting for it; so a worker that
// wants to leave and finds the count at zero has a call to take.
func (c *Conn) nextCall(idle **time.Timer) *incoming {
	c.mu.Lock()
	if c.st.closing || c.st.idleWorkers >= maxIdleWorkers {
		c.mu.Unlock()
		return nil
	}
	if c.work == nil {
		c.work = make(chan *incoming, maxIdleWorkers)
	}
	c.st.idleWorkers++
	work := c.work
	closing := c.closingLocked()
	c.mu.Unlock()
	if *idle == nil {
		*idle = time.NewTimer(workerIdle)
	} else {
		(*idle).Reset(workerIdle)
	}
	select {
	case ic := <-work:
		return ic
	case <-closing:
	case <-(*idle).C:
	}
	c.mu.Lock()
	if c.st.idleWorkers > 0 {
		c.st.idleWorkers--
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	return <-work
}

// finishCall records the end of a call's handler and answers it with
// resp, unless the peer cancelled it.
//
// The response is sent before the call stops counting as running, so that
// a drain (at the end of the input, or Close) waits for it to be written.
func (c *Conn) finishCall(ic *incoming, resp *Response) {
	ic.cancel()
	c.mu.Lock()
	if ic.cancelled {
		resp = nil
	}
	c.st.activeDel(ic.req.ID) // the id may be used again at once
	c.mu.Unlock()
	c.complete(ic, resp)
	c.mu.Lock()
	c.st.running--
	c.broadcastLocked()
	c.mu.Unlock()
}

// response builds the response to a call from its handler's outcome.
func (c *Conn) response(id ID, res any, err error) *Response {
	resp, merr := NewResponse(id, res, err)
	if merr != nil {
		c.log.Error("jsonrpc: result cannot be encoded", "id", id.String(), "error", merr)
		resp = &Response{ID: id, Error: Errorf(CodeInternalError, "Internal error: the result cannot be encoded: %v", merr)}
	}
	return resp
}

// complete is the one way out of the engine for an incoming call: every
// call that receiveCall or Serve takes passes here exactly once, whatever
// became of it (answered, refused, cancelled, dropped by a drain), with
// its response, or nil when it gets none (it was cancelled). It delivers
// the response where it goes: the caller of Serve, the batch the call
// belongs to (which is answered when its last call is complete, so a
// call that never got here would leave the batch unanswered), or the
// stream.
func (c *Conn) complete(ic *incoming, resp *Response) {
	switch {
	case ic.direct != nil:
		ic.direct <- resp
	case ic.batch != nil:
		ic.batch.add(c, resp)
	case resp != nil:
		c.send(resp)
	}
}

// send writes a message produced by the engine itself.
func (c *Conn) send(m Message) {
	if err := c.write(sendContext{c}, m); err != nil {
		c.log.Debug("jsonrpc: write failed", "error", err)
	}
}

// enqueueLocked appends ic to the ordered queue and makes sure a
// dispatcher is running. Dispatchers exist only while there is work, so an
// idle connection holds no goroutine for them.
func (c *Conn) enqueueLocked(ic *incoming) {
	c.st.queue = append(c.st.queue, ic)
	if ic.req.IsCall() {
		c.st.queuedCalls++
	} else {
		c.st.queuedNotes++
	}
	if !c.st.dispatching {
		c.st.dispatching = true
		c.wg.Add(1)
		go c.dispatch()
	}
}

// dispatch takes queued messages in arrival order. Calls are started as
// capacity allows; notifications and barriers run here, one at a time.
func (c *Conn) dispatch() {
	defer c.wg.Done()
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.st.queue) > 0 {
		ic := c.st.queue[0]
		// Wait for the capacity ic needs; a cancellation (CancelIncoming
		// broadcasts) or the drain timeout ends the wait. Meanwhile the
		// dispatcher is stalled: a call's handler waiting for queued
		// notifications stops waiting (awaitNotifications), since it
		// may hold the capacity.
		for c.needsCapacityLocked(ic) && !c.st.aborted && !ic.cancelled {
			if !c.st.stalled {
				c.st.stalled = true
				c.broadcastLocked()
			}
			c.waitLocked()
		}
		c.st.stalled = false
		c.st.queue[0] = nil
		c.st.queue = c.st.queue[1:]
		if ic.req.IsCall() {
			c.st.queuedCalls--
		} else {
			c.st.queuedNotes--
		}
		if len(c.st.queue) == 0 {
			c.st.queue = nil
		}
		c.broadcastLocked() // room in the queue
		if ic.cancelled || c.st.aborted {
			// Dropped unanswered: a cancelled call gets no response, a
			// call dropped by the drain is told the connection closed;
			// either way it leaves through complete, so that a batch it
			// belongs to is still answered.
			c.noteDoneLocked(ic)
			if ic.req.IsCall() {
				c.st.activeDel(ic.req.ID)
				var resp *Response
				if !ic.cancelled {
					resp = &Response{ID: ic.req.ID, Error: NewError(CodeConnectionClosed, "Connection closed")}
				}
				c.mu.Unlock()
				c.complete(ic, resp)
				c.mu.Lock()
			}
			continue
		}
		c.st.running++
		if ic.req.IsCall() && !ic.barrier {
			c.startLocked(ic)
			continue
		}
		c.st.inline = true
		c.mu.Unlock()
		if ic.req.IsCall() {
			ic.Context, ic.cancel = context.WithCancel(c.base)
			c.finishCall(ic, c.call(ic))
		} else {
			ic.Context = c.base
			if _, err := c.handle(ic); err != nil {
				c.log.Debug("jsonrpc: notification handler failed", "method", ic.req.Method, "error", err)
			}
			c.mu.Lock()
			c.st.running--
			c.noteDoneLocked(ic)
			c.broadcastLocked()
			c.mu.Unlock()
		}
		c.mu.Lock()
		c.st.inline = false
	}
	c.st.dispatching = false
	c.broadcastLocked()
}

// needsCapacityLocked reports whether the queued ic must wait before it
// starts: a barrier until no call runs, a call until one ends if
// MaxConcurrency are running.
func (c *Conn) needsCapacityLocked(ic *incoming) bool {
	switch {
	case ic.barrier:
		return c.st.running > 0
	case ic.req.IsCall():
		return c.st.running >= c.opts.MaxConcurrency
	}
	return false
}

// noteDoneLocked records that a queued notification has been handled.
func (c *Conn) noteDoneLocked(ic *incoming) {
	if ic.seq > c.st.doneSeq {
		c.st.doneSeq = ic.seq
	}
}

// Serve handles one request received outside the read loop (see
// NewDirectConn), in the caller's goroutine, and returns the response to
// send: nil for a notification or for a call that the peer cancelled.
// ctx is the parent of the handler's context. Calls beyond MaxConcurrency
// are refused with CodeOverloaded; there is no queue and no ordering
// between concurrent Serve calls.
func (c *Conn) Serve(ctx context.Context, req *Request) *Response {
	ic := &incoming{conn: c, req: req, detached: true}
	if !req.IsCall() {
		if c.preempter != nil && c.preempter.Preempt(ctx, req) {
			return nil
		}
	}
	c.mu.Lock()
	var refuse *Error
	switch {
	case c.st.closing:
		refuse = NewError(CodeConnectionClosed, "Connection closing")
	case !req.IsCall():
	case c.st.activeGet(req.ID) != nil:
		refuse = Errorf(CodeInvalidRequest, "Invalid Request: id %s is already in use", req.ID)
	case c.st.running >= c.opts.MaxConcurrency:
		refuse = Errorf(CodeOverloaded, "Too many requests: %d are already running", c.st.running)
	}
	if refuse != nil {
		c.mu.Unlock()
		if !req.IsCall() {
			return nil
		}
		return &Response{ID: req.ID, Error: refuse}
	}
	c.st.running++
	if !req.IsCall() {
		c.mu.Unlock()
		ic.Context = ctx
		if _, err := c.handle(ic); err != nil {
			c.log.Debug("jsonrpc: notification handler failed", "method", req.Method, "error", err)
		}
		c.mu.Lock()
		c.st.running--
		c.broadcastLocked()
		c.mu.Unlock()
		return nil
	}
	ic.Context, ic.cancel = context.WithCancel(ctx)
	ic.direct = make(chan *Response, 1)
	c.st.activeAdd(ic)
	c.mu.Unlock()
	c.finishCall(ic, c.call(ic))
	return <-ic.direct
}

// batchReply gathers the responses to the calls of one incoming batch and
// sends them together when the last call is answered.
type batchReply struct {
	mu      sync.Mutex
	waiting int
	resps   []Message
}

func (b *batchReply) add(c *Conn, resp *Response) {
	b.mu.Lock()
	if resp != nil {
		b.resps = append(b.resps, resp)
	}
	b.waiting--
	var out []Message
	if b.waiting == 0 {
		out = b.resps
	}
	b.mu.Unlock()
	if len(out) > 0 {
		c.send(&Batch{Messages: out})
	}
}

// receiveBatch takes an incoming batch, the nth frame received: it is
// refused as a whole when batches are not accepted; otherwise each member
// is handled as if it had come alone, and the responses go back in one
// array. A member that is not a valid message is taken as an invalid
// frame is (invalidMessage), and answered as one is (answerInvalid).
func (c *Conn) receiveBatch(b *Batch, n int64) {
	if c.opts.AcceptBatch != nil && !c.opts.AcceptBatch() {
		c.send(&Response{Error: NewError(CodeInvalidRequest, "Invalid Request: batches are not accepted in this protocol version")})
		return
	}
	br := &batchReply{}
	if len(b.errs) == len(b.Invalid) {
		for _, de := range b.errs {
			c.invalidMessage(de, n)
			if c.answerInvalid(de) {
				br.resps = append(br.resps, de.Response())
			}
		}
	} else if !c.opts.Client { // a batch made by hand, not by the decoder
		for _, r := range b.Invalid {
			br.resps = append(br.resps, r)
		}
	}
	for _, m := range b.Messages {
		if r, ok := m.(*Request); ok && r.IsCall() {
			br.waiting++
		}
	}
	br.waiting++ // held until every member has been taken
	for _, m := range b.Messages {
		switch m := m.(type) {
		case *Response:
			c.Resolve(m)
		case *Request:
			if m.IsCall() {
				c.receiveRequest(m, br)
			} else {
				c.receiveRequest(m, nil)
			}
		}
	}
	br.add(c, nil)
}

// shutdown starts closing the connection once; cause says why.
func (c *Conn) shutdown(cause error) {
	c.mu.Lock()
	if c.st.closing {
		c.mu.Unlock()
		return
	}
	c.st.closing = true
	c.st.cause = cause
	if c.closing != nil {
		close(c.closing)
	}
	c.broadcastLocked()
	c.mu.Unlock()
	go c.drain()
}

// drain finishes the work in hand within the drain timeout, then cancels
// what is left, stops the reader and releases everything.
func (c *Conn) drain() {
	c.mu.Lock()
	patient := c.st.patient
	c.mu.Unlock()
	var timer *time.Timer
	if !patient { // Shutdown aborts when its context ends (shutdown.go)
		timer = time.AfterFunc(c.opts.DrainTimeout, c.abort)
	}
	c.mu.Lock()
	for (c.st.activeLen() > 0 || len(c.st.queue) > 0 || c.st.running > 0) && !c.st.aborted {
		c.waitLocked()
	}
	var cancels []context.CancelFunc
	c.st.activeEach(func(ic *incoming) {
		if ic.cancel != nil {
			cancels = append(cancels, ic.cancel)
		}
	})
	c.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	for _, cancel := range cancels {
		cancel()
	}
	if c.cancelBase != nil {
		c.cancelBase()
	}
	if c.streamSide != nil {
		c.closeErr = c.stream.Close()
	}
	c.mu.Lock()
	c.failPendingLocked(c.st.cause)
	c.mu.Unlock()
	finished := make(chan struct{})
	go func() { c.wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(c.opts.DrainTimeout):
		c.log.Error("jsonrpc: handlers did not return after their context was cancelled; closing anyway")
	}
	c.mu.Lock()
	c.finished.Store(true)
	if c.done != nil {
		close(c.done)
	}
	c.mu.Unlock()
	if c.opts.OnClosed != nil {
		c.opts.OnClosed(c.Wait())
	}
}
