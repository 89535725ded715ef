package streamable

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/track"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// Defaults of HandlerOptions.
const (
	// DefaultMaxBodyBytes bounds a POST body (one message or one batch).
	DefaultMaxBodyBytes = 4 << 20
	// DefaultMaxSessions bounds the legacy sessions open at once.
	DefaultMaxSessions = 10_000
	// DefaultSessionIdleTimeout is how long a legacy session may go
	// without a request or an open stream before it is closed.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// DefaultKeepAlive is the longest silence on an SSE stream before the
	// handler sends a comment, so that proxies keep the connection.
	DefaultKeepAlive = 15 * time.Second
	// DefaultWriteTimeout bounds one write to an SSE stream; a client that
	// does not read for that long loses the stream.
	DefaultWriteTimeout = 10 * time.Second
	// DefaultRetry is the reconnection delay announced in priming events.
	DefaultRetry = time.Second
	// DefaultMaxPendingMessages bounds the messages kept for a legacy
	// session's standalone stream while no GET is open.
	DefaultMaxPendingMessages = 100
	// DefaultInstanceTTL is how long after its last heartbeat in a shared
	// store an instance counts as gone.
	DefaultInstanceTTL = 5 * time.Second
)

// HandlerOptions configure a Handler. A nil *HandlerOptions, and every
// zero field, mean the defaults.
type HandlerOptions struct {
	// Logger receives the handler's diagnostics. Default: discarded.
	Logger *slog.Logger
	// MaxBodyBytes bounds a POST body; larger ones get 413. Default
	// DefaultMaxBodyBytes (4 MiB).
	MaxBodyBytes int64
	// MaxSessions bounds the legacy sessions open at once; initialize
	// beyond it gets 503. Default DefaultMaxSessions (10,000).
	MaxSessions int
	// SessionIdleTimeout closes a legacy session that has had no request
	// and no open stream for that long. Default 30 minutes.
	SessionIdleTimeout time.Duration
	// KeepAlive is the longest an SSE stream stays silent: after that the
	// handler writes an SSE comment. Default 15s; negative disables it.
	KeepAlive time.Duration
	// WriteTimeout bounds each write to an SSE stream. Default 10s.
	WriteTimeout time.Duration
	// EventStore, if set, makes legacy streams resumable (SEP-1699): every
	// POST that carries a request is answered with an SSE stream that
	// starts with a priming event (an id, a retry delay, empty data); its
	// events are kept in the store, and a client that lost the stream, or
	// whose stream the server closed (CloseStream), gets them again with
	// GET and Last-Event-ID. Nil: no resumability, responses are JSON
	// unless the request produces messages before its response.
	EventStore EventStore
	// Retry is the reconnection delay sent in priming events. Default 1s.
	Retry time.Duration
	// MaxPendingMessages bounds the messages a legacy session keeps for
	// its standalone (GET) stream while none is open; the oldest are
	// dropped beyond it. Default 100.
	MaxPendingMessages int
	// AllowedHosts and AllowedOrigins extend the DNS-rebinding defence:
	// a request that arrives on a loopback address must name localhost,
	// 127.0.0.1 or [::1] in Host and, if it has one, in Origin; these
	// lists allow other names ("example.com" or "example.com:8443" for
	// hosts, "https://app.example.com" for origins). On other addresses
	// Host is checked only against AllowedHosts, when set, and Origin must
	// be the request's own host or allowed. Bad Host or Origin gets 403.
	AllowedHosts, AllowedOrigins []string
	// DisableDNSRebindingProtection turns the Host and Origin checks off,
	// for servers behind a proxy that does them.
	DisableDNSRebindingProtection bool
	// Versions lists the protocol revisions accepted in the
	// MCP-Protocol-Version header and in a modern request's _meta.
	// Default: the server's (transport.VersionLister), else
	// mcp.SupportedVersions().
	Versions []mcp.Version
	// ToolHeaderParams returns the x-mcp-header parameters of a tool (see
	// mcp.ToolHeaderParams), so that the handler can check the
	// Mcp-Param-* headers of modern tools/call requests against their
	// arguments. Default: derived from the server's tool schemas when it
	// lists them (transport.ToolSchemaLister); otherwise those headers are
	// not checked.
	ToolHeaderParams func(toolName string) []HeaderParam
	// SessionOwner, if set, names who sends a request: the user behind
	// its credentials. A legacy session belongs to the owner of the
	// initialize that opened it, and every later POST, GET (stream or
	// resumption) and DELETE of the session must come from the same
	// owner; a request of anyone else is answered exactly as a request
	// for an unknown session (404, CodeSessionNotFound), so that a
	// session id is never a credential and the answer tells nothing about
	// other users' sessions. With package auth's middleware in front of
	// the handler:
	//
	//	SessionOwner: func(r *http.Request) string { return auth.Principal(r.Context()) },
	//
	// Modern (2026-07-28) requests have no session; bind what they carry
	// across rounds with server.Options.Principal. Default: sessions are
	// not bound to anyone.
	SessionOwner func(*http.Request) string
	// Store, if set, is what the handler shares with the other instances
	// of the server behind a load balancer (see package store): legacy
	// sessions are recorded in it, so that any instance serves any of
	// their requests; their streams' events are kept in it (it replaces
	// EventStore: every stream is resumable, on any instance); and the
	// messages of a session that relate to no request reach its GET
	// stream wherever it is open. Default: the server's, when it has one
	// (server.Options.Store); otherwise nothing is shared.
	Store store.Store
	// InstanceTTL, with a Store, is how long after its last heartbeat the
	// handler counts as gone for the other instances. It beats every
	// InstanceTTL/5; an instance that follows, for a client, a call
	// running on a handler gone for InstanceTTL/2 more ends the call's
	// stream with an error answering the call, so that the client learns
	// of the lost call within about twice InstanceTTL of its instance's
	// death rather than waiting with no end. Too short a TTL takes a paused instance
	// (a long GC, a store slow to answer) for dead. Default
	// DefaultInstanceTTL (5 s).
	InstanceTTL time.Duration
	// Observer, if set, sees every frame the handler receives and sends,
	// in both eras: POST bodies (valid or not), the messages of every
	// stream and JSON answer, and the error bodies answering a POST (see
	// transport.Frame).
	Observer transport.Observer
}

