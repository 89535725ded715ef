package streamable

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// Scale-out: with a store (HandlerOptions.Store, or the server's), the
// handler's legacy sessions are shared with the other instances of the
// server (see package store):
//
//   - initialize records the session in the store; any instance serves
//     its later requests. Each request loads the record (which keeps it
//     for SessionIdleTimeout more), checks its owner, and brings the
//     instance's replica of the session up to date with it (the server
//     session's SyncSession). A session unknown to the store gets 404 on
//     every instance; a store that cannot be reached gets 503.
//   - Every POST stream is resumable, its events in the store's Events
//     (stream ids carry the instance's prefix, so that instances never
//     name two streams alike); a GET with Last-Event-ID on another
//     instance replays the stream and follows it to its end.
//   - The session's messages that relate to no request go to its own
//     stream in the store (store.SessionStream), wherever they are
//     raised; the instance holding the client's GET stream follows it.
//     A new GET starts after the last message delivered on a GET (with
//     the first message kept, when the store has trimmed that one). A
//     stream never goes on past a gap: a GET whose reader falls more than
//     the store's bound of events behind ends after its last event, and
//     its Last-Event-ID then gets 400 (follow).
//   - DELETE forgets the session in the store and tells the other
//     instances (Bus topic closedTopic), which drop their replicas. A
//     replica idle for SessionIdleTimeout is dropped, not the session.

// closedTopic is the Bus topic of the sessions deleted by their client.
const closedTopic = "h"

// A sessionSyncer is a server session that keeps its state in the
// store; the sessions of *server.Server are.
type sessionSyncer interface {
	SyncSession(rec *store.Session)
}

// errStoreUnavailable answers a request that needs the store while it
// cannot be reached.
const storeUnavailable = "Service unavailable: the session store cannot be reached; retry later"

// initShared sets the handler up for a store.
func (h *Handler) initShared(st store.Store) {
	h.shared = st
	h.events = st.Events()
	h.store = h.events
	h.prefix = rand.Text()[:10] + "-"
	h.goTracked(h.heartbeat)
	h.unsub = st.Bus().Subscribe(closedTopic, func(msg []byte) {
		h.mu.Lock()
		s := h.sessions[string(msg)]
		h.mu.Unlock()
		if s != nil {
			s.close("deleted by the client on another instance")
		}
	})
}

// createShared records a new session in the store.
func (h *Handler) createShared(ctx context.Context, id, owner string) error {
	return h.shared.Sessions().Create(ctx, &store.Session{ID: id, Owner: owner}, h.sessionTTL())
}

// A replica renews its session's record in the store at most every
// renewEvery, for sessionTTL: SessionIdleTimeout and renewEvery more, so
// that the record is kept at least SessionIdleTimeout after the last
// request (and at most renewEvery longer), while most requests only read
// it (two Redis commands rather than six).
func (h *Handler) renewEvery() time.Duration     { return h.opts.SessionIdleTimeout / 8 }
func (h *Handler) sessionTTL() time.Duration     { return h.opts.SessionIdleTimeout + h.renewEvery() }
func (s *session) renewedSince(t time.Time) bool { return s.renewed.Load() >= t.UnixNano() }

// acquireShared is acquire with a store: it loads the session's record
// and returns the instance's replica, made if needed and brought up to
// date, with a request counted in it; otherwise it answers 404 (unknown
// session, or another owner's) or 503 (the store is away) and returns
// nil.
func (h *Handler) acquireShared(w http.ResponseWriter, id string, r *http.Request) *session {
	s, _ := h.acquireRecord(w, id, r)
	return s
}

// acquireRecord is acquireShared, which also returns the record.
func (h *Handler) acquireRecord(w http.ResponseWriter, id string, r *http.Request) (*session, *store.Session) {
	now := time.Now()
	ttl := h.sessionTTL()
	h.mu.Lock()
	known := h.sessions[id]
	h.mu.Unlock()
	if known != nil && known.renewedSince(now.Add(-h.renewEvery())) {
		ttl = 0 // renewed here lately: read it only
	}
	rec, err := h.shared.Sessions().Load(r.Context(), id, ttl)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			h.dropReplica(id, "the session ended on another instance")
			writeError(w, http.StatusNotFound, CodeSessionNotFound, "Session not found")
			return nil, nil
		}
		h.log.Warn("streamable: the session store failed", "session", id, "error", err)
		w.Header()["Retry-After"] = hdrRetryAfter
		writeError(w, http.StatusServiceUnavailable, CodeTransportError, storeUnavailable)
		return nil, nil
	}
	if h.opts.SessionOwner != nil && h.opts.SessionOwner(r) != rec.Owner {
		h.log.Debug("streamable: session used by another owner", "remote", r.RemoteAddr)
		writeError(w, http.StatusNotFound, CodeSessionNotFound, "Session not found")
		return nil, nil
	}
	for range 2 { // a replica closing meanwhile is made again once
		s, err := h.replica(id, rec.Owner)
		if err != nil {
			h.log.Debug("streamable: no replica of the session", "session", id, "error", err)
			if errors.Is(err, errTooManySessions) {
				w.Header()["Retry-After"] = hdrRetryAfter
				writeError(w, http.StatusServiceUnavailable, jsonrpc.CodeOverloaded, "Service unavailable: too many sessions; retry later")
			} else {
				writeError(w, http.StatusServiceUnavailable, CodeTransportError, "Service unavailable: the server takes no sessions now")
			}
			return nil, nil
		}
		s.mu.Lock()
		ok := !s.closed
		if ok {
			s.busy++
		}
		s.mu.Unlock()
		if ok {
			if ttl > 0 {
				s.renewed.Store(now.UnixNano())
			}
			if sy, ok := s.ss.(sessionSyncer); ok {
				sy.SyncSession(rec)
			}
			return s, rec
		}
	}
	writeError(w, http.StatusNotFound, CodeSessionNotFound, "Session not found")
	return nil, nil
}

