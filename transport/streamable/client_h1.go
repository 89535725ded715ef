package streamable

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// This file is the HTTP/1.1 client that sends the POSTs of calls when
// the transport uses an HTTP client of its own (ClientOptions.HTTPClient
// nil) on a plain http:// URL that no proxy serves: the path of every
// tools/call of a library user with default options. It does what
// net/http's Transport does for such a request, in the goroutine of the
// call: it writes the request on an idle keep-alive connection (or a new
// one, dialled with the Transport's dialer), reads the answer's headers,
// and gives the body to the call, putting the connection back among the
// idle ones once the body has been read to its end. net/http hands each
// request to two goroutines of its own per connection (a writer and a
// reader) and allocates about 45 objects per exchange (the request's
// bookkeeping, channels, contexts, the header map's strings); this costs
// no hand-off and a handful of objects (BenchmarkClientCallCanned).
//
// What it keeps of net/http's behaviour: the request line, Host,
// User-Agent (Go-http-client/1.1 unless the headers set one),
// Content-Length and Accept-Encoding: gzip (answers so compressed are
// decompressed); header names and values checked as net/http checks them;
// 1xx answers skipped (their headers counted in the limit of the final
// one's, as net/http counts them); bodies framed by Content-Length, chunked encoding
// (with trailers) or the end of the connection; keep-alive as HTTP/1.1
// and 1.0 define it; MaxIdleConnsPerHost, IdleConnTimeout and
// MaxResponseHeaderBytes of the Transport's http.Transport; a request
// cancelled with its context, at any point. An idle connection is checked
// before reuse: one the server closed meanwhile (an idle timeout) is
// dropped, as net/http's reader goroutine would have seen. Bodies over
// h1MaxBody, redirects after their first answer, HTTPS, proxies and
// platforms without the check go through net/http.

// h1MaxBody is the largest request body the HTTP/1.1 client sends: a
// larger one goes through net/http, which reads an answer that comes
// while the body is still being written (a server refusing it early).
const h1MaxBody = 32 << 10

// h1DefaultMaxHeaderBytes bounds an answer's headers when the
// http.Transport does not (net/http's default).
const h1DefaultMaxHeaderBytes = 10 << 20

// h1UserAgent is the User-Agent net/http sends by default.
const h1UserAgent = "Go-http-client/1.1"

// An h1Client sends requests to one host:port over HTTP/1.1 keep-alive
// connections.
type h1Client struct {
	addr        string // host:port to dial
	host        string // the Host header
	uri         string // the request target
	dial        func(ctx context.Context, network, addr string) (net.Conn, error)
	maxIdle     int
	idleTimeout time.Duration
	maxHeader   int

	mu    sync.Mutex
	idle  []*h1Conn   // the most recently used last
	sweep *time.Timer // runs sweepIdle while connections are idle; nil before the first
	armed bool        // sweep is due
}

// h1SweepEvery is how often idle connections are checked: those the
// server closed, or idle for longer than IdleConnTimeout, are closed
// (net/http's reader goroutines see the former at once).
var h1SweepEvery = 15 * time.Second // a variable for the tests

// h1MaxHeadBuffer is the largest scratch buffer for an answer's headers
// that a connection keeps.
const h1MaxHeadBuffer = 64 << 10

