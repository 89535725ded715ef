package sse

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/track"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	wire "github.com/mcpwire/mcpwire/transport/internal/sse"
)

// Defaults of HandlerOptions.
const (
	// DefaultMaxBodyBytes bounds a POSTed message.
	DefaultMaxBodyBytes = 4 << 20
	// DefaultMaxSessions bounds the streams (sessions) open at once.
	DefaultMaxSessions = 10_000
	// DefaultMaxInFlight bounds the requests of one session being served
	// at once.
	DefaultMaxInFlight = 64
	// DefaultKeepAlive is the longest silence on a stream before the
	// handler sends a comment.
	DefaultKeepAlive = 15 * time.Second
	// DefaultWriteTimeout bounds one write to a stream.
	DefaultWriteTimeout = 10 * time.Second
)

// SessionParam is the query parameter of the POST URI that names the
// session.
const SessionParam = "sessionId"

// HandlerOptions configure a Handler. A nil *HandlerOptions, and every
// zero field, mean the defaults.
type HandlerOptions struct {
	// Logger receives the handler's diagnostics. Default: discarded.
	Logger *slog.Logger
	// Endpoint is the URI, absolute or relative to the stream's, that the
	// endpoint event gives for POSTs; the handler adds the session
	// parameter. Mount the handler there too. Default: the path of the
	// GET itself, so that one mount serves both.
	Endpoint string
	// MaxBodyBytes bounds a POSTed message (413). Default 4 MiB.
	MaxBodyBytes int64
	// MaxSessions bounds the open streams (503). Default 10,000.
	MaxSessions int
	// MaxInFlight bounds the requests of one session served at once; a
	// POST beyond it gets 429. Default 64.
	MaxInFlight int
	// KeepAlive is the longest a stream stays silent before a comment is
	// written. Default 15s; negative disables it.
	KeepAlive time.Duration
	// WriteTimeout bounds each write to a stream; a client that does not
	// read for that long loses its session. Default 10s.
	WriteTimeout time.Duration
	// AllowedHosts, AllowedOrigins and DisableDNSRebindingProtection
	// work as in streamable.HandlerOptions: requests that arrive on a
	// loopback address must name localhost, 127.0.0.1 or [::1] in Host
	// and Origin, or an allowed name; bad ones get 403.
	AllowedHosts, AllowedOrigins  []string
	DisableDNSRebindingProtection bool
	// SessionOwner, if set, names who sends a request: the user behind
	// its credentials. A session belongs to the owner of the GET that
	// opened its stream, and a POST of anyone else is answered exactly as
	// one for an unknown session (404), so that the session id in the
	// endpoint URI is never a credential. With package auth's middleware
	// in front of the handler:
	//
	//	SessionOwner: func(r *http.Request) string { return auth.Principal(r.Context()) },
	//
	// Default: sessions are not bound to anyone.
	SessionOwner func(*http.Request) string
	// Observer, if set, sees every frame of every session: POST bodies
	// (valid or not), the messages of the stream, and the error bodies
	// answering a session's POST (see transport.Frame).
	Observer transport.Observer
}

// A Handler serves an MCP server over the legacy HTTP+SSE transport
// (revision 2024-11-05), for clients that predate Streamable HTTP.
//
// A GET opens an SSE stream, which is a session: its first event,
// "endpoint", gives the URI to POST messages to (with the session in the
// sessionId query parameter); every message of the server, answers
// included, follows as a "message" event. A POST gets 202 at once; the
// session lasts as long as the stream. Mount the same handler for both
// (one path does):
//
//	h := sse.NewHandler(srv, nil)
//	defer h.Close()
//	mux.Handle("/sse", h) // GET /sse, then POST /sse?sessionId=...
//
// The hardening is Streamable HTTP's: Host and Origin checks (403),
// Content-Type application/json (415), Accept text/event-stream for GET
// (406), bounded bodies (413), strict decoding (400), a session cap (503),
// bounded requests in flight per session (429), keepalive comments.
type Handler struct {
	srv   transport.MessageServer
	opts  HandlerOptions
	log   *slog.Logger
	guard *wire.Guard
	dec   *jsonrpc.Decoder

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	done     chan struct{} // closed by Close
	running  track.Group   // goroutines Shutdown waits for
}

// NewHandler returns a handler serving srv (usually a *server.Server).
func NewHandler(srv transport.MessageServer, opts *HandlerOptions) *Handler {
	h := &Handler{srv: srv, sessions: make(map[string]*session), done: make(chan struct{})}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	h.log = o.Logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.guard = wire.NewGuard(o.AllowedHosts, o.AllowedOrigins, o.DisableDNSRebindingProtection)
	size := min(o.MaxBodyBytes, 1<<30)
	h.dec = jsonrpc.NewDecoder(jsonrpc.Limits{MaxMessageSize: int(size)}, mcp.KnownMethods()...)
	return h
}

