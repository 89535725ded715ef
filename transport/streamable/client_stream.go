package streamable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// This file reads SSE streams: the answer to a call, its resumption with
// GET and Last-Event-ID when the stream ends early (legacy era, SEP-1699),
// and the standalone GET stream of a legacy session.

// clientStream is what the client knows of one SSE stream, across the
// HTTP responses that carry it.
type clientStream struct {
	lastID    string        // the id of the last event that had one: where to resume
	retry     time.Duration // the server's last retry delay; negative when none was given
	progress  bool          // an event with an id or a message arrived since the last reset
	messages  int           // messages delivered since the last reset
	decodeErr error         // the last event that was not a valid message
}

// clientStableStream is how long a standalone stream must have lasted for
// its end to count as normal (polling) rather than as a failure.
const clientStableStream = 30 * time.Second

// followStream reads the SSE answer to call, and resumes it when it ends
// before the response.
func (c *ClientConn) followStream(ctx context.Context, call *clientCall, body io.Reader) {
	st := &clientStream{retry: -1}
	answered, err := c.readStream(ctx, body, st, call.id)
	if answered {
		c.drainStream(call, body)
		return
	}
	if c.aborted(ctx) {
		return
	}
	c.resume(ctx, call, st, err)
}

// clientDrainWait bounds the wait for the end of a response stream after
// its response.
const clientDrainWait = time.Second

// clientDrainMax bounds what is read of a response stream after its
// response.
const clientDrainMax = 64 << 10

// drainStream reads the rest of the stream of an answered call, which the
// server ends after the response, so that net/http sees the end of the
// body and keeps the connection: closed before its end, the connection
// is closed too, and the next call dials a new one (about one legacy call
// in ten against the everything-server, each leaving a socket in
// TIME_WAIT). A stream that goes on past clientDrainMax or
// clientDrainWait is closed as before.
func (c *ClientConn) drainStream(call *clientCall, body io.Reader) {
	call.runner.arm(call, clientDrainWait) // aborts the request: the call is answered
	io.CopyN(io.Discard, body, clientDrainMax)
	call.runner.disarm(call)
}

// readStream delivers the messages of an SSE body, skipping events
// without data (priming events) and events of other types. It returns
// when the response to want (if valid) has been delivered, or when the
// body ends: with a nil error when it ended cleanly.
func (c *ClientConn) readStream(ctx context.Context, body io.Reader, st *clientStream, want jsonrpc.ID) (bool, error) {
	max := c.maxMessage()
	if max < int(^uint(0)>>2) {
		max += 4 << 10 // the field names and line breaks around the message
	}
	r := sse.NewReader(body, max)
	defer r.Release()
	for {
		ev, err := r.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return false, err
		}
		if ev.ID != "" {
			st.lastID = ev.ID
			st.progress = true
		}
		if ev.Retry >= 0 {
			st.retry = time.Duration(min(ev.Retry, 24*3600*1000)) * time.Millisecond // capped later anyway
		}
		if len(ev.Data) == 0 || (ev.Name != "" && ev.Name != "message") {
			continue
		}
		st.progress = true
		msg, err := c.t.dec.Decode(ev.Data)
		if c.tr != nil {
			c.tr.Observe(transport.Received, ev.Data, msg, err, http.StatusOK)
		}
		if err != nil {
			st.decodeErr = err
			c.t.log.Info("streamable: dropped an event that is not a valid JSON-RPC message", "error", err)
			continue
		}
		st.messages++
		if c.deliver(ctx, msg, want) {
			return true, nil
		}
	}
}

