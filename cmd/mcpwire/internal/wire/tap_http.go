package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/sse"
)

// An HTTPTap is a reverse proxy in front of an MCP server reached over
// HTTP (Streamable HTTP in both eras, or the legacy HTTP+SSE transport):
// every request, on every path (the MCP endpoint, OAuth metadata, the
// legacy transport's message endpoint), goes to the upstream's host with
// its path, query and headers unchanged (Authorization included), and
// every answer comes back unchanged, SSE streams event by event as they
// arrive. On the side it records POST bodies as client frames, JSON
// answers and the data of SSE events as server frames.
//
// A request's body is read whole before the request goes on (a JSON-RPC
// message is of no use to a server before its end), and bounded: a body
// over MaxBody gets 413 and the connection is closed. So no connection is
// kept whose request body was not read to its end: the upstream may
// answer before it has read a body, but the rest of that body is never
// taken for requests of its own.
type HTTPTap struct {
	// Upstream is the server's endpoint; only its scheme and host are
	// used: the paths are the client's.
	Upstream *url.URL
	// Record receives each frame; it is never called at once.
	Record func(*frames.Record)
	// MaxFrame bounds what is kept of one body or event for the
	// recording; default DefaultMaxFrame. The bytes always pass whole.
	MaxFrame int
	// MaxBody bounds a request body; a larger one gets 413 and its
	// connection is closed. Default DefaultMaxBody.
	MaxBody int64
	// BodyTimeout bounds the time a request's body takes to arrive, from
	// the start of its reading; a slower one gets 408 and its connection
	// is closed. Default DefaultBodyTimeout. The answer (an SSE stream
	// may last as long as it likes) has no such bound.
	BodyTimeout time.Duration
	// WriteTimeout bounds each write of an answer to its client: a
	// client that has not taken one within it (it stopped reading) has
	// its connection closed, and the upstream's answer with it. Default
	// DefaultWriteTimeout. The answer as a whole has no bound.
	WriteTimeout time.Duration
	// MaxSessions bounds the sessions whose exchanges the tap matches
	// with each other (a response on a GET stream with the request
	// POSTed for it); default DefaultMaxSessions. Beyond it, the least
	// recently used session is no longer tracked (a warning is logged).
	MaxSessions int
	// SessionIdle is how long a session is tracked without an exchange;
	// default DefaultSessionIdle.
	SessionIdle time.Duration
	// Transport makes the upstream requests; default: a clone of
	// http.DefaultTransport that keeps up to DefaultMaxIdleUpstream idle
	// connections to the upstream (see upstreamTransport).
	Transport http.RoundTripper
	// Logger receives the proxy's errors; default: discarded.
	Logger *slog.Logger

	once     sync.Once
	proxy    *httputil.ReverseProxy
	mu       sync.Mutex // serializes Record
	sessions sessionTable
}

// DefaultMaxBody bounds the body of a request to an HTTPTap: the largest
// message mcpwire's peers read (jsonrpc.DefaultMaxMessageSize).
const DefaultMaxBody = jsonrpc.DefaultMaxMessageSize

// DefaultBodyTimeout bounds the time a request body takes to reach an
// HTTPTap: 30 s, 16 MiB at 0.5 MB/s.
const DefaultBodyTimeout = 30 * time.Second

// DefaultWriteTimeout bounds each write of an answer of an HTTPTap to
// its client: 30 s.
const DefaultWriteTimeout = 30 * time.Second

// DefaultMaxIdleUpstream bounds the idle connections to the upstream an
// HTTPTap keeps for its next requests (http.DefaultTransport keeps two per
// host: under more clients at once, each answer would close one and the
// next request dial another). Idle ones are closed after the
// transport's IdleConnTimeout (90 s).
const DefaultMaxIdleUpstream = 256

// The tap's server (newTapServer) bounds the time of a request's headers,
// and of an idle connection between requests.
const (
	tapHeaderTimeout = 30 * time.Second
	tapIdleTimeout   = 2 * time.Minute
)