// newH1Client returns the HTTP/1.1 client of requests to u through tr's
// dialer and limits, or nil when u needs what only net/http does (HTTPS,
// a proxy, user information, a host name that is not ASCII, which
// net/http dials and sends in its IDNA form) or the platform cannot
// check idle connections.
func newH1Client(tr *http.Transport, u *url.URL) *h1Client {
	if !h1Supported || tr == nil || u.Scheme != "http" || u.User != nil || tr.DisableKeepAlives || tr.DialContext == nil || !h1ASCII(u.Host) {
		return nil
	}
	if tr.Proxy != nil {
		if p, err := tr.Proxy(&http.Request{Method: http.MethodPost, URL: u, Header: http.Header{}}); err != nil || p != nil {
			return nil
		}
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	c := &h1Client{
		addr:        net.JoinHostPort(u.Hostname(), port),
		host:        h1RemoveZone(clientHost(u)),
		uri:         u.RequestURI(),
		dial:        tr.DialContext,
		maxIdle:     tr.MaxIdleConnsPerHost,
		idleTimeout: tr.IdleConnTimeout,
		maxHeader:   int(tr.MaxResponseHeaderBytes),
	}
	if c.maxIdle <= 0 {
		c.maxIdle = http.DefaultMaxIdleConnsPerHost
	}
	if c.maxHeader <= 0 {
		c.maxHeader = h1DefaultMaxHeaderBytes
	}
	return c
}

// An h1Conn is one connection of an h1Client.
type h1Conn struct {
	cl        *h1Client
	nc        net.Conn
	br        *bufio.Reader
	bw        *bufio.Writer
	alive     func() bool // reports whether an idle connection is still open (h1Alive)
	interrupt func()      // unblocks the conn's reads and writes: the request's context ended
	idleSince time.Time
	reused    bool
	head      []byte // scratch: the status line and headers of an answer
}

// closeIdle closes the idle connections.
func (cl *h1Client) closeIdle() {
	cl.mu.Lock()
	idle := cl.idle
	cl.idle = nil
	if cl.armed {
		cl.armed = false
		cl.sweep.Stop()
	}
	cl.mu.Unlock()
	for _, pc := range idle {
		pc.nc.Close()
	}
}

// sweepIdle closes the idle connections that cannot be used any more.
func (cl *h1Client) sweepIdle() {
	cl.mu.Lock()
	if !cl.armed {
		cl.mu.Unlock()
		return
	}
	kept := cl.idle[:0]
	var dead []*h1Conn
	for _, pc := range cl.idle {
		if cl.usable(pc) {
			kept = append(kept, pc)
		} else {
			dead = append(dead, pc)
		}
	}
	clear(cl.idle[len(kept):])
	cl.idle = kept
	cl.armed = len(kept) > 0
	if cl.armed {
		cl.sweep.Reset(h1SweepEvery)
	}
	cl.mu.Unlock()
	for _, pc := range dead {
		pc.nc.Close()
	}
}

// usable reports whether the idle connection pc may carry a request: not
// idle for too long, and still open.
func (cl *h1Client) usable(pc *h1Conn) bool {
	return (cl.idleTimeout <= 0 || time.Since(pc.idleSince) <= cl.idleTimeout) && pc.alive()
}

// get returns an idle connection that is still open, or dials a new one.
func (cl *h1Client) get(ctx context.Context) (*h1Conn, error) {
	for {
		cl.mu.Lock()
		n := len(cl.idle)
		if n == 0 {
			cl.mu.Unlock()
			break
		}
		pc := cl.idle[n-1]
		cl.idle[n-1] = nil
		cl.idle = cl.idle[:n-1]
		cl.mu.Unlock()
		if !cl.usable(pc) {
			pc.nc.Close()
			continue
		}
		pc.reused = true
		return pc, nil
	}
	nc, err := cl.dial(ctx, "tcp", cl.addr)
	if err != nil {
		return nil, err
	}
	pc := &h1Conn{cl: cl, nc: nc, br: bufio.NewReaderSize(nc, 16<<10), bw: bufio.NewWriterSize(nc, 16<<10)}
	pc.alive = h1Alive(nc)
	pc.interrupt = pc.stop
	return pc, nil
}

// stop makes the conn's blocked reads and writes return at once.
func (pc *h1Conn) stop() { pc.nc.SetDeadline(time.Unix(1, 0)) }

// put makes pc idle, or closes it when enough are.
func (cl *h1Client) put(pc *h1Conn) {
	pc.idleSince = time.Now()
	cl.mu.Lock()
	if len(cl.idle) < cl.maxIdle {
		cl.idle = append(cl.idle, pc)
		if !cl.armed {
			cl.armed = true
			if cl.sweep == nil {
				cl.sweep = time.AfterFunc(h1SweepEvery, cl.sweepIdle)
			} else {
				cl.sweep.Reset(h1SweepEvery)
			}
		}
		cl.mu.Unlock()
		return
	}
	cl.mu.Unlock()
	pc.nc.Close()
}

// roundTrip POSTs body with the headers h, within ctx, and returns the
// answer, as http.Transport.RoundTrip would. wrote is called once the
// request has been written. The response's body must be closed; its
// Request is not set.
func (cl *h1Client) roundTrip(ctx context.Context, h http.Header, body []byte, wrote func(httptrace.WroteRequestInfo)) (*http.Response, error) {
	if err := h1CheckHeader(h); err != nil {
		return nil, err
	}
	for {
		pc, err := cl.get(ctx)
		if err != nil {
			return nil, err
		}
		resp, retry, err := pc.roundTrip(ctx, h, body, wrote)
		if retry && ctx.Err() == nil {
			continue // a reused connection the server had closed: nothing was sent
		}
		return resp, err
	}
}

// roundTrip sends the request on pc and reads the answer's headers. retry
// reports a failure to write on a reused connection, which sent nothing
// the server took.
func (pc *h1Conn) roundTrip(ctx context.Context, h http.Header, body []byte, wrote func(httptrace.WroteRequestInfo)) (resp *http.Response, retry bool, err error) {
	stop := context.AfterFunc(ctx, pc.interrupt)
	fail := func(err error) (*http.Response, bool, error) {
		stop()
		pc.nc.Close()
		if ctx.Err() != nil {
			err = ctx.Err() // as net/http reports a cancelled request
		}
		return nil, false, err
	}
	gz := pc.writeRequest(h, body)
	if err := pc.bw.Flush(); err != nil {
		pc.bw.Reset(pc.nc)
		if pc.reused && ctx.Err() == nil {
			stop()
			pc.nc.Close()
			return nil, true, nil
		}
		return fail(err)
	}
	wrote(httptrace.WroteRequestInfo{})
	// Informational answers are skipped; the bytes of all the headers,
	// theirs and the final one's, are bounded together, as net/http
	// bounds them when no trace looks at the informational ones.
	for left := pc.cl.maxHeader; ; {
		var n int
		resp, n, err = pc.readHead(left)
		if err != nil {
			return fail(err)
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
		left -= n
	}
	if err := pc.frame(ctx, resp, gz, stop); err != nil {
		return fail(err)
	}
	return resp, false, nil
}

// writeRequest writes the POST of body with header h into pc.bw, and
// reports whether it asked for gzip.
func (pc *h1Conn) writeRequest(h http.Header, body []byte) (gz bool) {
	w := pc.bw
	cl := pc.cl
	w.WriteString("POST ")
	w.WriteString(cl.uri)
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(cl.host)
	w.WriteString("\r\n")
	ua := h1UserAgent
	if vs, ok := h["User-Agent"]; ok {
		ua = ""
		if len(vs) > 0 {
			ua = vs[0]
		}
	}
	if ua != "" {
		w.WriteString("User-Agent: ")
		w.WriteString(textproto.TrimString(ua))
		w.WriteString("\r\n")
	}
	w.WriteString("Content-Length: ")
	pc.head = strconv.AppendInt(pc.head[:0], int64(len(body)), 10) // the scratch of readHead, free now
	w.Write(pc.head)
	w.WriteString("\r\n")
	for k, vs := range h {
		switch k {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			continue // as net/http: its own, or never from the map
		}
		for _, v := range vs {
			w.WriteString(k)
			w.WriteString(": ")
			w.WriteString(textproto.TrimString(v))
			w.WriteString("\r\n")
		}
	}
	if len(h["Accept-Encoding"]) == 0 && len(h["Range"]) == 0 {
		w.WriteString("Accept-Encoding: gzip\r\n")
		gz = true
	}
	w.WriteString("\r\n")
	w.Write(body)
	return gz
}

// h1CheckHeader checks header names and values as net/http does before
// sending.
func h1CheckHeader(h http.Header) error {
	for k, vs := range h {
		if !h1ValidName(k) {
			return fmt.Errorf("net/http: invalid header field name %q", k)
		}
		for _, v := range vs {
			if !h1ValidValue(v) {
				return fmt.Errorf("net/http: invalid header field value for %q", k)
			}
		}
	}
	return nil
}

// h1ValidName reports whether k is a token (RFC 9110).
func h1ValidName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// h1ValidValue reports whether v has no control characters but tabs.
func h1ValidValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// h1RemoveZone removes the zone of an IPv6 address from a Host header
// value, as net/http does: "[fe80::1%25en0]:8080" becomes
// "[fe80::1]:8080".
func h1RemoveZone(host string) string {
	if !strings.HasPrefix(host, "[") {
		return host
	}
	i := strings.LastIndex(host, "]")
	j := strings.LastIndex(host[:max(i, 0)], "%")
	if i < 0 || j < 0 {
		return host
	}
	return host[:j] + host[i:]
}

// h1ASCII reports whether s is ASCII.
func h1ASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