// resume continues the stream of a legacy call after it ended without
// the response: it waits the server's retry delay, then GETs the
// endpoint with Last-Event-ID, and reads on, as often as the stream ends
// early. Attempts that bring nothing new count as failures, with backoff;
// MaxReconnects consecutive failures give the call up.
func (c *ClientConn) resume(ctx context.Context, call *clientCall, st *clientStream, cause error) {
	switch {
	case errors.Is(cause, sse.ErrTooLarge):
		c.fail(call, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "streamable: the stream of %s (id %s) sent an event over the limit: %v", call.method, call.id, cause).WithCause(cause))
		return
	case call.modern:
		c.fail(call, clientStreamEnded(call, st, cause, "the modern era has no resumption: send the request again"))
		return
	case st.lastID == "":
		c.fail(call, clientStreamEnded(call, st, cause, "it gave no event id to resume from"))
		return
	case c.t.opts.MaxReconnects == 0:
		c.fail(call, clientStreamEnded(call, st, cause, "resumption is disabled"))
		return
	}
	sid := call.session
	if sid == "" {
		sid = c.SessionID() // initialize: its answer brought the session
	}
	failures := 0
	for {
		if !c.sleep(ctx, call.done, c.delay(st.retry, failures)) {
			return
		}
		resp, err := c.openGet(ctx, sid, st.lastID)
		if c.aborted(ctx) {
			if resp != nil {
				resp.Body.Close()
			}
			return
		}
		switch {
		case err != nil:
			cause = err
		case resp.StatusCode == http.StatusOK && sse.IsEventStream(resp.Header.Get("Content-Type")):
			st.progress = false
			var answered bool
			answered, cause = c.readStream(ctx, resp.Body, st, call.id)
			resp.Body.Close()
			if answered || c.aborted(ctx) {
				return
			}
			if errors.Is(cause, sse.ErrTooLarge) {
				c.fail(call, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "streamable: the stream of %s (id %s) sent an event over the limit: %v", call.method, call.id, cause).WithCause(cause))
				return
			}
			if st.progress {
				failures = 0
				continue
			}
		case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
			se := sse.NewStatusError(resp)
			resp.Body.Close()
			cause = se
		default:
			se := sse.NewStatusError(resp)
			resp.Body.Close()
			e := c.errorFromStatus(se, "")
			e.Message = fmt.Sprintf("streamable: resuming the stream of %s (id %s) failed: %s", call.method, call.id, e.Message)
			c.fail(call, e)
			return
		}
		failures++
		if failures > c.t.opts.MaxReconnects {
			c.fail(call, clientStreamEnded(call, st, cause, fmt.Sprintf("%d attempts to resume it failed", failures)))
			return
		}
	}
}

// clientStreamEnded reports a response stream that ended without the
// response. Its cause is the last error (cause), and the last event that
// was not a valid message, if any.
func clientStreamEnded(call *clientCall, st *clientStream, cause error, why string) *jsonrpc.Error {
	msg := fmt.Sprintf("streamable: the response stream of %s (id %s) ended without its response, and %s", call.method, call.id, why)
	if cause != nil {
		msg += "; last error: " + cause.Error()
	}
	if st.decodeErr != nil {
		msg += "; an event was not a valid JSON-RPC message: " + st.decodeErr.Error()
	}
	e := jsonrpc.NewError(jsonrpc.CodeConnectionClosed, msg)
	switch {
	case cause != nil && st.decodeErr != nil:
		return e.WithCause(errors.Join(cause, st.decodeErr))
	case cause != nil:
		return e.WithCause(cause)
	case st.decodeErr != nil:
		return e.WithCause(st.decodeErr)
	}
	return e
}

// delay returns the wait before an attempt to reconnect: the server's
// retry delay (or ReconnectDelay), doubled for each failed attempt
// before, capped at MaxReconnectDelay.
func (c *ClientConn) delay(retry time.Duration, failures int) time.Duration {
	d := retry
	if d < 0 {
		d = c.t.opts.ReconnectDelay
	}
	if failures > 0 {
		d = max(d, 100*time.Millisecond)
		for range min(failures, 16) {
			d *= 2
		}
	}
	return min(d, c.t.opts.MaxReconnectDelay)
}

// sleep waits d; it reports false when ctx or stop ended first.
func (c *ClientConn) sleep(ctx context.Context, stop <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	}
}

