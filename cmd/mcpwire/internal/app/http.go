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
// three layers:
//
//	streamable client ─► watch (errors) ─► auth.Transport ─► watch (challenges) ─► net/http
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
	client, hdr, w, release, err := httpClient(t, log)
	if err != nil {
		return nil, err
	}
	tr := streamable.NewTransport(t.URL, &streamable.ClientOptions{HTTPClient: client, Header: hdr, Logger: log, Observer: t.Observer})
	return &Link{Transport: tr, diagnose: w.diagnose, release: release}, nil
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
	client, hdr, w, release, err := httpClient(t, a.Logger())
	if err != nil {
		return nil, err
	}
	return &HTTPLink{Client: client, Header: hdr, Release: release, Explain: w.diagnose}, nil
}

// httpClient builds the HTTP client of t (see the top of this file), its
// headers, what watches its errors, and what frees its connections.
func httpClient(t *Target, log *slog.Logger) (*http.Client, http.Header, *httpWatch, func(), error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, nil, nil, nil, UsageErrorf("--url %q: %v", t.URL, err)
	}
	hdr := make(http.Header)
	for _, h := range t.Headers {
		hdr.Add(h.Key, h.Value)
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = streamable.DefaultMaxIdleConnsPerHost // Go's 2 would reopen connections under -c N
	var wire http.RoundTripper = base
	if t.WrapHTTP != nil {
		wire = t.WrapHTTP(base)
	}
	w := &httpWatch{url: t.URL, login: "--url " + t.URL, authHeader: hdr.Get("Authorization") != ""}
	if t.Config != nil {
		w.login = "@" + t.Config.Name
	}
	var store auth.TokenStore = &auth.MemoryTokenStore{}
	if t.TokenStore != "" {
		store = auth.NewFileTokenStore(t.TokenStore)
	}
	at, err := auth.NewTransport(&challengeWatch{w: w, next: wire}, &auth.ClientOptions{
		Store:             store,
		AllowLoopbackHTTP: IsLoopback(u),
		Logger:            log,
	})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	client := &http.Client{Transport: &errorWatch{w: w, next: at}}
	release := func() {
		at.CloseIdleConnections() // base's and the authorization client's
		base.CloseIdleConnections()
	}
	return client, hdr, w, release, nil
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
