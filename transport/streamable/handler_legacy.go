package streamable

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// legacyVersion checks the MCP-Protocol-Version header of a legacy
// request: any revision the handler accepts will do (clients do not
// always send the negotiated one); without the header 2025-03-26 is
// assumed, as the specification says. An unsupported version gets 400
// and ok is false.
func (h *Handler) legacyVersion(w http.ResponseWriter, hv string, hasHV bool) (v mcp.Version, ok bool) {
	if !hasHV {
		return mcp.Version20250326, true
	}
	if !h.accepts(hv) {
		e := mcp.UnsupportedVersionError(hv, append([]mcp.Version{}, h.versions...))
		e.Message = "Bad Request: unsupported MCP-Protocol-Version " + quote(hv)
		writeResponse(w, http.StatusBadRequest, &jsonrpc.Response{Error: e})
		return "", false
	}
	return mcp.Version(hv), true
}

// postLegacy serves a POST of the stateful era: initialize opens a
// session; everything else needs one.
func (h *Handler) postLegacy(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message, hv string, hasHV bool) {
	version, ok := h.legacyVersion(w, hv, hasHV)
	if !ok {
		return
	}
	sid, _ := header(r, keySessionID)
	if sid == "" {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method == mcp.MethodInitialize {
			h.initialize(w, r, req)
			return
		}
		writeError(w, http.StatusBadRequest, CodeTransportError, "Bad Request: the Mcp-Session-Id header is required; send initialize first")
		return
	}
	s := h.acquire(w, sid, r)
	if s == nil {
		return
	}
	defer s.releaseBusy()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if !s.ss.Resolve(m) {
			h.log.Debug("streamable: response to no pending request", "session", s.id, "id", m.ID.String())
		}
		w.WriteHeader(http.StatusAccepted)
	case *jsonrpc.Request:
		if !m.IsCall() {
			s.ss.Serve(context.WithoutCancel(r.Context()), m)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		h.call(w, r, s, m, false)
	case *jsonrpc.Batch:
		if !mcp.AllowsBatch(version) {
			writeError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest,
				"Invalid Request: JSON-RPC batches exist only in protocol version 2025-03-26")
			return
		}
		h.batch(w, r, s, m)
	}
}

// initialize opens a session for an initialize request and serves it
// there; the session is closed again if initialize fails.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	var owner string
	if h.opts.SessionOwner != nil {
		owner = h.opts.SessionOwner(r)
	}
	s, err := h.newSession(owner)
	if err != nil {
		if errors.Is(err, errTooManySessions) {
			w.Header().Set("Retry-After", "10")
			writeError(w, http.StatusServiceUnavailable, jsonrpc.CodeOverloaded, "Service unavailable: too many sessions; retry later")
			return
		}
		if errors.Is(err, errStoreDown) {
			h.log.Warn("streamable: no new session", "error", err)
			w.Header()["Retry-After"] = hdrRetryAfter
			writeError(w, http.StatusServiceUnavailable, CodeTransportError, storeUnavailable)
			return
		}
		h.log.Debug("streamable: no new session", "error", err)
		writeError(w, http.StatusServiceUnavailable, CodeTransportError, "Service unavailable: the server is shutting down")
		return
	}
	s.mu.Lock()
	s.busy++
	s.mu.Unlock()
	defer s.releaseBusy()
	h.call(w, r, s, req, true)
}