// A Handler serves the Streamable HTTP transport of MCP on one endpoint,
// for both protocol eras at once; see the package documentation. It is an
// http.Handler. Close it to end its sessions and its janitor.
type Handler struct {
	srv      transport.MessageServer
	opts     HandlerOptions
	log      *slog.Logger
	guard    *sse.Guard
	dec      *jsonrpc.Decoder
	store    EventStore
	shared   store.Store   // scale-out: nil unless HandlerOptions.Store or the server's (handler_shared.go)
	events   store.Events  // the shared store's events; nil without one
	prefix   string        // of this instance's stream ids, with a store
	unsub    func()        // ends the subscription to deleted sessions
	versions []mcp.Version // accepted revisions
	modern   []mcp.Version // the modern ones among them

	mu        sync.Mutex
	sessions  map[string]*session
	closed    bool
	janitorOn bool
	done      chan struct{} // closed by Close
	running   track.Group   // goroutines the handler started, which Shutdown waits for
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
	if o.SessionIdleTimeout <= 0 {
		o.SessionIdleTimeout = DefaultSessionIdleTimeout
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.Retry <= 0 {
		o.Retry = DefaultRetry
	}
	if o.MaxPendingMessages <= 0 {
		o.MaxPendingMessages = DefaultMaxPendingMessages
	}
	if o.InstanceTTL <= 0 {
		o.InstanceTTL = DefaultInstanceTTL
	}
	h.log = o.Logger
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	h.versions = o.Versions
	if vl, ok := srv.(transport.VersionLister); ok && len(h.versions) == 0 {
		for _, v := range vl.ProtocolVersions() {
			h.versions = append(h.versions, mcp.Version(v))
		}
	}
	if len(h.versions) == 0 {
		h.versions = mcp.SupportedVersions()
	}
	if tl, ok := srv.(transport.ToolSchemaLister); ok && o.ToolHeaderParams == nil {
		h.opts.ToolHeaderParams = newHeaderParamCache(tl).lookup
	}
	for _, v := range h.versions {
		if mcp.IsModern(v) {
			h.modern = append(h.modern, v)
		}
	}
	h.store = o.EventStore
	if o.Store == nil {
		if ss, ok := srv.(interface{ Store() store.Store }); ok {
			o.Store = ss.Store()
		}
	}
	if o.Store != nil {
		h.initShared(o.Store)
	}
	h.guard = sse.NewGuard(o.AllowedHosts, o.AllowedOrigins, o.DisableDNSRebindingProtection)
	size := o.MaxBodyBytes
	if size > 1<<30 {
		size = 1 << 30
	}
	h.dec = jsonrpc.NewDecoder(jsonrpc.Limits{MaxMessageSize: int(size)}, mcp.KnownMethods()...)
	return h
}

// ServeHTTP serves one HTTP request: POST (a message from the client),
// GET (a legacy session's standalone stream, or the resumption of a
// stream) or DELETE (the end of a legacy session).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.guard.Check(r); err != nil {
		h.log.Debug("streamable: request refused", "error", err, "remote", r.RemoteAddr)
		writeError(w, http.StatusForbidden, CodeTransportError, "Forbidden: "+err.Error())
		return
	}
	if h.isClosed() {
		writeError(w, http.StatusServiceUnavailable, CodeTransportError, "Service unavailable: the server is shutting down")
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header()["Allow"] = hdrAllowAll
		writeError(w, http.StatusMethodNotAllowed, CodeTransportError, "Method not allowed: use POST, GET or DELETE")
	}
}