// newTapServer returns the server of `mcpwire tap --listen`, serving tap:
// every input it reads bounded in time (headers, a body through
// HTTPTap.BodyTimeout, the wait for a connection's next request), and
// each write of an answer (HTTPTap.WriteTimeout), not the answers as a
// whole, which may be SSE streams of any length.
func newTapServer(tap *HTTPTap) *http.Server {
	return &http.Server{
		Handler:           tap,
		ReadHeaderTimeout: tapHeaderTimeout,
		IdleTimeout:       tapIdleTimeout,
	}
}

// An exchange is what the handling of an upstream answer needs to know of
// its request.
type exchange struct {
	tr      *transport.FrameTracker
	session string // the session the request named, or ""
	known   bool   // the tap tracks that session (tr is its tracker)
	method  string
}

// ServeHTTP proxies one request.
func (t *HTTPTap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	t.once.Do(t.init)
	rc := http.NewResponseController(w) // for the deadlines of the body and of the answer
	body, ok := t.readBody(w, rc, r)
	if !ok {
		return
	}
	x := &exchange{session: r.Header.Get(mcp.HeaderSessionID), method: r.Method}
	if x.session == "" {
		x.session = r.URL.Query().Get(sse.SessionParam)
	}
	if x.session != "" {
		x.tr = t.sessions.get(x.session)
		x.known = x.tr != nil
	}
	if x.tr == nil {
		x.tr = t.newTracker(x.session)
	}
	if r.Method == http.MethodPost && len(body) > 0 {
		over := len(body) > t.maxFrame()
		t.observe(x.tr, transport.Sent, body[:min(len(body), t.maxFrame())], over, 0)
	}
	out := r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x))
	if body != nil {
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	tw := &timedWriter{ResponseWriter: w, rc: rc, timeout: t.writeTimeout(), tap: t, req: r}
	t.proxy.ServeHTTP(tw, out)
	tw.arm() // for what the server writes after the handler: the answer's end
}

// A timedWriter is the ResponseWriter of an answer whose every write (and
// flush) has timeout to be taken by the client: a write deadline on the
// connection, set before each. A client that stops reading thus fails a
// write, and the reverse proxy, whose copy of the answer fails, closes
// the client's connection and the upstream's answer. (http.Server's
// WriteTimeout bounds a whole answer, which would cut SSE streams.)
type timedWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	tap     *HTTPTap
	req     *http.Request // the client's request, named in the log
	once    sync.Once
}

// arm sets the deadline of the next write.
func (w *timedWriter) arm() { w.rc.SetWriteDeadline(time.Now().Add(w.timeout)) }

// failed reports a write that timed out, the first time.
func (w *timedWriter) failed(err error) {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		w.once.Do(w.expired)
	}
}

// expired logs that the client did not take its answer in time.
func (w *timedWriter) expired() {
	r := w.req
	w.tap.log().Warn(fmt.Sprintf("tap: a client did not take its answer within %v: its connection and the upstream's answer are closed", w.timeout),
		"method", r.Method, "path", r.URL.Path, "client", r.RemoteAddr)
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.arm()
	n, err := w.ResponseWriter.Write(p)
	if err != nil {
		w.failed(err)
	}
	return n, err
}

