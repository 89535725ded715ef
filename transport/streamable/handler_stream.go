package streamable

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// A stream is where the messages of one HTTP response go: the answer to a
// POST that carries a call (or a batch), or a legacy session's standalone
// GET stream.
//
// A stream has at most one attached writer at a time: the ResponseWriter
// of the HTTP request that serves it now (the POST itself, or a GET that
// resumed it). The goroutine serving that HTTP request owns the writer; it
// never returns while the writer is attached, and detaches it (release)
// before returning, so that no write happens after its handler returned.
// Other goroutines write through the stream under mu.
//
// A response starts as JSON (nothing is written until the answer is
// known) and becomes SSE at the first message that precedes the answer
// (lazy upgrade). With an event store, a legacy call stream is SSE from
// the start, each event is kept in the store before it is written, and a
// stream without a writer still accepts messages: they wait in the store
// for a GET with Last-Event-ID.
//
// A request stream is also the context its requests are served with: it
// answers CloseStream, and carries the HTTP request's values. The context
// of a legacy stream is never cancelled (a dropped connection is not a
// cancellation); that of a modern stream ends with its HTTP request.
type stream struct {
	context.Context // the HTTP request's context (request streams)

	h        *Handler
	sess     *session                // nil for a modern request
	sid      string                  // the stream's id in the event store; "" without store
	modern   bool                    // a modern request: JSON status codes follow its error
	detached bool                    // the context ignores the cancellation of the parent
	tr       *transport.FrameTracker // shows the frames written; nil without an observer

	mu      sync.Mutex
	w       http.ResponseWriter // the attached writer; nil when none
	rc      *http.ResponseController
	gen     uint64        // counts attachments, so an owner releases only its own
	leave   chan struct{} // closed to make a waiting owner return; nil for an inline owner
	sse     bool          // the attached writer has sent the SSE header
	done    bool          // the final answer was delivered or kept; nothing follows
	keep    *time.Timer   // keepalive, while SSE is attached
	last    time.Time     // the last write
	calls   int           // answers still expected (batches)
	batch   bool          // the stream answers a batch
	resps   []jsonrpc.Message
	pending []pendingMsg // standalone stream: messages waiting for a GET
	dropped bool         // standalone stream: the session forgot it
	final   bool         // the next message kept is the stream's last (a single call's answer)
	ended   bool         // the stream's end is kept in the shared store
}

// A pendingMsg is a message of the standalone stream kept while no GET is
// open, with its event id when there is an event store.
type pendingMsg struct {
	id   string
	data []byte
}

type streamKey struct{}

// Value makes the stream answer CloseStream.
func (st *stream) Value(key any) any {
	if key == (streamKey{}) {
		return st
	}
	return st.Context.Value(key)
}

// Done, Err and Deadline make a legacy stream's context detached from its
// parent's cancellation, as context.WithoutCancel would, without the
// allocations that context.WithoutCancel costs on every Value lookup. A
// context with a nil Done is never linked to its parent by the context
// package, so the contexts derived from it (the handlers') are cancelled
// only by their own cancel functions.
func (st *stream) Done() <-chan struct{} {
	if st.detached {
		return nil
	}
	return st.Context.Done()
}

// Err implements context.Context; see Done.
func (st *stream) Err() error {
	if st.detached {
		return nil
	}
	return st.Context.Err()
}

// Deadline implements context.Context; see Done.
func (st *stream) Deadline() (time.Time, bool) {
	if st.detached {
		return time.Time{}, false
	}
	return st.Context.Deadline()
}

// Write sends a message of the server on the stream (modern requests: the
// server writes a request's notifications here).
func (st *stream) Write(ctx context.Context, m jsonrpc.Message) error {
	bp := getBuf()
	defer putBuf(bp)
	data, err := errEncoder.Append((*bp)[:0], m)
	*bp = data
	if err != nil {
		return err
	}
	return st.send(data)
}

// send delivers one encoded message that precedes the final answer.
func (st *stream) send(data []byte) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return errClosedStream
	}
	return st.deliverLocked(data)
}

// attachLocked makes w the stream's writer and returns the attachment's
// number; sse says whether the SSE header is to be sent now. leave, if
// not nil, is closed when the owner must return.
func (st *stream) attachLocked(w http.ResponseWriter, sse bool, leave chan struct{}) uint64 {
	st.gen++
	st.w = w
	st.leave = leave
	st.sse = false
	if sse {
		st.upgradeLocked()
		st.flushLocked()
	}
	return st.gen
}

// release detaches the writer of attachment gen, if still attached; the
// owner calls it before returning.
func (st *stream) release(gen uint64) {
	st.mu.Lock()
	if st.gen == gen {
		st.detachLocked()
	}
	st.mu.Unlock()
}

// detachLocked drops the attached writer and tells a waiting owner to
// return.
func (st *stream) detachLocked() {
	if st.w == nil {
		return
	}
	st.w, st.rc, st.sse = nil, nil, false
	if st.keep != nil {
		st.keep.Stop()
		st.keep = nil
	}
	if st.leave != nil {
		close(st.leave)
		st.leave = nil
	}
}

