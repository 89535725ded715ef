package streamable

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// Defaults of ClientOptions.
const (
	// DefaultConnectTimeout bounds the quick steps of the client: sending
	// a request, the answer to a posted notification or response, the
	// headers of a GET stream, the endpoint event of the HTTP+SSE
	// fallback. It never bounds a response stream.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultReconnectDelay is the wait before resuming a stream whose
	// server announced no retry delay.
	DefaultReconnectDelay = time.Second
	// DefaultMaxReconnectDelay caps the server's retry delay and the
	// backoff between failed attempts.
	DefaultMaxReconnectDelay = 30 * time.Second
	// DefaultMaxReconnects bounds the consecutive failed attempts to
	// resume one stream.
	DefaultMaxReconnects = 5
	// DefaultMaxQueued bounds the messages received and not yet read.
	DefaultMaxQueued = 256
	// DefaultMaxInFlight bounds the calls awaiting their response.
	DefaultMaxInFlight = 1024
	// DefaultMaxIdleConnsPerHost is how many idle connections to the
	// server the transport's own HTTP client keeps for reuse. Go's
	// default, 2, makes a client with more calls at once open and close
	// a connection for most of them (and leave thousands of sockets in
	// TIME_WAIT under load).
	DefaultMaxIdleConnsPerHost = 64
)

// ClientOptions configure a client Transport. A nil *ClientOptions, and
// every zero field, mean the defaults.
type ClientOptions struct {
	// HTTPClient sends every request. Its Timeout must be zero, since
	// response streams last as long as their request. Default: a client
	// of the transport's own (a clone of http.DefaultTransport keeping
	// DefaultMaxIdleConnsPerHost idle connections), whose idle
	// connections are closed with each ClientConn. With the default, the
	// POSTs of calls to a plain http:// URL that no proxy serves (bodies
	// up to 32 KiB) go through an HTTP/1.1 client of the transport's own,
	// which sends them as net/http does at a fraction of its cost, with
	// the dialer and limits of that http.Transport; so do they with
	// WrapTransport's layers over it.
	HTTPClient *http.Client
	// WrapTransport, if set, puts the caller's layers over the
	// transport's own HTTP client (HTTPClient nil; ignored otherwise):
	// it is called once, by NewTransport, with the RoundTripper that
	// sends the requests, and returns the one to send them through, such
	// as an authorization layer (package auth's Transport) wrapping it.
	// Every request goes through the layers; the POST of a call that
	// reaches the RoundTripper below them as it left the transport
	// (same method, URL, Host and body, unread) still goes through the
	// HTTP/1.1 client described above, all else through net/http. For
	// a request the HTTP/1.1 client sends, only the WroteRequest hook of
	// an httptrace.ClientTrace in its context is called.
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// Header is added to every request: authorization, for instance. The
	// transport's own headers win over it.
	Header http.Header
	// Limits bound each incoming message; Limits.MaxMessageSize also
	// bounds a JSON body and an SSE event. Default
	// jsonrpc.DefaultMaxMessageSize (16 MiB).
	Limits jsonrpc.Limits
	// ConnectTimeout bounds each quick step; see DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// ReconnectDelay is the wait before resuming a stream when the server
	// gave no retry delay. Default 1s.
	ReconnectDelay time.Duration
	// MaxReconnectDelay caps the delays between attempts. Default 30s.
	MaxReconnectDelay time.Duration
	// MaxReconnects bounds the consecutive failed attempts to resume a
	// stream. Default 5; negative: never resume.
	MaxReconnects int
	// MaxQueued bounds the messages received and not yet read; streams
	// are not read further while the queue is full. Default 256.
	MaxQueued int
	// MaxInFlight bounds the calls awaiting their response; Write refuses
	// a call beyond it. Default 1024.
	MaxInFlight int
	// DisableStandaloneStream keeps the client from opening the GET
	// stream on which a legacy server sends messages that belong to no
	// request (list changes, resource updates, its own requests).
	DisableStandaloneStream bool
	// DisableSSEFallback keeps the client from trying the legacy HTTP+SSE
	// transport (2024-11-05) when initialize is refused.
	DisableSSEFallback bool
	// Logger receives the client's diagnostics. Default: discarded.
	Logger *slog.Logger
	// Observer, if set, sees every frame the connections send and
	// receive: POST bodies, JSON answers, the events of every stream, and
	// the JSON-RPC error bodies of HTTP errors (see transport.Frame).
	Observer transport.Observer
}

