package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// An MCP server named by --url is reached over Streamable HTTP; the
// client falls back to the older HTTP+SSE transport by itself when the
// server refuses initialize as such servers do. Requests go through
// three layers, over the streamable transport's own HTTP client
// (streamable.ClientOptions.WrapTransport):
//
//	streamable client ─► watch (errors) ─► auth.Transport ─► watch (challenges) ─► HTTP/1.1 client or net/http
//
// The POST of a call that reaches the bottom with the streamable
// client's body, URL and Host (with or without a token: auth.Transport
// changes only headers) goes through the transport's HTTP/1.1 client; a
// retry after a 401 or 403 (its body fetched again), the other requests,
// those of Target.WrapHTTP's recorder (which replaces the body) and
// those of mcpwire check go through net/http.
//
// auth.Transport sends the token of the token store that belongs to the
// server, renewing it with its refresh token when it has expired (and
// saving the new one). It has no Authorizer: outside mcpwire login no
// browser is ever opened, so a server that needs the user's consent
// (no token yet, a refused refresh, or a tool that needs more scopes)
// makes the operation fail, and the watch turns that failure into a hint
// to log in, with exit code 4.
//
// Without a stored token the first request goes out bare; the server's
// 401 starts discovery (its Protected Resource Metadata, then its
// authorization server's metadata), which locates the stored token. A
// request that already carries an Authorization header (--header) is
// passed through untouched.

// connectHTTP builds the link to the MCP server at t.URL.
func connectHTTP(t *Target, log *slog.Logger) (*Link, error) {
	l, err := newHTTPLayers(t, log)
	if err != nil {
		return nil, err
	}
	tr := streamable.NewTransport(t.URL, &streamable.ClientOptions{WrapTransport: l.wrap, Header: l.header, Logger: log, Observer: t.Observer})
	// The streamable transport closes its idle connections with the
	// session; the authorization client's are closed here.
	return &Link{Transport: tr, diagnose: l.watch.diagnose, release: l.auth.CloseIdleConnections}, nil
}

// An HTTPLink is what a verb needs to make its own HTTP requests to the
// server of a target (mcpwire check sends malformed ones on purpose): the
// client that sends the stored token, the --header headers, and the
// function that frees the client's idle connections.
type HTTPLink struct {
	Client  *http.Client
	Header  http.Header
	Release func()
	// Explain explains a failed request in the words of the other verbs
	// (a login needed, a server that cannot be reached), or returns nil.
	Explain func(err error) error
}

// HTTPLink returns the HTTP client and headers of the target t, which
// names a server by URL.
func (a *App) HTTPLink(t *Target) (*HTTPLink, error) {
	l, err := newHTTPLayers(t, a.Logger())
	if err != nil {
		return nil, err
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = streamable.DefaultMaxIdleConnsPerHost // Go's 2 would reopen connections
	client := &http.Client{Transport: l.wrap(base)}
	release := func() {
		l.auth.CloseIdleConnections() // the authorization client's
		base.CloseIdleConnections()
	}
	return &HTTPLink{Client: client, Header: l.header, Release: release, Explain: l.watch.diagnose}, nil
}

// httpLayers are the layers of the HTTP requests to the server of a
// target (see the top of this file), its headers, and what watches its
// errors.
type httpLayers struct {
	header    http.Header
	watch     *httpWatch
	auth      *auth.Transport
	challenge *challengeWatch // below auth: its next is set by wrap
	wrapHTTP  func(http.RoundTripper) http.RoundTripper
}

// newHTTPLayers builds the layers of t; wrap puts them over the
// RoundTripper that sends the requests, once.
func newHTTPLayers(t *Target, log *slog.Logger) (*httpLayers, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, UsageErrorf("--url %q: %v", t.URL, err)
	}
	hdr := make(http.Header)
	for _, h := range t.Headers {
		hdr.Add(h.Key, h.Value)
	}
	w := &httpWatch{url: t.URL, login: "--url " + t.URL, authHeader: hdr.Get("Authorization") != ""}
	if t.Config != nil {
		w.login = "@" + t.Config.Name
	}
	var store auth.TokenStore = &auth.MemoryTokenStore{}
	if t.TokenStore != "" {
		store = auth.NewFileTokenStore(t.TokenStore)
	}
	cw := &challengeWatch{w: w}
	at, err := auth.NewTransport(cw, &auth.ClientOptions{
		Store:             store,
		AllowLoopbackHTTP: IsLoopback(u),
		Logger:            log,
	})
	if err != nil {
		return nil, err
	}
	return &httpLayers{header: hdr, watch: w, auth: at, challenge: cw, wrapHTTP: t.WrapHTTP}, nil
}