// end makes a waiting owner return (the session or handler is closing).
// An inline owner, busy serving the request, finishes on its own.
func (st *stream) end() {
	st.mu.Lock()
	if st.leave != nil {
		st.detachLocked()
	}
	st.mu.Unlock()
}

// upgradeLocked sends the SSE header on the attached writer, then the
// answers of a batch collected so far.
func (st *stream) upgradeLocked() {
	h := st.w.Header()
	h["Content-Type"] = hdrSSE
	h["Cache-Control"] = hdrNoCache
	h["X-Accel-Buffering"] = hdrNo
	st.w.WriteHeader(http.StatusOK)
	st.sse = true
	st.rc = http.NewResponseController(st.w)
	st.last = time.Now()
	if ka := st.h.opts.KeepAlive; ka > 0 {
		st.keep = time.AfterFunc(ka, st.keepalive)
	}
	resps := st.resps
	st.resps = nil
	for _, m := range resps {
		st.writeMessageLocked(m)
	}
}

// deliverLocked keeps an encoded message in the event store, if any, and
// writes it to the attached writer, upgrading a JSON response to SSE. It
// fails only when the message went nowhere.
func (st *stream) deliverLocked(data []byte) error {
	id := st.keepLocked(data)
	if st.w == nil {
		if id != "" {
			return nil // kept for the client's resumption
		}
		return errClosedStream
	}
	if !st.sse {
		st.upgradeLocked()
	}
	if err := st.writeEventLocked(id, data); err != nil && id == "" {
		return err
	}
	return nil
}

// keepLocked appends data to the stream's events in the store, and
// returns the event's id; "" when the stream is not resumable, its session
// has ended, or the store failed (logged).
func (st *stream) keepLocked(data []byte) string {
	if st.sid == "" || st.sess.gone.Load() {
		return ""
	}
	var id string
	var err error
	if st.final && st.h.events != nil {
		// scale-out: the answer and the end of the stream in one round
		// trip to the store, rather than two.
		if id, err = st.h.events.AppendEnd(st, st.sess.id, st.sid, data); err == nil {
			st.ended = true
		}
	} else {
		id, err = st.h.store.Append(st, st.sess.id, st.sid, data)
	}
	if err != nil {
		st.h.log.Warn("streamable: event store append failed", "session", st.sess.id, "error", err)
		return ""
	}
	return id
}

// writeMessageLocked encodes m and writes it as an event.
func (st *stream) writeMessageLocked(m jsonrpc.Message) {
	bp := getBuf()
	data, err := errEncoder.Append((*bp)[:0], m)
	if err == nil {
		st.deliverLocked(data)
	}
	*bp = data
	putBuf(bp)
}

// writeEventLocked writes one SSE event and flushes it; a failed write
// detaches the writer.
func (st *stream) writeEventLocked(id string, data []byte) error {
	if st.w == nil {
		return errClosedStream
	}
	observeSent(st.tr, data, nil, http.StatusOK)
	bp := getBuf()
	b, err := sse.AppendEvent((*bp)[:0], sse.Event{ID: id, Data: data, Retry: -1})
	if err == nil {
		err = st.writeLocked(b)
	}
	*bp = b
	putBuf(bp)
	return err
}

// writeLocked writes raw SSE bytes under the write timeout and flushes.
// The deadline is cleared afterwards: HTTP/2 resets a stream whose write
// deadline passes even when nothing is being written.
func (st *stream) writeLocked(b []byte) error {
	st.rc.SetWriteDeadline(time.Now().Add(st.h.opts.WriteTimeout))
	_, err := st.w.Write(b)
	if err == nil {
		err = st.rc.Flush()
	}
	st.rc.SetWriteDeadline(time.Time{})
	if err != nil {
		st.h.log.Debug("streamable: stream write failed", "error", err)
		st.detachLocked()
		return err
	}
	st.last = time.Now()
	return nil
}

func (st *stream) flushLocked() {
	if st.rc != nil {
		if err := st.rc.Flush(); err != nil {
			st.detachLocked()
		}
	}
}

// keepalive writes a comment on an SSE stream that has been silent for
// the keepalive interval, and re-arms itself.
func (st *stream) keepalive() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.w == nil || !st.sse || st.keep == nil {
		return
	}
	ka := st.h.opts.KeepAlive
	if idle := time.Since(st.last); idle < ka {
		st.keep.Reset(ka - idle)
		return
	}
	if st.writeLocked(keepaliveComment) == nil {
		st.keep.Reset(ka)
	}
}

var keepaliveComment = sse.AppendComment(nil, "keepalive")

