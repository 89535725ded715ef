package streamable

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// A session is one legacy (2025-03-26 to 2025-11-25) session. It holds no
// goroutine and, while idle, no stream: streams exist only while a POST
// or GET is open (or while the standalone stream keeps messages for the
// next GET). It is the jsonrpc.Writer of its server session and routes
// each message the server sends to the stream of the request it relates
// to (jsonrpc.IncomingID), or else to the standalone stream.
type session struct {
	h         *Handler
	id        string
	idHeader  [1]string // {id}, the value of the Mcp-Session-Id response header (idHeader[:])
	owner     string    // HandlerOptions.SessionOwner of the initialize request
	ss        transport.ServerSession
	renewed   atomic.Int64 // with a store: when this replica last renewed the record (Unix ns)
	gone      atomic.Bool  // closed: nothing is written or kept for it any more
	mu        sync.Mutex   // guards the fields below
	busy      int32        // POSTs and GETs in progress
	closed    bool
	forget    bool          // with a store: closing ends the session everywhere, not this replica only
	following bool          // with a store: a GET of its own stream is open here
	collected bool          // closed and its streams collected
	lastUsed  time.Duration // the end of the last request, on the monotonic clock (since clockBase)
	nextSID   uint64        // the last stream id given out (event store)
	call0     callEntry     // the first running call, inline: most sessions run one at a time
	calls     []callEntry
	byStream  map[string]*stream      // resumable streams by stream id (event store)
	stand     *stream                 // the standalone stream; nil when neither open nor holding messages
	tr        *transport.FrameTracker // the frames of the session; nil without an observer
}

// clockBase is the origin of session.lastUsed: a duration since it is
// monotonic, as time.Time is, in 8 bytes instead of 24.
var clockBase = time.Now()

// A callEntry maps the id of a running call to the stream of its POST.
type callEntry struct {
	id jsonrpc.ID
	st *stream
}

// standaloneSID is the stream id of a session's standalone stream in the
// event store; POST streams are numbered from 1.
const standaloneSID = "0"

var (
	errTooManySessions = errors.New("too many sessions")
	errHandlerClosed   = errors.New("the handler is closed")
	errDuplicateID     = errors.New("duplicate request id")
	errSessionClosed   = errors.New("session closed")
	errServerRefused   = errors.New("the server refused a new session")
	errStoreDown       = errors.New("the session store cannot be reached")
)

// newSession opens a legacy session with a fresh id, owned by owner.
func (h *Handler) newSession(owner string) (*session, error) {
	h.mu.Lock()
	switch {
	case h.closed:
		h.mu.Unlock()
		return nil, errHandlerClosed
	case len(h.sessions) >= h.opts.MaxSessions:
		h.mu.Unlock()
		return nil, errTooManySessions
	}
	h.mu.Unlock()
	id := rand.Text() // 26 characters of base32: 130 bits, visible ASCII
	created := time.Now()
	if h.shared != nil { // scale-out: (handler_shared.go)
		if err := h.createShared(context.Background(), id, owner); err != nil {
			return nil, fmt.Errorf("%w: %w", errStoreDown, err)
		}
	}
	s, err := h.openSession(id, owner)
	if h.shared != nil {
		if err != nil {
			h.forgetShared(context.Background(), id)
		} else {
			s.renewed.Store(created.UnixNano())
		}
	}
	return s, err
}

// openSession opens the server's side of session id and registers it;
// with a store, a replica of a session another instance may have opened.
func (h *Handler) openSession(id, owner string) (*session, error) {
	s := &session{h: h, id: id, idHeader: [1]string{id}, owner: owner, lastUsed: time.Since(clockBase)}
	s.tr = transport.NewFrameTracker(h.opts.Observer, transport.TransportStreamable, id)
	ss, err := h.srv.Open(context.Background(), id, s)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errServerRefused, err)
	}
	s.ss = ss
	h.mu.Lock()
	if h.closed || len(h.sessions) >= h.opts.MaxSessions {
		h.mu.Unlock()
		s.ss.Close()
		return nil, errTooManySessions
	}
	if other := h.sessions[id]; other != nil && !other.isClosed() {
		h.mu.Unlock() // a replica made meanwhile by another request
		s.ss.Close()
		return other, nil
	}
	h.sessions[id] = s
	if !h.janitorOn {
		h.janitorOn = true
		h.goLocked(h.janitor)
	}
	h.mu.Unlock()
	return s, nil
}

