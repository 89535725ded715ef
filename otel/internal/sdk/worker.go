package sdk

import (
	"context"
	"sync"
)

// worker is what the batch span processor (batcher) and the periodic
// metric reader (reader) share: the goroutine that exports, which
// forceFlush asks to export now, and the one shutdown that stops it.
type worker struct {
	flushes chan flushRequest
	stop    chan struct{} // closed by shutdown
	done    chan struct{} // closed when the goroutine returns

	// The goroutine's exports end when wctx does, which shutdown cancels
	// when its own context ends.
	wctx    context.Context
	wcancel context.CancelFunc

	once         sync.Once
	shutdownDone chan struct{} // closed when the first shutdown returns
}

// A flushRequest asks the goroutine to export now, within ctx, and to
// send the result on err.
type flushRequest struct {
	ctx context.Context
	err chan error
}

// init makes the channels and wctx; the owner then starts its goroutine.
func (w *worker) init() {
	w.flushes = make(chan flushRequest)
	w.stop = make(chan struct{})
	w.done = make(chan struct{})
	w.shutdownDone = make(chan struct{})
	w.wctx, w.wcancel = context.WithCancel(context.Background())
}

// forceFlush has the goroutine export now, within ctx: ErrShutdown
// once it is stopped.
func (w *worker) forceFlush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req := flushRequest{ctx: ctx, err: make(chan error, 1)}
	select {
	case w.flushes <- req:
	case <-w.stop:
		return ErrShutdown
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-req.err:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// firstShutdown reports whether this is the first call: the caller then
// shuts down, and closes shutdownDone when it is done. A later call waits
// for that, within ctx, and returns false.
func (w *worker) firstShutdown(ctx context.Context) bool {
	first := false
	w.once.Do(func() { first = true })
	if !first {
		select {
		case <-w.shutdownDone:
		case <-ctx.Done():
		}
	}
	return first
}