// prime starts a resumable stream: the SSE header and a priming event (an
// id, the retry delay, no data), so that the client can resume even
// before the first message. With a shared store the event keeps meta
// (streamMeta).
func (st *stream) primeLocked(meta []byte) {
	st.upgradeLocked()
	var id string
	if st.h.events != nil && st.sid != "" && !st.sess.gone.Load() {
		var err error
		if id, err = st.h.events.Prime(st, st.sess.id, st.sid, meta); err != nil {
			st.h.log.Warn("streamable: event store append failed", "session", st.sess.id, "error", err)
		}
	} else {
		id = st.keepLocked(nil)
	}
	if id == "" {
		st.flushLocked()
		return
	}
	bp := getBuf()
	b, _ := sse.AppendEvent((*bp)[:0], sse.Event{ID: id, Retry: int(st.h.opts.Retry / time.Millisecond)})
	st.writeLocked(b)
	*bp = b
	putBuf(bp)
}

// finish delivers the final answer of a single call (nil when the client
// cancelled it) and ends the stream.
func (st *stream) finish(resp *jsonrpc.Response) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return
	}
	st.done = true
	st.final = !st.batch
	st.finalLocked(resp)
}

// answer records the answer of one call of a batch; the last one ends the
// stream, with one JSON array when nothing was streamed before, and
// answer reports true.
func (st *stream) answer(resp *jsonrpc.Response) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.calls--
	if resp != nil {
		if st.sse || st.sid != "" {
			st.writeMessageLocked(resp)
		} else {
			st.resps = append(st.resps, resp)
		}
	}
	if st.calls > 0 || st.done {
		return false
	}
	st.done = true
	st.finalLocked(nil)
	return true
}

// finalLocked writes the final answer, as JSON when nothing was streamed
// before, and detaches the writer.
func (st *stream) finalLocked(resp *jsonrpc.Response) {
	defer st.detachLocked()
	if st.w != nil && !st.sse {
		switch {
		case st.batch && len(st.resps) > 0:
			st.writeJSONLocked(http.StatusOK, &jsonrpc.Batch{Messages: st.resps})
			st.resps = nil
			return
		case resp != nil:
			status := http.StatusOK
			if st.modern {
				status = modernStatus(resp.Error)
				if resp.Error != nil && resp.Error.Code == jsonrpc.CodeOverloaded {
					st.w.Header()["Retry-After"] = hdrRetryAfter
				}
			}
			st.writeJSONLocked(status, resp)
			return
		}
		// No answer (the call was cancelled): an empty event stream.
		st.upgradeLocked()
		return
	}
	if resp != nil {
		st.writeMessageLocked(resp)
	}
}

// writeJSONLocked writes a JSON response body.
func (st *stream) writeJSONLocked(status int, m jsonrpc.Message) {
	bp := getBuf()
	b, err := errEncoder.Append((*bp)[:0], m)
	if err != nil {
		st.h.log.Error("streamable: a response cannot be encoded", "error", err)
		b = append(b[:0], `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: the response cannot be encoded"}}`...)
	}
	st.w.Header()["Content-Type"] = hdrJSON
	st.w.WriteHeader(status)
	observeSent(st.tr, b, m, status)
	st.w.Write(b)
	*bp = b
	putBuf(bp)
}

// modernStatus is the HTTP status of a modern request's JSON answer
// (2026-07-28 "Errors and HTTP status"): 404 for an unknown or removed
// method, 400 for a header mismatch, a missing client capability or an
// unsupported version; and, beyond the specification, 503 when the server
// refused the request because it serves as many as it allows
// (CodeOverloaded, with Retry-After) or is shutting down
// (CodeConnectionClosed), as for a legacy session refused for the same
// reasons, so that a load balancer can send it elsewhere; 200 otherwise.
func modernStatus(e *jsonrpc.Error) int {
	if e == nil {
		return http.StatusOK
	}
	switch e.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapability, mcp.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	case jsonrpc.CodeOverloaded, jsonrpc.CodeConnectionClosed:
		return http.StatusServiceUnavailable
	}
	return http.StatusOK
}

// wait blocks the owner of an attachment until it must return: the stream
// released it (leave), the client went away, the handler is closing, or
// ended is closed (the end of the session, for a standalone stream, which
// no answer releases).
func (st *stream) wait(ctx context.Context, leave, ended <-chan struct{}) {
	select {
	case <-leave:
	case <-ctx.Done():
	case <-st.h.done:
	case <-ended:
	}
}

// CloseStream closes the SSE stream of the legacy request whose handler
// owns ctx, without ending the request: the client is expected to come
// back with GET and Last-Event-ID (SSE polling, SEP-1699), and everything
// the request sends from now on, its answer included, is kept for it.
// Tools call it to hand a long-running call over to polling.
//
// It works only for legacy requests served by a Handler with an
// EventStore (their streams start with a priming event that tells the
// client how long to wait before polling); it returns false otherwise,
// and for a stream already closed.
func CloseStream(ctx context.Context) bool {
	st, _ := ctx.Value(streamKey{}).(*stream)
	if st == nil || st.sid == "" {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done || st.w == nil {
		return false
	}
	st.detachLocked()
	return true
}