// A Transport connects to an MCP server at one Streamable HTTP endpoint
// URL. Each Connect returns a new ClientConn: one logical connection, with
// its own legacy session, if any. It serves both protocol eras; the MCP
// client (package client) decides which one to speak, message by message,
// and the transport follows:
//
// Requests. Every message is a POST with Content-Type application/json
// and Accept "application/json, text/event-stream", plus
// ClientOptions.Header. A modern request (one whose params._meta names a
// protocolVersion, 2026-07-28) carries MCP-Protocol-Version (equal to
// _meta's), Mcp-Method, Mcp-Name (params.name of tools/call and
// prompts/get, params.uri of resources/read, params.taskId of tasks/*) and
// an Mcp-Param-{Name} header for each argument of a tool call whose
// property in the tool's inputSchema is annotated x-mcp-header (values
// that are not plain printable ASCII, or have spaces at an end, are sent
// as =?base64?...?=; null and absent arguments get no header). The
// transport does not read tools/list: the MCP client gives it the input
// schemas of the tools it listed (ClientConn.SetToolSchemas; package
// client does it), and drops from its tools/list results the tools whose
// annotations are invalid, as the specification requires of HTTP
// clients, reporting them to its caller. A legacy message carries the
// protocol version that initialize negotiated and the Mcp-Session-Id the
// server gave with the initialize response, once there are ones.
//
// Answers. 202 to a notification or response: done. A JSON body: its
// message (or each message of an array) comes out of Read. An SSE stream:
// the message of every event comes out of Read, in order; events without
// data (priming events) and of other types are skipped. An HTTP error
// fails the call with a JSON-RPC error response: the body's own error if
// it is one, otherwise one naming the status and quoting the body (data
// {"httpStatus": N}), with an *HTTPStatusError as its cause (see
// "Errors" in the package documentation); a 404 to a request of a legacy
// session means the server ended it: the call gets CodeSessionNotFound,
// the session is forgotten, and the next initialize starts a new one.
//
// Resumption (legacy era, SEP-1699). When the SSE answer to a call ends
// before the response (the server closed it after an event with an id,
// or the network failed), the client waits the server's retry delay
// (ReconnectDelay when none), GETs the endpoint with Last-Event-ID, and
// reads on from there, as often as needed; attempts that bring nothing
// new back off, and MaxReconnects of them in a row fail the call. The
// modern era has no resumption: the call fails, to be sent again.
//
// Server messages. After notifications/initialized, the client opens the
// session's standalone GET stream for the messages that belong to no
// request, reconnecting with Last-Event-ID when it ends; a server without
// one (405, or any 4xx) is not asked again. Requests of the server come
// out of Read like everything else, and the client's responses are
// POSTed.
//
// Cancellation. notifications/cancelled for a modern call is not sent:
// the call's stream is closed, which is how the modern era cancels. For a
// legacy call it is POSTed, and then the stream is closed.
//
// Fallback. A legacy initialize refused with 400, 404 or 405 and no error
// of the modern era (-32020, -32021, -32022, -32601) may come from a
// server of the HTTP+SSE transport (2024-11-05): the connection GETs the
// URL as an event stream, waits for its endpoint event, and from then on
// speaks that transport, initialize first (see package transport/sse).
type Transport struct {
	url     string
	opts    ClientOptions
	client  *http.Client
	ownIdle *http.Transport   // the transport of a client of our own, else nil
	wrapped http.RoundTripper // ClientOptions.WrapTransport's layers over ownTransport, else nil
	dec     *jsonrpc.Decoder
	log     *slog.Logger

	h1Once sync.Once
	h1     *h1Client // sends calls when the client is our own (client_h1.go); nil when it cannot
}

// NewTransport returns a transport to the MCP endpoint at url, such as
// "http://localhost:3000/mcp" (a URL without a path is fine). The URL is
// checked by Connect.
func NewTransport(url string, opts *ClientOptions) *Transport {
	t := &Transport{url: url}
	if opts != nil {
		t.opts = *opts
	}
	o := &t.opts
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.ReconnectDelay <= 0 {
		o.ReconnectDelay = DefaultReconnectDelay
	}
	if o.MaxReconnectDelay <= 0 {
		o.MaxReconnectDelay = DefaultMaxReconnectDelay
	}
	switch {
	case o.MaxReconnects == 0:
		o.MaxReconnects = DefaultMaxReconnects
	case o.MaxReconnects < 0:
		o.MaxReconnects = 0
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = DefaultMaxQueued
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	t.client = o.HTTPClient
	if t.client == nil {
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			t.ownIdle = dt.Clone()
			t.ownIdle.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
			t.client = &http.Client{Transport: t.ownIdle}
			if o.WrapTransport != nil {
				if rt := o.WrapTransport(ownTransport{t.ownIdle}); rt != nil {
					t.wrapped, t.client.Transport = rt, rt
				}
			}
		} else {
			t.client = &http.Client{}
			if o.WrapTransport != nil {
				t.client.Transport = o.WrapTransport(http.DefaultTransport)
			}
		}
	}
	t.log = o.Logger
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	t.dec = jsonrpc.NewDecoder(o.Limits, mcp.KnownMethods()...)
	return t
}