// acquire returns the open session id, if r may use it, and counts a
// request in it (releaseBusy ends it); otherwise it answers 404 and
// returns nil.
func (h *Handler) acquire(w http.ResponseWriter, id string, r *http.Request) *session {
	if h.shared != nil {
		return h.acquireShared(w, id, r) // scale-out: (handler_shared.go)
	}
	s := h.lookup(id, r)
	ok := s != nil
	if ok {
		s.mu.Lock()
		if ok = !s.closed; ok {
			s.busy++
		}
		s.mu.Unlock()
	}
	if !ok {
		writeError(w, http.StatusNotFound, CodeSessionNotFound, "Session not found")
		return nil
	}
	return s
}

// lookup returns the open session id, or nil when there is none or r
// comes from another owner than the session's (HandlerOptions.SessionOwner):
// the two cases are one to the caller, who answers 404 either way.
func (h *Handler) lookup(id string, r *http.Request) *session {
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil {
		return nil
	}
	if h.opts.SessionOwner != nil && h.opts.SessionOwner(r) != s.owner {
		h.log.Debug("streamable: session used by another owner", "remote", r.RemoteAddr)
		return nil
	}
	if s.serverEnded() {
		s.close("the server closed the session")
		return nil
	}
	return s
}

// An ender is a transport.ServerSession that can say whether it has
// ended without a channel (server.Server's sessions can): the handler
// asks every session it looks up or sweeps, and Done would make each
// idle session keep a channel.
type ender interface{ Ended() bool }

// serverEnded reports whether the server ended the session.
func (s *session) serverEnded() bool {
	if e, ok := s.ss.(ender); ok {
		return e.Ended()
	}
	select {
	case <-s.ss.Done():
		return true
	default:
		return false
	}
}

// releaseBusy ends a request counted by acquire.
func (s *session) releaseBusy() {
	now := time.Since(clockBase)
	s.mu.Lock()
	s.busy--
	s.lastUsed = now
	s.mu.Unlock()
}

// end closes the session for good: with a store, on every instance (a
// plain close drops this instance's replica only).
func (s *session) end(reason string) {
	s.mu.Lock()
	s.forget = true
	s.mu.Unlock()
	s.close(reason)
}

// close ends the session: it is forgotten at once (later requests get
// 404), its waiting streams are released, and the server session is
// closed in the background (it lets running calls finish for a while).
func (s *session) close(reason string) {
	s.mu.Lock()
	if s.collected {
		s.mu.Unlock()
		return
	}
	s.closed, s.collected = true, true
	s.gone.Store(true)
	streams := s.streamsLocked()
	s.mu.Unlock()
	s.teardown(reason, streams)
}

// expire closes the session if it has been idle since before deadline.
func (s *session) expire(deadline time.Time) {
	s.mu.Lock()
	if s.collected || s.busy > 0 || s.lastUsed > deadline.Sub(clockBase) {
		s.mu.Unlock()
		return
	}
	s.closed, s.collected = true, true
	s.gone.Store(true)
	streams := s.streamsLocked()
	s.mu.Unlock()
	s.teardown("idle for "+s.h.opts.SessionIdleTimeout.String(), streams)
}

func (s *session) streamsLocked() []*stream {
	var list []*stream
	if s.call0.st != nil {
		list = append(list, s.call0.st)
	}
	for _, c := range s.calls {
		list = append(list, c.st)
	}
	if s.stand != nil {
		list = append(list, s.stand)
	}
	return list
}