// FlushError flushes the answer under the deadline (ReverseProxy flushes
// through http.ResponseController, which looks for it).
func (w *timedWriter) FlushError() error {
	w.arm()
	err := w.rc.Flush()
	if err != nil {
		w.failed(err)
	}
	return err
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// readBody reads the body of r whole, up to MaxBody, setting its
// deadlines through rc, the controller of w. It returns false when it
// answered the request itself (a body too large, or one that could not
// be read), closing the connection.
func (t *HTTPTap) readBody(w http.ResponseWriter, rc *http.ResponseController, r *http.Request) ([]byte, bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	limit := t.maxBody()
	refuse := func(status int, msg string) ([]byte, bool) {
		w.Header().Set("Connection", "close") // what is left of the body is not read
		rc.SetWriteDeadline(time.Now().Add(t.writeTimeout()))
		http.Error(w, msg, status)
		return nil, false
	}
	tooLarge := fmt.Sprintf("the request body exceeds %d bytes", limit)
	if r.ContentLength > limit {
		return refuse(http.StatusRequestEntityTooLarge, tooLarge)
	}
	// The body has BodyTimeout to arrive; the deadline is lifted once it
	// has, so that the answer is not cut. (http.Server.ReadTimeout would
	// stay, and end an SSE answer when it passes.) A writer without read
	// deadlines (not a server's) reads without one.
	rc.SetReadDeadline(time.Now().Add(t.bodyTimeout()))
	// MaxBytesReader tells net/http, too, that the body was cut.
	body, err := readAll(http.MaxBytesReader(w, r.Body, limit), r.ContentLength, limit)
	var tl *http.MaxBytesError
	switch {
	case errors.As(err, &tl):
		return refuse(http.StatusRequestEntityTooLarge, tooLarge)
	case errors.Is(err, os.ErrDeadlineExceeded):
		t.log().Info("tap: a request body was too slow", "method", r.Method, "path", r.URL.Path, "timeout", t.bodyTimeout())
		return refuse(http.StatusRequestTimeout, fmt.Sprintf("the request body did not arrive within %v", t.bodyTimeout()))
	case err != nil:
		t.log().Info("tap: reading a request body failed", "method", r.Method, "path", r.URL.Path, "error", err)
		return refuse(http.StatusBadRequest, "the request body could not be read")
	}
	rc.SetReadDeadline(time.Time{})
	return body, true
}

// readAll reads r to its end, expecting size bytes (when size >= 0), in
// a buffer that grows to limit+1 bytes at most: more is an
// *http.MaxBytesError. The buffer starts at 64 KiB at most, whatever size
// says, and doubles as the bytes come: memory is committed for what a
// client sends, not for what it declares.
func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(max(size, 512), limit, 64<<10)+1)
	for {
		if len(buf) == cap(buf) {
			more := min(int64(cap(buf)), limit+1-int64(cap(buf)))
			if more <= 0 {
				return nil, &http.MaxBytesError{Limit: limit}
			}
			buf = slices.Grow(buf, int(more))
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (t *HTTPTap) init() {
	t.sessions = sessionTable{max: t.MaxSessions, idle: t.SessionIdle, log: t.log()}
	if t.sessions.max <= 0 {
		t.sessions.max = DefaultMaxSessions
	}
	if t.sessions.idle <= 0 {
		t.sessions.idle = DefaultSessionIdle
	}
	t.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = t.Upstream.Scheme
			pr.Out.URL.Host = t.Upstream.Host
			pr.Out.Host = t.Upstream.Host
			// The request goes on as the client made it: no
			// X-Forwarded-* headers are added.
		},
		FlushInterval:  -1, // SSE events pass as they come
		BufferPool:     copyBuffers{},
		Transport:      t.upstreamTransport(),
		ModifyResponse: t.response,
		ErrorLog:       nil,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			t.log().Info("tap: the upstream request failed", "method", r.Method, "path", r.URL.Path, "error", err)
			w.WriteHeader(http.StatusBadGateway)
		},
	}
}

// copyBuffers are the buffers through which the tap copies answers to
// their clients: a request in flight holds one, then gives it back
// (httputil.ReverseProxy would make one of 32 KiB for each answer).
type copyBuffers struct{}

// copyBufferSize is the size of the tap's copy buffers: a message of an
// SSE stream or a small answer in one piece, a large answer in a few.
const copyBufferSize = 8 << 10

var copyBufferPool = sync.Pool{New: func() any { return new([copyBufferSize]byte) }}

func (copyBuffers) Get() []byte { return copyBufferPool.Get().(*[copyBufferSize]byte)[:] }

func (copyBuffers) Put(b []byte) {
	if cap(b) == copyBufferSize {
		copyBufferPool.Put((*[copyBufferSize]byte)(b[:copyBufferSize]))
	}
}