// Close ends every legacy session and open stream and stops the janitor,
// waiting as long as it takes; see Shutdown. Requests that arrive later
// get 503.
func (h *Handler) Close() error {
	return h.Shutdown(context.Background())
}

// Shutdown is Close with a deadline: it returns ctx's error if the
// sessions have not finished when ctx ends (they go on finishing in the
// background). Modern requests in progress are not interrupted: they end
// with their HTTP requests (see http.Server.Shutdown). Shut the server
// down first (server.Server.Shutdown): it lets the calls of every session
// finish, ends the subscriptions/listen streams and refuses new work,
// which this handler answers with 503.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	var list []*session
	if !h.closed {
		h.closed = true
		close(h.done)
		for _, s := range h.sessions {
			list = append(list, s)
		}
	}
	h.mu.Unlock()
	if h.unsub != nil {
		h.unsub()
	}
	for _, s := range list {
		s.close("the handler is closing")
	}
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

// Error codes of the bodies of the transport's HTTP errors (403, 404,
// 405, 406, 409, 413, 415, 503 and some 400s), which carry a JSON-RPC
// error without an id. They are in the implementation-defined range and
// match the TypeScript SDK's.
const (
	// CodeTransportError: the HTTP request was refused (bad header,
	// content type, method, origin; missing session; overload).
	CodeTransportError jsonrpc.Code = -32000
	// CodeSessionNotFound: the Mcp-Session-Id names no open session
	// (HTTP 404): it expired or was deleted; initialize again.
	CodeSessionNotFound jsonrpc.Code = -32001
)

var errEncoder = jsonrpc.Encoder{OmitNullID: true}

// writeError answers an HTTP request with status and a JSON-RPC error
// body without an id.
func writeError(w http.ResponseWriter, status int, code jsonrpc.Code, message string) {
	writeResponse(w, status, &jsonrpc.Response{Error: jsonrpc.NewError(code, message)})
}

// writeResponse answers an HTTP request with status and one JSON-RPC
// response as a JSON body.
func writeResponse(w http.ResponseWriter, status int, resp *jsonrpc.Response) {
	bp := getBuf()
	b, err := errEncoder.Append((*bp)[:0], resp)
	if err != nil {
		b = append(b[:0], `{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: the response cannot be encoded"}}`...)
	}
	w.Header()["Content-Type"] = hdrJSON
	w.WriteHeader(status)
	observeSent(trackerOf(w), b, resp, status)
	w.Write(b)
	*bp = b
	putBuf(bp)
}

// Shared header values, never modified.
var (
	hdrJSON       = []string{"application/json"}
	hdrSSE        = []string{"text/event-stream"}
	hdrNoCache    = []string{"no-cache"}
	hdrNo         = []string{"no"}
	hdrAllowAll   = []string{"GET, POST, DELETE"}
	hdrAllowPOS   = []string{"POST"}
	hdrRetryAfter = []string{"1"}
)

// Canonical forms of the header names read on every request, so that
// lookups do not allocate.
var (
	keyProtocolVersion = http.CanonicalHeaderKey(mcp.HeaderProtocolVersion)
	keySessionID       = http.CanonicalHeaderKey(mcp.HeaderSessionID)
	keyMethod          = http.CanonicalHeaderKey(mcp.HeaderMethod)
	keyName            = http.CanonicalHeaderKey(mcp.HeaderName)
	keyLastEventID     = http.CanonicalHeaderKey("Last-Event-ID")
)

// header returns the first value of the canonical header key, trimmed,
// and whether the header is present.
func header(r *http.Request, key string) (string, bool) {
	vs := r.Header[key]
	if len(vs) == 0 {
		return "", false
	}
	return trimOWS(vs[0]), true
}

// trimOWS trims the optional whitespace (spaces and tabs) around a header
// value.
func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// bufPool holds encoding buffers; buffers that grew past 64 KiB are
// dropped rather than kept.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(bp *[]byte) {
	if cap(*bp) <= 64<<10 {
		*bp = (*bp)[:0]
		bufPool.Put(bp)
	}
}

// errClosedStream reports a write to a stream that has no client and no
// event store to keep the message.
var errClosedStream = errors.New("streamable: the stream is closed")