// Connect returns a new connection to the endpoint. It checks the URL and
// sends nothing: the first message written opens the conversation.
func (t *Transport) Connect(ctx context.Context) (transport.Conn, error) {
	u, err := sse.ParseEndpoint("streamable", t.url)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &ClientConn{t: t, u: u, host: clientHost(u), url: u.String(), redacted: clientRedacted(u), calls: make(map[jsonrpc.ID]*clientCall)}
	c.direct = t.ownIdle != nil && u.User == nil
	if c.direct {
		t.h1Once.Do(func() { t.h1 = newH1Client(t.ownIdle, u) })
		c.h1 = t.h1
	}
	c.tr = transport.NewFrameTracker(t.opts.Observer, transport.TransportStreamable, "")
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.in = make(chan clientItem, t.opts.MaxQueued)
	c.closed = make(chan struct{})
	c.jobs = make(chan clientJob)
	c.eof = make(chan struct{})
	return c, nil
}

// A ClientConn is the client's side of one logical MCP connection over
// Streamable HTTP: every message written is POSTed on its own, and the
// messages of every response stream, of the standalone GET stream and of
// resumed streams come out of Read, in the order each stream delivers
// them. See Transport for the rules it follows.
//
// Read is bounded: MaxQueued messages wait for it at most, and streams
// are not read further meanwhile. A response to a call no longer in
// flight (a duplicate, or the answer to an abandoned call) is dropped.
//
// A ClientConn is a transport.SessionConn. Its goroutines (one per
// request in flight, kept for a second after it for the next one, and
// one per open stream) belong to it; Close ends them all.
type ClientConn struct {
	t        *Transport
	u        *url.URL // the endpoint, shared by the requests of calls (read only)
	host     string   // the Host of those requests, as http.NewRequest sets it
	url      string
	redacted string          // url as net/http's errors show it (no password)
	direct   bool            // calls go to the transport's own http.Transport (sendCall)
	h1       *h1Client       // or to its HTTP/1.1 client, when not nil
	ctx      context.Context // parent of every HTTP request; cancelled by Close
	cancel   context.CancelFunc
	in       chan clientItem         // received messages, for Read
	closed   chan struct{}           // closed by Close
	jobs     chan clientJob          // calls handed to idle runners (client_write.go)
	eof      chan struct{}           // closed when the stream of the HTTP+SSE fallback has ended
	wg       sync.WaitGroup          // every goroutine of the conn
	tr       *transport.FrameTracker // nil without an observer
	unread   atomic.Int64            // messages queued in in that the engine has not taken yet (see Read)
	readOf   atomic.Bool             // Read returned a message whose taking unread does not count yet

	mu      sync.Mutex
	done    bool                       // Close was called
	calls   map[jsonrpc.ID]*clientCall // calls awaiting their response
	spare   []*clientRunner            // runners of waited calls, kept for the next (runWaited)
	session string                     // the legacy session id, once the server gave one
	version string                     // the legacy protocol version negotiated by initialize

	// lastPost is the header map of the last POST, shared read-only by
	// the next ones whose headers are the same (lastPostValues); see
	// postHeaderLocked.
	lastPost       http.Header
	lastPostValues clientHeaderArray
	standalone     context.CancelFunc      // stops the standalone GET stream; nil when none runs
	params         *headerParamCache       // the x-mcp-header parameters of modern tools; nil until SetToolSchemas
	legacy         *sse.LegacyClient       // the HTTP+SSE fallback, once in use
	resolve        func(*jsonrpc.Response) // hands a response to the engine directly; nil until SetResolver
}