func (s *session) teardown(reason string, streams []*stream) {
	h := s.h
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
	}
	s.mu.Lock()
	forget := s.forget
	s.mu.Unlock()
	h.goLocked(func() {
		s.ss.Close()
		if h.shared != nil { // scale-out: a replica leaves the session to the others
			if forget {
				h.forgetShared(context.Background(), s.id)
			}
			return
		}
		if h.store != nil {
			if err := h.store.DeleteSession(context.Background(), s.id); err != nil {
				h.log.Warn("streamable: event store cleanup failed", "session", s.id, "error", err)
			}
		}
	})
	h.mu.Unlock()
	h.log.Debug("streamable: session closed", "session", s.id, "reason", reason)
	for _, st := range streams {
		st.end()
	}
}

// register records st as the stream of the running call id.
func (s *session) register(id jsonrpc.ID, st *stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errSessionClosed
	}
	if s.call0.st != nil && s.call0.id == id {
		return errDuplicateID
	}
	for _, c := range s.calls {
		if c.id == id {
			return errDuplicateID
		}
	}
	if s.call0.st == nil {
		s.call0 = callEntry{id, st}
	} else {
		s.calls = append(s.calls, callEntry{id, st})
	}
	return nil
}

// unregister forgets the stream of the call id.
func (s *session) unregister(id jsonrpc.ID, st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call0.st == st && s.call0.id == id {
		s.call0 = callEntry{}
		if n := len(s.calls); n > 0 {
			s.call0 = s.calls[n-1]
			s.calls[n-1] = callEntry{}
			s.calls = s.calls[:n-1]
		}
	} else {
		for i, c := range s.calls {
			if c.st == st && c.id == id {
				last := len(s.calls) - 1
				s.calls[i] = s.calls[last]
				s.calls[last] = callEntry{}
				s.calls = s.calls[:last]
				break
			}
		}
	}
	if len(s.calls) == 0 {
		s.calls = nil
	}
}

// callStream returns the stream of the running call id, or nil.
func (s *session) callStream(id jsonrpc.ID) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call0.st != nil && s.call0.id == id {
		return s.call0.st
	}
	for _, c := range s.calls {
		if c.id == id {
			return c.st
		}
	}
	return nil
}

// addResumable gives st the id of a new resumable stream of the session
// and records it under that id.
func (s *session) addResumable(st *stream) {
	s.mu.Lock()
	s.nextSID++
	st.sid = s.h.prefix + strconv.FormatUint(s.nextSID, 10)
	if s.byStream == nil {
		s.byStream = make(map[string]*stream)
	}
	s.byStream[st.sid] = st
	s.mu.Unlock()
}

// dropResumable forgets a finished resumable stream; its events stay in
// the store for late resumptions.
func (s *session) dropResumable(st *stream) {
	s.mu.Lock()
	delete(s.byStream, st.sid)
	if len(s.byStream) == 0 {
		s.byStream = nil
	}
	s.mu.Unlock()
	st.mu.Lock()
	ended := st.ended // with the answer (stream.keepLocked)
	st.mu.Unlock()
	if s.h.events != nil && !ended && !s.gone.Load() { // followers on other instances stop here
		if err := s.h.events.End(context.Background(), s.id, st.sid); err != nil {
			s.h.log.Warn("streamable: event store: the end of a stream was not kept", "session", s.id, "error", err)
		}
	}
}

// resumable returns the running stream sid, or nil.
func (s *session) resumable(sid string) *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byStream[sid]
}