// wrap puts the layers over wire, which sends the requests (through
// Target.WrapHTTP's layer, if any).
func (l *httpLayers) wrap(wire http.RoundTripper) http.RoundTripper {
	if l.wrapHTTP != nil {
		wire = l.wrapHTTP(wire)
	}
	l.challenge.next = wire
	return &errorWatch{w: l.watch, next: l.auth}
}

// IsLoopback reports whether u names this machine. Authorization
// metadata and endpoints must be https, except on loopback addresses for
// a server on one (development servers, and tests).
func IsLoopback(u *url.URL) bool {
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpWatch records what went wrong in the exchanges with one HTTP
// server, to explain a failed operation: the errors of the network and of
// the authorization layer, and the server's last challenge.
type httpWatch struct {
	url        string // --url
	login      string // how mcpwire login names the server: "--url URL", or "@NAME"
	authHeader bool   // --header gave an Authorization header

	mu        sync.Mutex
	needLogin bool           // authorization needed the user, who is not there
	authErr   error          // the last error of the authorization layer, if any
	status    int            // the status of the last 401 or 403, if any
	challenge auth.Challenge // its Bearer challenge
	bearer    bool           // it had one
}

// challengeWatch is the layer below auth.Transport: it records the
// server's 401 and 403 answers (which auth.Transport consumes) and the
// errors of the network.
type challengeWatch struct {
	w    *httpWatch
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (c *challengeWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	if err == nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		c.w.status = resp.StatusCode
		c.w.challenge, c.w.bearer = auth.BearerChallenge(resp.Header)
	}
	return resp, err
}

// errorWatch is the layer above auth.Transport: it records the errors of
// the authorization layer.
type errorWatch struct {
	w    *httpWatch
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (e *errorWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := e.next.RoundTrip(req)
	if err != nil && !isContextError(err) && isAuthError(err) {
		e.w.mu.Lock()
		if errors.Is(err, auth.ErrNoAuthorizer) {
			e.w.needLogin = true
		} else {
			e.w.authErr = err
		}
		e.w.mu.Unlock()
	}
	return resp, err
}

// isAuthError reports whether err comes from package auth (whose errors
// all start with "auth: ") rather than from the network below it.
func isAuthError(err error) bool {
	var oe *auth.OAuthError
	return errors.As(err, &oe) || strings.HasPrefix(err.Error(), "auth: ")
}

func isContextError(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// diagnose explains why an operation with the server failed, or returns
// nil to let the generic description stand (a timeout, an error of the
// MCP server itself).
func (w *httpWatch) diagnose(err error) error {
	if isContextError(err) {
		return nil
	}
	w.mu.Lock()
	needLogin, authErr, status, ch, bearer := w.needLogin, w.authErr, w.status, w.challenge, w.bearer
	w.mu.Unlock()
	switch {
	case needLogin && status == http.StatusUnauthorized && !bearer:
		// No challenge: OAuth at the 2025-03-26 default endpoints, or
		// another scheme altogether.
		return &ExitError{Code: ExitConnect, Err: fmt.Errorf("the server at %s needs authorization (HTTP 401, no Bearer challenge): pass credentials with --header, or run mcpwire login %s", w.url, w.login)}
	case needLogin && status == http.StatusForbidden && len(ch.Scopes()) > 0:
		scopes := ch.Scopes()
		return &ExitError{Code: ExitConnect, Err: fmt.Errorf("the server needs more authorization (scope %s): run mcpwire login %s --scope %s",
			strings.Join(scopes, " "), w.login, strings.Join(scopes, " --scope "))}
	case needLogin:
		return &ExitError{Code: ExitConnect, Err: fmt.Errorf("the server at %s needs authorization: run mcpwire login %s", w.url, w.login)}
	case authErr != nil:
		return &ExitError{Code: ExitConnect, Err: fmt.Errorf("authorization with %s failed: %s", w.url, strings.TrimPrefix(OneLine(authErr.Error()), "auth: "))}
	}
	// The transports keep the Go cause of a failed request: the
	// network's error, or the HTTP status refused it with.
	if d := DescribeNetError(err, w.url); d != nil {
		return d
	}
	var je *jsonrpc.Error
	var se *streamable.HTTPStatusError
	if errors.As(err, &je) && errors.As(err, &se) {
		if se.StatusCode == http.StatusNotFound {
			if d := w.notFoundAtRoot(); d != nil {
				return d
			}
		}
		return w.describeStatus(se.StatusCode, je, ch)
	}
	return nil
}

// notFoundAtRoot explains a 404 for a URL without a path (as
// http://localhost:3000 for examples/http's http://localhost:3000/mcp):
// MCP endpoints have one, most often /mcp. It returns nil for a URL with
// a path, whose 404 is told as it is.
func (w *httpWatch) notFoundAtRoot() error {
	u, err := url.Parse(w.url)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return nil
	}
	u.Path, u.RawPath, u.RawQuery = "/mcp", "", ""
	where := "try --url " + u.String()
	if strings.HasPrefix(w.login, "@") {
		where = "try " + u.String() + " in the configuration of " + w.login
	}
	return &ExitError{Code: ExitConnect, Err: fmt.Errorf("%s answered 404 Not Found (nothing is served there): MCP endpoints have a path; %s", w.url, where)}
}

// describeStatus explains an HTTP error status of the server, whose last
// challenge was ch: "POST URL: HTTP 500 Internal Server Error: BODY", as
// the streamable client says it, but for refused credentials.
func (w *httpWatch) describeStatus(status int, je *jsonrpc.Error, ch auth.Challenge) error {
	if status != http.StatusUnauthorized {
		return errors.New(TrimPrefixes(je.Message))
	}
	why := "HTTP 401"
	if e := ch.Param("error"); e != "" {
		why += ": " + e
		if d := ch.Param("error_description"); d != "" {
			why += ": " + OneLine(d)
		}
	}
	if w.authHeader {
		return &ExitError{Code: ExitConnect, Err: fmt.Errorf("the server refused the Authorization header given with --header (%s)", why)}
	}
	return &ExitError{Code: ExitConnect, Err: fmt.Errorf("the server refused the authorization (%s): run mcpwire login %s", why, w.login)}
}

// DescribeNetError explains an error of the network or of TLS in reaching
// the server at serverURL, or returns nil for an error of another kind:
// "cannot connect to URL: connection refused (is the server running?)".
func DescribeNetError(err error, serverURL string) error {
	var (
		cert   *tls.CertificateVerificationError
		record tls.RecordHeaderError
		alert  tls.AlertError
		host   x509.HostnameError
		dns    *net.DNSError
		op     *net.OpError
	)
	switch {
	case errors.As(err, &host):
		return fmt.Errorf("TLS error with %s: the server's certificate is not valid for this name: %v", serverURL, host)
	case errors.As(err, &cert):
		return fmt.Errorf("TLS error with %s: the server's certificate is not trusted: %v", serverURL, cert.Err)
	case errors.As(err, &record):
		return fmt.Errorf("TLS error with %s: the server does not speak TLS (try http://)", serverURL)
	case errors.As(err, &alert):
		return fmt.Errorf("TLS error with %s: the server ended the handshake: %v", serverURL, alert)
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Errorf("cannot connect to %s: no such host %q", serverURL, dns.Name)
	case errors.As(err, &dns):
		return fmt.Errorf("cannot connect to %s: looking up %q: %s", serverURL, dns.Name, dns.Err)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot connect to %s: connection refused (is the server running?)", serverURL)
	case errors.As(err, &op) && op.Op == "dial":
		return fmt.Errorf("cannot connect to %s: %v", serverURL, op.Err)
	case errors.As(err, &op):
		return fmt.Errorf("the connection to %s failed: %v", serverURL, op.Err)
	case strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http's wording of a tls.RecordHeaderError.
		return fmt.Errorf("TLS error with %s: the server does not speak TLS (try http://)", serverURL)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the connection to %s failed: the server closed it without answering", serverURL)
	case errors.Is(err, syscall.ECONNRESET):
		return fmt.Errorf("the connection to %s failed: reset by the server", serverURL)
	case strings.Contains(err.Error(), "tls: "):
		_, tail, _ := strings.Cut(err.Error(), "tls: ")
		return fmt.Errorf("TLS error with %s: %s", serverURL, tail)
	}
	return nil
}