// openGet opens an SSE stream of session sid with GET, resuming after
// lastID if it is set, within ConnectTimeout for the headers. The caller
// closes the body of the response.
func (c *ClientConn) openGet(ctx context.Context, sid, lastID string) (*http.Response, error) {
	rctx, cancel := context.WithCancelCause(ctx)
	errTimeout := &clientTimeoutError{fmt.Sprintf("streamable: no answer to GET %s within %v", c.url, c.t.opts.ConnectTimeout)}
	timer := time.AfterFunc(c.t.opts.ConnectTimeout, func() { cancel(errTimeout) })
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, c.url, nil)
	if err != nil {
		timer.Stop()
		cancel(nil)
		return nil, fmt.Errorf("streamable: %w", err)
	}
	c.mu.Lock()
	version := c.version
	c.mu.Unlock()
	c.setHeaders(req.Header, sid, version)
	req.Header["Accept"] = []string{"text/event-stream"}
	if lastID != "" {
		req.Header[hdrKeyLastEventID] = []string{lastID}
	}
	resp, err := c.t.client.Do(req)
	if !timer.Stop() && err == nil {
		resp.Body.Close()
		err = errTimeout
	}
	if err != nil {
		if cause := context.Cause(rctx); cause != nil && ctx.Err() == nil {
			err = cause
		}
		cancel(nil)
		return nil, fmt.Errorf("streamable: GET %s: %w", c.url, err)
	}
	resp.Body = &clientBody{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// clientBody releases the context of its request when closed.
type clientBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b *clientBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// standaloneWait bounds the wait of startStandalone.
const standaloneWait = time.Second

// startStandalone opens the standalone GET stream of legacy session sid,
// once per session, and waits until the server has answered it (for at
// most a second), so that the server has taken the stream before it
// serves the client's next requests: otherwise it may send on this stream
// what belongs to one of them.
func (c *ClientConn) startStandalone(ctx context.Context, sid string) {
	if c.t.opts.DisableStandaloneStream {
		return
	}
	c.mu.Lock()
	if c.done || c.standalone != nil || c.legacy != nil || c.session != sid {
		c.mu.Unlock()
		return
	}
	sctx, cancel := context.WithCancel(c.ctx)
	c.standalone = cancel
	c.wg.Add(1)
	c.mu.Unlock()
	answered := make(chan struct{})
	go c.runStandalone(sctx, sid, answered)
	t := time.NewTimer(min(c.t.opts.ConnectTimeout, standaloneWait))
	defer t.Stop()
	select {
	case <-answered:
	case <-ctx.Done():
	case <-t.C:
	}
}

// runStandalone keeps the standalone stream of session sid open: it
// delivers its messages and reconnects (with Last-Event-ID) when it ends;
// if the server refuses that Last-Event-ID (400: unknown or expired), it
// warns that messages may be lost and opens a new stream without it.
// A server without one (405, or any other 4xx) is left alone; MaxReconnects
// consecutive failures end the attempts. answered is closed once the
// first GET has been answered (or has failed).
func (c *ClientConn) runStandalone(ctx context.Context, sid string, answered chan struct{}) {
	defer c.wg.Done()
	st := &clientStream{retry: -1}
	failures := 0
	for {
		resp, err := c.openGet(ctx, sid, st.lastID)
		if answered != nil {
			close(answered)
			answered = nil
		}
		if ctx.Err() != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return
		}
		switch {
		case err != nil:
			c.t.log.Debug("streamable: the standalone stream failed", "error", err)
			failures++
		case resp.StatusCode == http.StatusOK && sse.IsEventStream(resp.Header.Get("Content-Type")):
			start := time.Now()
			st.messages = 0
			_, err := c.readStream(ctx, resp.Body, st, jsonrpc.ID{})
			resp.Body.Close()
			if ctx.Err() != nil {
				return
			}
			if errors.Is(err, sse.ErrTooLarge) {
				c.t.log.Info("streamable: the standalone stream sent an event over the limit; not reading it any more", "error", err)
				return
			}
			if st.messages > 0 || time.Since(start) >= clientStableStream {
				failures = 0
			} else {
				failures++
			}
		case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
			resp.Body.Close()
			failures++
		case resp.StatusCode == http.StatusBadRequest && st.lastID != "":
			// The server cannot resume after the last event read (it no
			// longer keeps what followed): what it sent meanwhile is lost,
			// which only this refusal tells. A new stream carries on.
			c.t.log.Warn("streamable: the standalone stream cannot be resumed; messages the server sent on it may be lost",
				"lastEventID", st.lastID, "status", resp.Status)
			resp.Body.Close()
			st.lastID = ""
			failures++
		default:
			c.t.log.Debug("streamable: the server offers no standalone stream", "status", resp.Status)
			resp.Body.Close()
			return
		}
		if failures > c.t.opts.MaxReconnects {
			c.t.log.Info("streamable: giving up the standalone stream", "attempts", failures)
			return
		}
		if !c.sleep(ctx, nil, c.delay(st.retry, max(failures-1, 0))) {
			return
		}
	}
}