// Write sends a message of the server on the right stream: the stream of
// the call it relates to while that call's stream can take it, else the
// standalone stream. A response is never sent on the standalone stream.
func (s *session) Write(ctx context.Context, m jsonrpc.Message) error {
	if s.gone.Load() {
		return errClosedStream
	}
	bp := getBuf()
	defer putBuf(bp)
	data, err := errEncoder.Append((*bp)[:0], m)
	*bp = data
	if err != nil {
		return err
	}
	_, isResp := m.(*jsonrpc.Response)
	if id, ok := jsonrpc.IncomingID(ctx); ok {
		if st := s.callStream(id); st != nil {
			if err := st.send(data); err == nil || isResp {
				return err
			}
		}
	}
	if isResp {
		s.h.log.Debug("streamable: response without a stream dropped", "session", s.id)
		return errClosedStream
	}
	if s.h.shared != nil {
		return s.writeShared(ctx, data) // scale-out: (handler_shared.go)
	}
	for !s.standalone().sendStandalone(data) {
		// The stream was dropped meanwhile; the next one takes it.
	}
	return nil
}

// standalone returns the session's standalone stream, creating it.
func (s *session) standalone() *stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stand == nil {
		s.stand = &stream{Context: context.Background(), h: s.h, sess: s, tr: s.tr}
		if s.h.store != nil {
			s.stand.sid = standaloneSID
		}
	}
	return s.stand
}

// dropStandalone forgets the standalone stream when it has no GET and
// holds no message, so that an idle session keeps no stream.
func (s *session) dropStandalone(st *stream) {
	s.mu.Lock()
	st.mu.Lock()
	if s.stand == st && st.w == nil && len(st.pending) == 0 {
		s.stand = nil
		st.dropped = true
	}
	st.mu.Unlock()
	s.mu.Unlock()
}

// sendStandalone writes a message on the standalone stream, or keeps it
// for the next GET (the oldest kept message is dropped beyond the bound).
// It returns false, doing nothing, if the session dropped the stream.
func (st *stream) sendStandalone(data []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dropped {
		return false
	}
	id := st.keepLocked(data)
	if st.w != nil && st.writeEventLocked(id, data) == nil {
		return true
	}
	if len(st.pending) >= st.h.opts.MaxPendingMessages {
		st.h.log.Warn("streamable: no GET stream open; oldest pending message dropped",
			"session", st.sess.id, "kept", len(st.pending))
		copy(st.pending, st.pending[1:])
		st.pending[len(st.pending)-1] = pendingMsg{}
		st.pending = st.pending[:len(st.pending)-1]
	}
	st.pending = append(st.pending, pendingMsg{id: id, data: append([]byte(nil), data...)})
	return true
}

// flushPendingLocked writes the messages kept for the GET just attached.
func (st *stream) flushPendingLocked() {
	for len(st.pending) > 0 && st.w != nil {
		p := st.pending[0]
		if st.writeEventLocked(p.id, p.data) != nil {
			return
		}
		st.pending[0] = pendingMsg{}
		st.pending = st.pending[1:]
	}
	if len(st.pending) == 0 {
		st.pending = nil
	}
}

// janitor closes idle sessions and those the server ended, until the
// handler closes.
func (h *Handler) janitor() {
	period := h.opts.SessionIdleTimeout / 4
	period = min(max(period, 10*time.Millisecond), time.Minute)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case now := <-t.C:
			h.sweep(now)
		}
	}
}

// sweep closes the sessions idle since before now minus the idle timeout.
func (h *Handler) sweep(now time.Time) {
	h.mu.Lock()
	list := make([]*session, 0, len(h.sessions))
	for _, s := range h.sessions {
		list = append(list, s)
	}
	h.mu.Unlock()
	deadline := now.Add(-h.opts.SessionIdleTimeout)
	for _, s := range list {
		if s.serverEnded() {
			s.close("the server closed the session")
			continue
		}
		s.expire(deadline)
	}
}

// goLocked runs f in a goroutine that Shutdown waits for; h.mu is held,
// so that the goroutine is counted before Shutdown can see h.closed.
func (h *Handler) goLocked(f func()) { h.running.Go(f) }

// goTracked is goLocked for callers that do not hold h.mu.
func (h *Handler) goTracked(f func()) {
	h.mu.Lock()
	h.goLocked(f)
	h.mu.Unlock()
}