// call serves one call of a legacy session. Without an event store it
// runs in the POST's goroutine, and the response is JSON unless a message
// of the call comes first. With a store, the response is an SSE stream
// that starts with a priming event; the call runs in a goroutine of the
// handler, so that the stream can be closed (by the client, or by
// CloseStream) while the call goes on, its messages kept for resumption.
// Either way a dropped connection does not cancel the call.
func (h *Handler) call(w http.ResponseWriter, r *http.Request, s *session, req *jsonrpc.Request, initialize bool) {
	st := &stream{Context: r.Context(), detached: true, h: h, sess: s, tr: trackerOf(w)}
	w.Header()[keySessionID] = s.idHeader[:]
	if err := s.register(req.ID, st); err != nil {
		if errors.Is(err, errSessionClosed) {
			writeError(w, http.StatusNotFound, CodeSessionNotFound, "Session not found")
			return
		}
		writeResponse(w, http.StatusBadRequest, &jsonrpc.Response{ID: req.ID,
			Error: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: id %s is already in use by a running request", req.ID)})
		return
	}
	if h.store == nil {
		st.mu.Lock()
		gen := st.attachLocked(w, false, nil)
		st.mu.Unlock()
		resp := s.ss.Serve(st, req)
		if initialize && failedInit(resp) {
			delete(w.Header(), keySessionID) // no session was opened
		}
		s.answered(st, req, resp, initialize)
		st.release(gen)
		return
	}
	s.addResumable(st)
	leave := make(chan struct{})
	st.mu.Lock()
	gen := st.attachLocked(w, false, leave)
	st.primeLocked(h.streamMeta(req.ID))
	st.mu.Unlock()
	s.hold()
	h.goTracked(func() {
		defer s.releaseBusy()
		s.answered(st, req, s.ss.Serve(st, req), initialize)
		s.dropResumable(st)
	})
	st.wait(r.Context(), leave, nil)
	st.release(gen)
}

// answered forgets the stream of a call whose handler has returned, then
// delivers its answer there; a failed initialize closes the session it
// opened.
//
// The id is released first, as the jsonrpc engine releases it: the id is
// free once the answer is sent, and a client that reuses it as soon as it
// has read the answer (a flushed SSE event reaches it before this
// goroutine goes on) must not find it still in use.
func (s *session) answered(st *stream, req *jsonrpc.Request, resp *jsonrpc.Response, initialize bool) {
	s.unregister(req.ID, st)
	st.finish(resp)
	if initialize && failedInit(resp) {
		s.end("initialize failed")
	}
}

// failedInit reports whether the answer to initialize is not a result.
func failedInit(resp *jsonrpc.Response) bool {
	return resp == nil || resp.Error != nil
}

// batch serves a JSON-RPC batch (2025-03-26): responses and notifications
// in order, then the calls concurrently, each in a goroutine of the
// handler. The answers go back as one JSON array, or as SSE events once
// a message of a call (or the event store) made the response a stream.
func (h *Handler) batch(w http.ResponseWriter, r *http.Request, s *session, b *jsonrpc.Batch) {
	var calls []*jsonrpc.Request
	for _, m := range b.Messages {
		switch m := m.(type) {
		case *jsonrpc.Response:
			s.ss.Resolve(m)
		case *jsonrpc.Request:
			if m.IsCall() {
				calls = append(calls, m)
			} else {
				s.ss.Serve(context.WithoutCancel(r.Context()), m)
			}
		}
	}
	if len(calls) == 0 && len(b.Invalid) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	st := &stream{Context: r.Context(), detached: true, h: h, sess: s, batch: true, tr: trackerOf(w)}
	w.Header()[keySessionID] = s.idHeader[:]
	answers := append([]*jsonrpc.Response(nil), b.Invalid...)
	var run []*jsonrpc.Request
	for _, c := range calls {
		if err := s.register(c.ID, st); err != nil {
			answers = append(answers, &jsonrpc.Response{ID: c.ID,
				Error: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: id %s is already in use by a running request", c.ID)})
			continue
		}
		run = append(run, c)
	}
	if h.store != nil {
		s.addResumable(st)
	}
	leave := make(chan struct{})
	st.mu.Lock()
	gen := st.attachLocked(w, false, leave)
	st.calls = len(run) + len(answers)
	if h.store != nil {
		var ids []jsonrpc.ID
		if h.events != nil {
			for _, c := range run {
				ids = append(ids, c.ID)
			}
		}
		st.primeLocked(h.streamMeta(ids...))
	}
	st.mu.Unlock()
	completed := func() {
		if h.store != nil {
			s.dropResumable(st)
		}
	}
	for _, resp := range answers {
		if st.answer(resp) {
			completed()
		}
	}
	for _, c := range run {
		s.hold()
		h.goTracked(func() {
			defer s.releaseBusy()
			resp := s.ss.Serve(st, c)
			s.unregister(c.ID, st)
			if st.answer(resp) {
				completed()
			}
		})
	}
	st.wait(r.Context(), leave, nil)
	st.release(gen)
}

// get serves a GET: a legacy session's standalone stream, or the
// resumption of a stream with Last-Event-ID (with an event store).
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	if !sse.Accepts(r.Header["Accept"], "text/event-stream") {
		writeError(w, http.StatusNotAcceptable, CodeTransportError, "Not Acceptable: Accept must allow text/event-stream")
		return
	}
	sid, ok := h.sessionOf(w, r)
	if !ok {
		return
	}
	if h.shared != nil {
		h.getShared(w, r, sid) // scale-out: (handler_shared.go)
		return
	}
	s := h.acquire(w, sid, r)
	if s == nil {
		return
	}
	defer s.releaseBusy()
	w.Header()[keySessionID] = s.idHeader[:]
	if last, _ := header(r, keyLastEventID); last != "" && h.store != nil {
		h.resume(w, r, s, last)
		return
	}
	h.standaloneGET(w, r, s, "")
}

// delete serves a DELETE: the client ends its session.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	sid, ok := h.sessionOf(w, r)
	if !ok {
		return
	}
	if h.shared != nil {
		h.deleteShared(w, r, sid) // scale-out: (handler_shared.go)
		return
	}
	s := h.lookup(sid, r)
	if s == nil {
		writeError(w, http.StatusNotFound, CodeSessionNotFound, "Session not found")
		return
	}
	s.close("deleted by the client")
	w.WriteHeader(http.StatusNoContent)
}

// sessionOf returns the session id of a GET or DELETE, after checking the
// protocol version header. Modern requests and requests without a
// session get 405: without a session only POST is served.
func (h *Handler) sessionOf(w http.ResponseWriter, r *http.Request) (string, bool) {
	hv, hasHV := header(r, keyProtocolVersion)
	sid, _ := header(r, keySessionID)
	if (hasHV && mcp.IsModern(mcp.Version(hv))) || sid == "" {
		w.Header()["Allow"] = hdrAllowPOS
		writeError(w, http.StatusMethodNotAllowed, CodeTransportError, "Method not allowed: "+r.Method+" needs a session of protocol version 2025-11-25 or earlier; use POST")
		return "", false
	}
	if _, ok := h.legacyVersion(w, hv, hasHV); !ok {
		return "", false
	}
	return sid, true
}

// hold counts a call running in a goroutine of the handler as activity of
// the session, so that it does not expire meanwhile.
func (s *session) hold() {
	s.mu.Lock()
	s.busy++
	s.mu.Unlock()
}

// quote returns s in double quotes, shortened if long.
func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return `"` + s + `"`
}
