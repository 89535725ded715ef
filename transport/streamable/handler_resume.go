package streamable

import (
	"errors"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// standaloneGET serves the standalone stream of a session: the messages
// of the server that relate to no running request. A second GET while one
// is open gets 409. With last (a Last-Event-ID of this stream, event
// store only) the stream's events after it are replayed first, and the
// new GET takes the stream over from an old one the server still holds.
func (h *Handler) standaloneGET(w http.ResponseWriter, r *http.Request, s *session, last string) {
	st := s.standalone()
	st.mu.Lock()
	var (
		gen   uint64
		leave chan struct{}
	)
	if last == "" {
		if st.w != nil {
			st.mu.Unlock()
			writeError(w, http.StatusConflict, CodeTransportError, "Conflict: a GET stream is already open for this session")
			return
		}
		leave = make(chan struct{})
		gen = st.attachLocked(w, true, leave)
		st.flushPendingLocked()
	} else {
		var err error
		if gen, leave, err = st.replayLocked(w, r, last); err != nil {
			st.mu.Unlock()
			writeReplayError(w, last, err)
			return
		}
		st.pending = nil // the replay delivered them
	}
	st.mu.Unlock()
	if !s.isClosed() {
		st.wait(r.Context(), leave, s.ss.Done())
	}
	st.release(gen)
	s.dropStandalone(st)
	select {
	case <-s.ss.Done(): // the server ended the session: forget it now
		s.close("the server closed the session")
	default:
	}
}

// resume serves a GET with Last-Event-ID: it replays the events of the
// stream that event belongs to, then carries on with the stream if its
// request is still running (its later messages and its answer arrive
// there), taking it over from the connection that had it, if the server
// has not noticed that connection is gone.
func (h *Handler) resume(w http.ResponseWriter, r *http.Request, s *session, last string) {
	sid, ok := streamOfEvent(last)
	if !ok {
		writeError(w, http.StatusBadRequest, CodeTransportError, "Bad Request: malformed Last-Event-ID "+quote(last))
		return
	}
	if sid == standaloneSID {
		h.standaloneGET(w, r, s, last)
		return
	}
	st := s.resumable(sid)
	if st == nil { // finished: the store has all of it
		st = &stream{Context: r.Context(), h: h, sess: s, done: true}
	}
	st.mu.Lock()
	gen, leave, err := st.replayLocked(w, r, last)
	if err != nil {
		st.mu.Unlock()
		writeReplayError(w, last, err)
		return
	}
	done := st.done
	st.mu.Unlock()
	if !done && !s.isClosed() {
		st.wait(r.Context(), leave, nil)
	}
	st.release(gen)
}

// replayLocked writes the stream's events after last to w, attaching w as
// the stream's writer (SSE) at the first event, or after the replay when
// there was none. The current writer, if any, is detached first. It fails
// without attaching when the store does not know last.
func (st *stream) replayLocked(w http.ResponseWriter, r *http.Request, last string) (uint64, chan struct{}, error) {
	leave := make(chan struct{})
	var gen uint64
	attach := func() {
		if gen == 0 {
			st.detachLocked()
			gen = st.attachLocked(w, true, leave)
		}
	}
	err := st.h.store.Replay(r.Context(), st.sess.id, last, func(id string, data []byte) error {
		attach()
		if len(data) == 0 {
			return nil // a priming event carries no message
		}
		return st.writeEventLocked(id, data)
	})
	if err != nil {
		if gen == 0 {
			return 0, nil, err
		}
		st.h.log.Debug("streamable: replay interrupted", "session", st.sess.id, "error", err)
	}
	attach()
	return gen, leave, nil
}

// writeReplayError answers a GET whose Last-Event-ID could not be
// replayed: 400 when the store does not know it (never issued, or
// expired), 500 when the store failed.
func writeReplayError(w http.ResponseWriter, last string, err error) {
	if errors.Is(err, ErrEventNotFound) {
		writeError(w, http.StatusBadRequest, CodeTransportError,
			"Bad Request: Last-Event-ID "+quote(last)+" is unknown or has expired; open a new stream without it")
		return
	}
	writeError(w, http.StatusInternalServerError, jsonrpc.CodeInternalError, "Internal error: the event store failed")
}

// streamOfEvent returns the id of the stream an event id belongs to: the
// text before its last underscore (see EventStore).
func streamOfEvent(id string) (string, bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 {
		return "", false
	}
	return id[:i], true
}

// isClosed reports whether the session has ended.
func (s *session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