// upstreamTransport returns t.Transport, or the default: one connection
// to the upstream per request in flight, each kept for the next request
// when its answer is done, up to DefaultMaxIdleUpstream.
func (t *HTTPTap) upstreamTransport() http.RoundTripper {
	if t.Transport != nil {
		return t.Transport
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = DefaultMaxIdleUpstream
	tr.MaxIdleConnsPerHost = DefaultMaxIdleUpstream
	return tr
}

// response follows the sessions the upstream opens and ends, and puts a
// recording tee on the body of its answer.
func (t *HTTPTap) response(resp *http.Response) error {
	x, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	status := resp.StatusCode
	ok := status >= 200 && status < 300
	switch {
	case x.session != "" && (status == http.StatusNotFound || ok && x.method == http.MethodDelete):
		t.sessions.remove(x.session, nil) // the session is over
	case ok && !x.known:
		if sid := resp.Header.Get(mcp.HeaderSessionID); sid != "" { // the upstream opened a session
			x.tr.SetSession(sid)
			t.sessions.add(sid, x.tr)
		}
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case mt == "text/event-stream":
		var legacy string // the legacy session this stream carries
		resp.Body = &sseTee{ReadCloser: resp.Body, max: t.maxFrame(),
			event: func(name string, data []byte, over bool) {
				switch name {
				case "", "message":
					t.observe(x.tr, transport.Received, data, over, status)
				case "endpoint": // the legacy transport names its session
					if legacy == "" && ok && !over {
						if u, err := url.Parse(string(bytes.TrimSpace(data))); err == nil {
							if legacy = u.Query().Get(sse.SessionParam); legacy != "" {
								x.tr.SetSession(legacy)
								t.sessions.add(legacy, x.tr)
							}
						}
					}
				}
			},
			end: func() {
				if legacy != "" {
					t.sessions.remove(legacy, x.tr) // a legacy session ends with its stream
				}
			},
		}
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		resp.Body = &bodyTee{ReadCloser: resp.Body, max: t.maxFrame(), size: resp.ContentLength, done: func(b []byte, over bool) {
			t.observe(x.tr, transport.Received, b, over, status)
		}}
	}
	return nil
}

// newTracker returns a frame tracker for the exchanges of session sid
// (none if ""), recording what it sees.
func (t *HTTPTap) newTracker(sid string) *transport.FrameTracker {
	return transport.NewFrameTracker(transport.ObserverFunc(func(f *transport.Frame) {
		r := frames.FromFrame(f, frames.AtClient)
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.Record != nil {
			t.Record(&r)
		}
	}), transport.TransportStreamable, sid)
}

// observe shows one body or event to the tracker.
func (t *HTTPTap) observe(tr *transport.FrameTracker, dir transport.Direction, b []byte, over bool, status int) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return
	}
	var (
		msg jsonrpc.Message
		err error
	)
	if over {
		err = &jsonrpc.DecodeError{Err: jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the frame exceeds %d bytes; only its start was recorded", t.maxFrame())}
	} else {
		msg, err = jsonrpc.Decode(b, nil)
	}
	tr.Observe(dir, b, msg, err, status)
}

func (t *HTTPTap) maxBody() int64 {
	if t.MaxBody > 0 {
		return t.MaxBody
	}
	return DefaultMaxBody
}

func (t *HTTPTap) bodyTimeout() time.Duration {
	if t.BodyTimeout > 0 {
		return t.BodyTimeout
	}
	return DefaultBodyTimeout
}

func (t *HTTPTap) writeTimeout() time.Duration {
	if t.WriteTimeout > 0 {
		return t.WriteTimeout
	}
	return DefaultWriteTimeout
}

func (t *HTTPTap) maxFrame() int {
	if t.MaxFrame > 0 {
		return t.MaxFrame
	}
	return DefaultMaxFrame
}

func (t *HTTPTap) log() *slog.Logger {
	if t.Logger != nil {
		return t.Logger
	}
	return slog.New(slog.DiscardHandler)
}

type exchangeKey struct{}

// bodyTee passes a body through and keeps its first max bytes; done is
// called once, when the body is complete (before its last bytes are
// passed on, when its length is known, so that the frame is recorded
// before the peer can answer it), at its end, or when it is closed.
type bodyTee struct {
	io.ReadCloser
	max  int
	size int64 // the declared length, or -1
	read int64
	buf  []byte
	over bool
	once sync.Once
	done func(b []byte, over bool)
}

func (b *bodyTee) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if room := b.max - len(b.buf); n > room {
		b.buf = append(b.buf, p[:max(room, 0)]...)
		b.over = true
	} else {
		b.buf = append(b.buf, p[:n]...)
	}
	if err == io.EOF || b.size >= 0 && b.read >= b.size {
		b.finish()
	}
	return n, err
}

func (b *bodyTee) Close() error {
	b.finish()
	return b.ReadCloser.Close()
}

func (b *bodyTee) finish() { b.once.Do(func() { b.done(b.buf, b.over) }) }