// replica returns the instance's open replica of session id, making one.
func (h *Handler) replica(id, owner string) (*session, error) {
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s != nil {
		select {
		case <-s.ss.Done():
			s.close("the server closed the session")
		default:
			return s, nil
		}
	}
	return h.openSession(id, owner)
}

// dropReplica closes the instance's replica of session id, if any.
func (h *Handler) dropReplica(id, reason string) {
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s != nil {
		s.close(reason)
	}
}

// deleteShared serves DELETE with a store: the session is forgotten
// everywhere.
func (h *Handler) deleteShared(w http.ResponseWriter, r *http.Request, id string) {
	rec, err := h.shared.Sessions().Load(r.Context(), id, 0)
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusNotFound, CodeSessionNotFound, "Session not found")
		return
	case err != nil:
		w.Header()["Retry-After"] = hdrRetryAfter
		writeError(w, http.StatusServiceUnavailable, CodeTransportError, storeUnavailable)
		return
	case h.opts.SessionOwner != nil && h.opts.SessionOwner(r) != rec.Owner:
		writeError(w, http.StatusNotFound, CodeSessionNotFound, "Session not found")
		return
	}
	if err := h.forgetShared(r.Context(), id); err != nil {
		w.Header()["Retry-After"] = hdrRetryAfter
		writeError(w, http.StatusServiceUnavailable, CodeTransportError, storeUnavailable)
		return
	}
	h.dropReplica(id, "deleted by the client")
	w.WriteHeader(http.StatusNoContent)
}

// forgetShared removes a session from the store and tells the other
// instances.
func (h *Handler) forgetShared(ctx context.Context, id string) error {
	if err := h.shared.Sessions().Delete(ctx, id); err != nil {
		return err
	}
	if err := h.events.DeleteSession(ctx, id); err != nil {
		h.log.Warn("streamable: event store cleanup failed", "session", id, "error", err)
	}
	if err := h.shared.Bus().Publish(ctx, closedTopic, []byte(id)); err != nil {
		h.log.Warn("streamable: the other instances were not told of a deleted session", "session", id, "error", err)
	}
	return nil
}

// writeShared puts a message of the session that relates to no request
// on its own stream in the store.
func (s *session) writeShared(ctx context.Context, data []byte) error {
	_, err := s.h.events.Append(context.WithoutCancel(ctx), s.id, store.SessionStream, data)
	return err
}

// Instance liveness: the handler beats in the store under its stream-id
// prefix (store.Instances), every InstanceTTL/5, so that an instance that
// follows a stream another one writes can tell when its writer is gone:
// absent for InstanceTTL/2 at every look, which a live writer, beating
// more often, never is (a store that restarted empty included). The
// follower then ends the stream in the store with an error answering
// each request of the stream (their ids are the meta of its priming
// event), which every follow of the stream delivers, once, before the
// stream's end: the client's call fails with a clear error rather than
// waiting with no end.

// heartbeat beats until the handler closes.
func (h *Handler) heartbeat() {
	every := h.opts.InstanceTTL / 5
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), every)
		err := h.shared.Instances().Beat(ctx, h.prefix, h.opts.InstanceTTL)
		cancel()
		if err != nil {
			h.log.Debug("streamable: heartbeat not kept", "error", err)
		}
		select {
		case <-h.done:
			return
		case <-t.C:
		}
	}
}

// writerOf returns the instance that writes stream sid (the prefix of
// its id), or "".
func writerOf(sid string) string {
	if i := strings.LastIndexByte(sid, '-'); i > 0 {
		return sid[:i+1]
	}
	return ""
}