// A clientCall is a call written and not yet answered.
type clientCall struct {
	id      jsonrpc.ID
	method  string
	modern  bool
	waited  bool                    // its caller waits for it: sent by runWaited
	session string                  // the legacy session it was sent in
	abort   context.CancelCauseFunc // ends its HTTP requests
	done    chan struct{}           // closed once answered or given up

	// Sending it (runCall), in the call rather than in closures and
	// values of their own: the outcome (sendErr) is signalled on sent
	// once (sendState), when the request is on the wire (wroteRequest,
	// called by the HTTP/1.1 client or through an httptrace.ClientTrace
	// made for net/http's requests only) or when it failed; the timer of
	// the runner that sends it bounds that. body is the POST's body,
	// reader its reader.
	sent      chan struct{}
	sendErr   error
	sendState atomic.Int32
	runner    *clientRunner
	body      []byte
	reader    callBody
}

// A clientItem is what Read returns next.
type clientItem struct {
	msg jsonrpc.Message
	err error
}

// errClientAborted ends the HTTP requests of a call nobody waits for.
var errClientAborted = errors.New("streamable: request aborted")

// SessionID returns the id of the legacy session, or "" when there is
// none (the modern era, a server without sessions, or after the session
// expired).
func (c *ClientConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// ProtocolVersion returns the legacy protocol version negotiated by
// initialize, which the client sends in the MCP-Protocol-Version header
// of legacy requests; "" before initialize, in the modern era, and after
// the session expired.
func (c *ClientConn) ProtocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// ConcurrentWrites reports true: every message goes in a request of its
// own, so Write may be called from several goroutines at once (see
// jsonrpc.ConcurrentWriter), and a call waiting for its request to reach
// the wire does not hold up the others.
func (c *ClientConn) ConcurrentWrites() bool { return true }

// UsesSSE reports whether the connection fell back to the legacy HTTP+SSE
// transport (2024-11-05).
func (c *ClientConn) UsesSSE() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.legacy != nil
}

