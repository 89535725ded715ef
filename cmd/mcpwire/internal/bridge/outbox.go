package bridge

import (
	"context"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// An outbox holds what a pooled process sends for one request (progress,
// log messages, a listen's notifications) on its way to that request's
// stream. The process's reader (pool.route) puts messages and never
// waits: a process serves many clients, and one that stops reading its
// stream must not stall the others. A goroutine of the outbox's own,
// running while messages wait, writes them to the stream in order, and
// waits on the client as long as the client takes (the handler's write
// timeout). The outbox is bounded, in messages and in bytes: past its
// bound the client is too slow for its request, which is ended (see
// pool.serve); the messages after that are dropped.
type outbox struct {
	w   jsonrpc.Writer
	ctx context.Context

	mu      sync.Mutex
	msgs    []jsonrpc.Message // waiting, oldest first
	size    int               // their bytes, about
	running bool              // the writer goroutine runs
	stopped chan struct{}     // closed when the writer goroutine ends
	over    bool              // the bound was hit
	closed  bool              // nothing is taken any more
}

// put queues m for the stream, within the bounds maxMsgs and maxBytes (a
// single message larger than maxBytes passes when nothing waits). It
// reports whether this message hit the bound; nothing is queued then, or
// after.
func (o *outbox) put(m jsonrpc.Message, maxMsgs, maxBytes int) (hit bool) {
	n := messageSize(m)
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.closed || o.over:
		return false
	case len(o.msgs) >= maxMsgs || (len(o.msgs) > 0 && o.size+n > maxBytes):
		o.over = true
		clear(o.msgs)
		o.msgs, o.size = o.msgs[:0], 0
		return true
	}
	o.msgs = append(o.msgs, m)
	o.size += n
	if !o.running {
		o.running = true
		o.stopped = make(chan struct{})
		go o.run(o.stopped)
	}
	return false
}

// run writes the waiting messages until none waits, or the bound is hit.
func (o *outbox) run(stopped chan struct{}) {
	defer close(stopped)
	var batch []jsonrpc.Message
	for {
		o.mu.Lock()
		if len(o.msgs) == 0 || o.over {
			o.running = false
			o.mu.Unlock()
			return
		}
		batch, o.msgs = o.msgs, batch[:0]
		o.size = 0
		o.mu.Unlock()
		for i, m := range batch {
			if o.overrun() {
				break
			}
			o.w.Write(o.ctx, m) // a failed write (the stream is gone) drops the rest as they come
			batch[i] = nil
		}
	}
}

// overrun reports whether the bound was hit.
func (o *outbox) overrun() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.over
}

// close takes nothing more, and waits until what waits has been written
// (or, after the bound was hit, the write in progress is over): then
// nothing writes to the stream any more. It reports whether the bound
// was hit.
func (o *outbox) close() (over bool) {
	o.mu.Lock()
	o.closed = true
	over = o.over
	stopped := o.stopped
	if !o.running {
		stopped = nil
	}
	o.mu.Unlock()
	if stopped != nil {
		<-stopped
	}
	return over
}

// messageSize is about the bytes of m on the wire.
func messageSize(m jsonrpc.Message) int {
	if r, ok := m.(*jsonrpc.Request); ok {
		return 64 + len(r.Method) + len(r.Params)
	}
	return 64
}