// ServeHTTP serves a GET (a new session's stream) or a POST (a message of
// a session).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.guard.Check(r); err != nil {
		writeError(w, http.StatusForbidden, "Forbidden: "+err.Error())
		return
	}
	if h.isClosed() {
		writeError(w, http.StatusServiceUnavailable, "Service unavailable: the server is shutting down")
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.stream(w, r)
	case http.MethodPost:
		h.post(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		writeError(w, http.StatusMethodNotAllowed, "Method not allowed: GET opens a stream, POST sends a message")
	}
}

// Close ends every session and waits for them; see Shutdown.
func (h *Handler) Close() error {
	return h.Shutdown(context.Background())
}

// Shutdown ends every stream (and so every session) and waits until the
// sessions have finished, or until ctx ends. Requests that arrive later
// get 503.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
	h.mu.Unlock()
	return h.running.Wait(ctx)
}

func (h *Handler) isClosed() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// goTracked runs f in a goroutine that Shutdown waits for.
func (h *Handler) goTracked(f func()) { h.running.Go(f) }

// A session is one stream and the server session it carries.
type session struct {
	h     *Handler
	id    string
	owner string // HandlerOptions.SessionOwner of the GET that opened it
	ss    transport.ServerSession

	broken chan struct{}           // closed when a write fails: the stream is gone
	tr     *transport.FrameTracker // the session's frames; nil without an observer

	mu       sync.Mutex // guards the fields below and serializes writes
	w        http.ResponseWriter
	rc       *http.ResponseController
	last     time.Time // the last write
	inFlight int       // requests being served
}

// stream serves a GET: it opens a session and carries its messages until
// the client goes away, the server ends the session or the handler
// closes.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request) {
	if !wire.Accepts(r.Header["Accept"], "text/event-stream") {
		writeError(w, http.StatusNotAcceptable, "Not Acceptable: Accept must allow text/event-stream")
		return
	}
	s := &session{h: h, id: rand.Text(), broken: make(chan struct{})}
	s.tr = transport.NewFrameTracker(h.opts.Observer, transport.TransportSSE, s.id)
	if h.opts.SessionOwner != nil {
		s.owner = h.opts.SessionOwner(r)
	}
	h.mu.Lock()
	if len(h.sessions) >= h.opts.MaxSessions {
		h.mu.Unlock()
		w.Header().Set("Retry-After", "10")
		writeResponse(w, http.StatusServiceUnavailable, &jsonrpc.Response{Error: jsonrpc.NewError(jsonrpc.CodeOverloaded, "Service unavailable: too many sessions; retry later")}, nil)
		return
	}
	h.sessions[s.id] = s
	h.running.Add() // the session's closing, below, is waited for
	h.mu.Unlock()
	ss, err := h.srv.Open(context.Background(), s.id, s)
	if err != nil {
		h.mu.Lock()
		delete(h.sessions, s.id)
		h.mu.Unlock()
		h.running.Done()
		h.log.Debug("sse: no new session", "error", err)
		writeError(w, http.StatusServiceUnavailable, "Service unavailable: the server is shutting down")
		return
	}
	s.ss = ss
	defer s.end()

	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s.mu.Lock()
	s.w, s.rc = w, http.NewResponseController(w)
	err = s.writeLocked(wire.Event{Name: "endpoint", Data: []byte(h.endpoint(r, s.id)), Retry: -1})
	s.mu.Unlock()
	if err != nil {
		return
	}
	var tick <-chan time.Time
	if ka := h.opts.KeepAlive; ka > 0 {
		t := time.NewTicker(ka / 2)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		case <-s.ss.Done():
			return
		case <-s.broken:
			return
		case <-tick:
			if !s.keepalive() {
				return
			}
		}
	}
}

// endpoint returns the POST URI of session id: the configured endpoint,
// or the path of the GET as the client sent it.
func (h *Handler) endpoint(r *http.Request, id string) string {
	base := h.opts.Endpoint
	if base == "" {
		base = r.URL.Path
		if u, err := url.ParseRequestURI(r.RequestURI); err == nil && u.Path != "" {
			base = u.EscapedPath() // the path before any StripPrefix
		}
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + SessionParam + "=" + url.QueryEscape(id)
}

// end closes the session when its stream ends: later POSTs get 404, and
// the server session drains in the background.
func (s *session) end() {
	h := s.h
	h.mu.Lock()
	delete(h.sessions, s.id)
	h.mu.Unlock()
	s.mu.Lock()
	s.w, s.rc = nil, nil
	s.mu.Unlock()
	go func() {
		defer h.running.Done()
		s.ss.Close()
	}()
}

// Write sends a message of the server on the stream; the session is the
// writer of its server session.
func (s *session) Write(ctx context.Context, m jsonrpc.Message) error {
	data, err := errEncoder.Append(nil, m)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tr != nil && s.w != nil {
		s.tr.Observe(transport.Sent, data, m, nil, http.StatusOK)
	}
	return s.writeLocked(wire.Event{Name: "message", Data: data, Retry: -1})
}

var errStreamClosed = errors.New("sse: the stream is closed")

// writeLocked writes one event and flushes it, within the write timeout.
func (s *session) writeLocked(ev wire.Event) error {
	if s.w == nil {
		return errStreamClosed
	}
	b, err := wire.AppendEvent(nil, ev)
	if err != nil {
		return err
	}
	return s.rawLocked(b)
}

// rawLocked writes b and flushes it within the write timeout; the
// deadline is cleared afterwards (HTTP/2 resets a stream whose write
// deadline passes, even when nothing is being written).
func (s *session) rawLocked(b []byte) error {
	s.rc.SetWriteDeadline(time.Now().Add(s.h.opts.WriteTimeout))
	_, err := s.w.Write(b)
	if err == nil {
		err = s.rc.Flush()
	}
	s.rc.SetWriteDeadline(time.Time{})
	if err != nil {
		// The stream is broken: the session ends with it.
		s.h.log.Debug("sse: stream write failed", "session", s.id, "error", err)
		s.w, s.rc = nil, nil
		close(s.broken)
		return err
	}
	s.last = time.Now()
	return nil
}

// keepalive writes a comment if the stream has been silent; it reports
// whether the stream is still usable.
func (s *session) keepalive() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return false
	}
	if time.Since(s.last) < s.h.opts.KeepAlive/2 {
		return true
	}
	return s.rawLocked(wire.AppendComment(nil, "keepalive")) == nil
}

