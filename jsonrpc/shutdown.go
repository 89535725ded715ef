package jsonrpc

import "context"

// Shutdown closes the connection gracefully, within ctx: like Close, it
// stops taking new requests and lets the calls in hand finish (their
// responses are still sent), but for as long as ctx allows instead of
// Options.DrainTimeout. When ctx ends first, the calls still running are
// cancelled at once and the queued ones are answered CodeConnectionClosed,
// as when the drain timeout passes; handlers that ignore their cancelled
// context are then waited for at most Options.DrainTimeout.
//
// Shutdown returns once the connection has shut down: ctx.Err() if ctx
// ended before the work in hand was done, else what Close returns. It is
// safe to call concurrently with Close and with other Shutdowns; the first
// to end its wait aborts the drain for all. A connection already closing
// for another reason (Close, the end of the input) keeps its drain
// timeout, and Shutdown waits for it or for ctx, whichever ends first.
func (c *Conn) Shutdown(ctx context.Context) error {
	c.mu.Lock()
	if !c.st.closing {
		c.st.patient = true
	}
	c.mu.Unlock()
	c.shutdown(ErrClosed)
	done := c.Done()
	select {
	case <-done:
		return c.closeError()
	case <-ctx.Done():
	}
	c.abort()
	<-done
	return ctx.Err()
}

// abort ends the drain now: running calls are cancelled and queued ones
// dropped.
func (c *Conn) abort() {
	c.mu.Lock()
	c.st.aborted = true
	c.broadcastLocked()
	c.mu.Unlock()
}