// streamMeta is what the priming event of a stream keeps with a store:
// the ids of the requests it answers, a JSON array, as many as fit in
// store.MaxMeta. Nil without a store.
func (h *Handler) streamMeta(ids ...jsonrpc.ID) []byte {
	if h.events == nil {
		return nil
	}
	b := []byte{'['}
	for i, id := range ids {
		n := len(b)
		if i > 0 {
			b = append(b, ',')
		}
		if b = id.AppendJSON(b); len(b) >= store.MaxMeta {
			b = b[:n]
			break
		}
	}
	return append(b, ']')
}

// errWriterGone answers the requests of a stream whose writer died.
var errWriterGone = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
	Message: "Internal error: the server instance running this request stopped before answering; it may have been partly carried out"}

// abandon ends stream sid, whose writer is gone, in the store: an error
// answering each of its requests, then its end.
func (h *Handler) abandon(ctx context.Context, s *session, sid string) error {
	var ids []jsonrpc.ID
	meta, err := h.events.Meta(ctx, s.id, sid)
	switch {
	case err == nil:
		if err := json.Unmarshal(meta, &ids); err != nil {
			h.log.Warn("streamable: a stream's meta cannot be read", "session", s.id, "stream", sid, "error", err)
		}
	case !errors.Is(err, store.ErrEventNotFound):
		return err
	}
	h.log.Warn("streamable: a stream's writer is gone; its requests are answered with an error", "session", s.id, "stream", sid, "requests", len(ids))
	if len(ids) == 0 {
		return h.events.End(ctx, s.id, sid) // no request known to answer
	}
	for i, id := range ids {
		data, err := errEncoder.Append(nil, &jsonrpc.Response{ID: id, Error: errWriterGone})
		if err != nil {
			return err
		}
		if i < len(ids)-1 {
			_, err = h.events.Append(ctx, s.id, sid, data)
		} else {
			_, err = h.events.AppendEnd(ctx, s.id, sid, data)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// follow serves a GET that carries on a stream from the store: the
// stream sid after the event after. When last is set, after is the
// client's Last-Event-ID, checked first (400 if the store does not know
// it); otherwise it is the last message of the session's own stream a GET
// delivered ("" for none), and if the store no longer keeps it, the new
// stream begins with the first event kept. own marks the session's own
// stream. It returns when the stream ends, the client goes away, the
// session or the handler closes, and when the store trims events the
// stream has yet to send (the reader fell more than the store's bound of
// events behind): a stream never goes on past a gap (see below).
func (h *Handler) follow(w http.ResponseWriter, r *http.Request, s *session, sid, after string, last, own bool) {
	st := &stream{Context: r.Context(), h: h, sess: s, sid: sid, tr: s.tr}
	leave := make(chan struct{})
	var gen uint64
	attach := func() {
		if gen == 0 {
			gen = st.attachLocked(w, true, leave)
		}
	}
	write := func(id string, data []byte) error {
		st.mu.Lock()
		defer st.mu.Unlock()
		attach()
		if len(data) == 0 {
			return nil // a priming event carries no message
		}
		if err := st.writeEventLocked(id, data); err != nil {
			return err
		}
		if own {
			s.h.noteDelivered(s, id)
		}
		return nil
	}
	if after != "" {
		// The event after must still be kept: a replay checks it, and
		// sends what followed it.
		seen := after
		err := h.events.Replay(r.Context(), s.id, after, func(id string, data []byte) error {
			seen = id
			return write(id, data)
		})
		switch {
		case err == nil || gen != 0:
			after = seen
		case last:
			writeReplayError(w, after, err)
			return
		case errors.Is(err, store.ErrEventNotFound):
			// Messages of the session's own stream raised while no GET was
			// open were trimmed before a GET delivered them. This GET,
			// without Last-Event-ID, begins a new stream: what is kept.
			h.log.Warn("streamable: messages raised while no GET stream was open were trimmed from the event store before delivery",
				"session", s.id)
			after = ""
		}
	}
	st.mu.Lock()
	attach()
	st.mu.Unlock()
	ctx, cancel := context.WithCancel(r.Context())
	watch := make(chan struct{})
	go func() { // ends the follow when the stream, session or handler does
		defer close(watch)
		h.watchFollow(ctx, cancel, s, leave, own, sid)
	}()
	err := h.events.Follow(ctx, s.id, sid, after, write)
	cancel()
	<-watch
	switch {
	case errors.Is(err, store.ErrEventNotFound):
		// The store trimmed events this stream had yet to send. An SSE
		// stream cannot say that messages are missing, and carrying on
		// with the first event kept would pass the gap off as continuity:
		// the stream ends after the last event sent. The client's
		// Last-Event-ID then gets 400 (unknown or expired), which tells
		// it; its new GET carries on with what is kept.
		// As a server that ends a stream should (SEP-1699), it says when
		// to come back.
		h.log.Warn("streamable: a GET stream fell more than the event store's bound of events behind; ended, to be resumed",
			"session", s.id, "stream", sid)
		st.mu.Lock()
		if st.w != nil && st.sse {
			b, _ := sse.AppendEvent(nil, sse.Event{Retry: int(h.opts.Retry / time.Millisecond)})
			st.writeLocked(b)
		}
		st.mu.Unlock()
	case err != nil && !errors.Is(err, context.Canceled):
		h.log.Debug("streamable: following a stream ended", "session", s.id, "stream", sid, "error", err)
	}
	st.release(gen)
}

// watchFollow cancels a follow when its writer is detached (a failed
// write), the session closes or the handler does; for the session's own
// stream it keeps the session alive in the store meanwhile, and for a
// stream another instance writes, it ends the stream when that instance
// is gone (abandon).
func (h *Handler) watchFollow(ctx context.Context, cancel context.CancelFunc, s *session, leave chan struct{}, own bool, sid string) {
	var tick, look <-chan time.Time
	if own {
		t := time.NewTicker(max(h.opts.SessionIdleTimeout/3, 10*time.Millisecond))
		defer t.Stop()
		tick = t.C
	}
	writer := writerOf(sid)
	if !own && writer != "" && writer != h.prefix {
		t := time.NewTicker(h.opts.InstanceTTL / 5)
		defer t.Stop()
		look = t.C
	}
	var absent time.Time // since when the writer has been absent at every look
	for {
		select {
		case <-ctx.Done():
			return
		case <-leave:
		case <-h.done:
		case <-s.ss.Done():
		case now := <-look:
			alive, err := h.shared.Instances().Alive(ctx, writer)
			switch {
			case err != nil || alive:
				absent = time.Time{}
			case absent.IsZero():
				absent = now
			case now.Sub(absent) >= h.opts.InstanceTTL/2:
				if err := h.abandon(ctx, s, sid); err != nil {
					h.log.Debug("streamable: a stream whose writer is gone was not ended", "session", s.id, "stream", sid, "error", err)
					continue // the next look tries again
				}
				look = nil // the follow delivers the errors and the end
			}
			continue
		case <-tick:
			_, err := h.shared.Sessions().Load(ctx, s.id, h.sessionTTL())
			if !errors.Is(err, store.ErrNotFound) {
				continue // kept, or the store is away for now
			}
			s.close("the session ended on another instance")
		}
		cancel()
		return
	}
}

// noteDelivered records the last message of the session's own stream
// that a GET delivered.
func (h *Handler) noteDelivered(s *session, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), h.opts.WriteTimeout)
	defer cancel()
	if err := h.shared.Sessions().Update(ctx, s.id, &store.SessionUpdate{Delivered: id}); err != nil {
		h.log.Debug("streamable: delivery cursor not kept", "session", s.id, "error", err)
	}
}

// standaloneShared serves a GET of a session's own stream with a store,
// after the event last (Last-Event-ID), or else after the last message a
// GET delivered (rec.Delivered). A second GET on this instance while one
// is open gets 409.
func (h *Handler) standaloneShared(w http.ResponseWriter, r *http.Request, s *session, rec *store.Session, last string) {
	s.mu.Lock()
	if s.following && last == "" {
		s.mu.Unlock()
		writeError(w, http.StatusConflict, CodeTransportError, "Conflict: a GET stream is already open for this session")
		return
	}
	s.following = true
	after := rec.Delivered
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.following = false
		s.mu.Unlock()
	}()
	if last != "" {
		after = last
	}
	h.follow(w, r, s, store.SessionStream, after, last != "", true)
}

// getShared serves a GET with a store: the session's own stream, or the
// resumption of a stream with Last-Event-ID, which this instance carries
// on if it writes it, and otherwise follows in the store to its end.
func (h *Handler) getShared(w http.ResponseWriter, r *http.Request, sid string) {
	s, rec := h.acquireRecord(w, sid, r)
	if s == nil {
		return
	}
	defer s.releaseBusy()
	w.Header()[keySessionID] = s.idHeader[:]
	last, _ := header(r, keyLastEventID)
	if last == "" {
		h.standaloneShared(w, r, s, rec, "")
		return
	}
	stream, ok := streamOfEvent(last)
	switch {
	case !ok:
		writeError(w, http.StatusBadRequest, CodeTransportError, "Bad Request: malformed Last-Event-ID "+quote(last))
	case stream == store.SessionStream:
		h.standaloneShared(w, r, s, rec, last)
	case s.resumable(stream) != nil:
		h.resume(w, r, s, last) // written here: take it over
	default:
		h.follow(w, r, s, stream, last, true, false)
	}
}