// post serves a POST: one message of a session. Requests are served in
// the background, their answers going on the stream; the POST itself is
// answered 202 at once.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get(SessionParam)
	if id == "" {
		writeError(w, http.StatusBadRequest, "Bad Request: the "+SessionParam+" query parameter is required; open a stream with GET first")
		return
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s != nil && h.opts.SessionOwner != nil && h.opts.SessionOwner(r) != s.owner {
		// Another owner's session: answered as an unknown one.
		h.log.Debug("sse: session used by another owner", "remote", r.RemoteAddr)
		s = nil
	}
	if s == nil {
		writeResponse(w, http.StatusNotFound, &jsonrpc.Response{Error: jsonrpc.NewError(codeSessionNotFound, "Session not found")}, nil)
		return
	}
	if ct := r.Header.Get("Content-Type"); !wire.IsJSON(ct) {
		writeError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	body, msg, status, refusal := wire.ReadMessage(r, h.opts.MaxBodyBytes, h.dec)
	if s.tr != nil {
		var err error
		if refusal != nil {
			err = &jsonrpc.DecodeError{ID: refusal.ID, Err: refusal.Error}
		}
		s.tr.Observe(transport.Received, body, msg, err, 0)
	}
	if refusal != nil {
		writeResponse(w, status, refusal, s.tr)
		return
	}
	switch m := msg.(type) {
	case *jsonrpc.Response:
		s.ss.Resolve(m)
	case *jsonrpc.Batch:
		writeResponse(w, http.StatusBadRequest, &jsonrpc.Response{Error: jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"Invalid Request: the HTTP+SSE transport takes one message per POST")}, s.tr)
		return
	case *jsonrpc.Request:
		if !m.IsCall() {
			s.ss.Serve(context.WithoutCancel(r.Context()), m)
			break
		}
		s.mu.Lock()
		full := s.inFlight >= h.opts.MaxInFlight
		if !full {
			s.inFlight++
		}
		s.mu.Unlock()
		if full {
			w.Header().Set("Retry-After", "1")
			writeResponse(w, http.StatusTooManyRequests, &jsonrpc.Response{ID: m.ID, Error: jsonrpc.Errorf(jsonrpc.CodeOverloaded,
				"Too many requests: %d are already running in this session", h.opts.MaxInFlight)}, s.tr)
			return
		}
		ctx := context.WithoutCancel(r.Context())
		h.goTracked(func() {
			resp := s.ss.Serve(ctx, m)
			// The request is served: it leaves the count before its answer
			// goes out, so that a client that sends the next request on
			// reading the answer finds room for it.
			s.mu.Lock()
			s.inFlight--
			s.mu.Unlock()
			if resp != nil {
				if err := s.Write(ctx, resp); err != nil {
					h.log.Debug("sse: response not delivered", "session", s.id, "id", m.ID.String(), "error", err)
				}
			}
		})
	}
	w.WriteHeader(http.StatusAccepted)
}

// codeSessionNotFound is the code of the 404 body, as in the
// TypeScript SDK and package streamable.
const codeSessionNotFound jsonrpc.Code = -32001

var errEncoder = jsonrpc.Encoder{OmitNullID: true}

// writeError answers with status and a JSON-RPC error (-32000, no id).
func writeError(w http.ResponseWriter, status int, message string) {
	writeResponse(w, status, &jsonrpc.Response{Error: jsonrpc.NewError(-32000, message)}, nil)
}

// writeResponse answers with status and resp as a JSON body, shown to tr
// (the session's frames) when it is not nil.
func writeResponse(w http.ResponseWriter, status int, resp *jsonrpc.Response, tr *transport.FrameTracker) {
	b, err := errEncoder.Append(nil, resp)
	if err != nil {
		b = fmt.Appendf(nil, `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: %d"}}`, status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if tr != nil {
		tr.Observe(transport.Sent, b, resp, nil, status)
	}
	w.Write(b)
}