// Read returns the next message received. It returns io.EOF after Close,
// and when the stream of the HTTP+SSE fallback has ended; a frame that is
// not a valid JSON-RPC message on that stream yields a
// *jsonrpc.DecodeError.
func (c *ClientConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.readOf.Swap(false) {
		c.unread.Add(-1) // the engine has taken what Read returned last
	}
	select {
	case <-c.closed:
		return nil, io.EOF
	case it := <-c.in:
		return c.took(it)
	default:
	}
	select {
	case it := <-c.in:
		return c.took(it)
	case <-c.closed:
		return nil, io.EOF
	case <-c.eof:
		select {
		case it := <-c.in:
			return c.took(it)
		default:
			return nil, io.EOF
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// took returns an item Read took from the queue.
func (c *ClientConn) took(it clientItem) (jsonrpc.Message, error) {
	c.readOf.Store(true)
	return it.msg, it.err
}

// SetResolver takes the engine's function that resolves a call with its
// response (see jsonrpc.ResolvingStream): a response read while the
// engine has taken everything queued before it goes to the waiting
// caller straight from the goroutine that read it, without waking the
// goroutine that calls Read.
func (c *ClientConn) SetResolver(resolve func(*jsonrpc.Response)) {
	c.mu.Lock()
	c.resolve = resolve
	c.mu.Unlock()
}

// put queues a received message for Read, waiting while the queue is full;
// it fails when ctx ends or the conn closes.
func (c *ClientConn) put(ctx context.Context, it clientItem) bool {
	c.unread.Add(1)
	select {
	case c.in <- it:
		return true
	case <-ctx.Done():
	case <-c.closed:
	}
	c.unread.Add(-1)
	return false
}

// deliver queues the messages of a stream or body (a batch is delivered
// member by member), doing the bookkeeping of responses: a response ends
// its call, is peeked at (initialize), and a response to a
// call not in flight (a duplicate from a replay, or an abandoned call) is
// dropped. It reports whether the response to want (if valid) was among
// them.
func (c *ClientConn) deliver(ctx context.Context, msg jsonrpc.Message, want jsonrpc.ID) (answered bool) {
	switch m := msg.(type) {
	case *jsonrpc.Batch:
		for _, x := range m.Messages {
			if c.deliver(ctx, x, want) {
				answered = true
			}
		}
		return answered
	case *jsonrpc.Response:
		c.mu.Lock()
		call := c.calls[m.ID]
		if call == nil {
			c.mu.Unlock()
			c.t.log.Debug("streamable: dropped a response to a call not in flight", "id", m.ID.String())
			return want.IsValid() && m.ID == want
		}
		delete(c.calls, m.ID)
		c.peekLocked(call, m)
		resolve := c.resolve
		c.mu.Unlock()
		close(call.done)
		// Straight to the caller when nothing read before it still waits
		// for the engine (the notifications of this stream, above all).
		if resolve != nil && c.unread.Load() == 0 {
			resolve(m)
		} else {
			c.put(ctx, clientItem{msg: m})
		}
		return want.IsValid() && m.ID == want
	}
	c.put(ctx, clientItem{msg: msg})
	return false
}

// fail answers call with a JSON-RPC error, unless it was answered,
// abandoned or aborted meanwhile, so that the caller's call fails.
func (c *ClientConn) fail(call *clientCall, e *jsonrpc.Error) {
	c.mu.Lock()
	if c.calls[call.id] != call {
		c.mu.Unlock()
		return
	}
	delete(c.calls, call.id)
	c.mu.Unlock()
	close(call.done)
	c.t.log.Debug("streamable: call failed", "method", call.method, "id", call.id.String(), "error", e.Message)
	c.put(c.ctx, clientItem{msg: &jsonrpc.Response{ID: call.id, Error: e}})
}

// forget drops call without answering it (the caller abandoned it).
func (c *ClientConn) forget(call *clientCall) {
	c.mu.Lock()
	if c.calls[call.id] == call {
		delete(c.calls, call.id)
		close(call.done)
	}
	c.mu.Unlock()
}

// Close ends the connection: it aborts the requests in flight and every
// stream, ends the legacy session with DELETE (a 405 answer is fine),
// waits for every goroutine of the connection, and makes Read return
// io.EOF. It is idempotent.
func (c *ClientConn) Close() error {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return nil
	}
	c.done = true
	sid, version, legacy := c.session, c.version, c.legacy
	c.mu.Unlock()
	close(c.closed)
	c.cancel()
	if legacy != nil {
		legacy.Close()
	}
	if sid != "" && legacy == nil {
		c.deleteSession(sid, version)
	}
	c.wg.Wait()
	if c.t.ownIdle != nil {
		c.t.ownIdle.CloseIdleConnections()
	}
	if c.h1 != nil {
		c.h1.closeIdle()
	}
	return nil
}

// deleteSession ends the legacy session sid, within a few seconds.
func (c *ClientConn) deleteSession(sid, version string) {
	ctx, cancel := context.WithTimeout(context.Background(), min(c.t.opts.ConnectTimeout, 5*time.Second))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return
	}
	c.setHeaders(req.Header, sid, version)
	resp, err := c.t.client.Do(req)
	if err != nil {
		c.t.log.Debug("streamable: DELETE of the session failed", "error", err)
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusMethodNotAllowed {
		c.t.log.Debug("streamable: DELETE of the session refused", "status", resp.Status)
	}
}

// setHeaders puts the user's headers, then the legacy session headers,
// on h.
func (c *ClientConn) setHeaders(h http.Header, sid, version string) {
	c.setUserHeaders(h)
	if version != "" {
		h[hdrKeyProtocolVersion] = []string{version}
	}
	if sid != "" {
		h[hdrKeySessionID] = []string{sid}
	}
}

// clientHost returns the Host header of requests to u, as
// http.NewRequest sets it: u.Host without an empty port.
func clientHost(u *url.URL) string {
	if strings.LastIndex(u.Host, ":") > strings.LastIndex(u.Host, "]") {
		return strings.TrimSuffix(u.Host, ":")
	}
	return u.Host
}

// clientRedacted returns u as net/http's errors show it: a password
// becomes "***".
func clientRedacted(u *url.URL) string {
	if _, has := u.User.Password(); has {
		v := *u
		v.User = url.UserPassword(u.User.Username(), "***")
		return v.String()
	}
	return u.String()
}

// setUserHeaders puts copies of ClientOptions.Header on h.
func (c *ClientConn) setUserHeaders(h http.Header) {
	for k, vs := range c.t.opts.Header {
		h[k] = append([]string(nil), vs...)
	}
}

// Canonical header names the client sets.
var (
	hdrKeyProtocolVersion = http.CanonicalHeaderKey(mcp.HeaderProtocolVersion)
	hdrKeySessionID       = http.CanonicalHeaderKey(mcp.HeaderSessionID)
	hdrKeyMethod          = http.CanonicalHeaderKey(mcp.HeaderMethod)
	hdrKeyName            = http.CanonicalHeaderKey(mcp.HeaderName)
	hdrKeyLastEventID     = http.CanonicalHeaderKey("Last-Event-ID")
)

// Address returns the endpoint URL (see transport.Addresser).
func (t *Transport) Address() string { return t.url }
