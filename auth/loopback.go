package auth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LoopbackOptions configure a LoopbackAuthorizer.
type LoopbackOptions struct {
	// Host is the loopback address to listen on and to name in the
	// redirect URI: "127.0.0.1" (default), "::1" or "localhost".
	Host string
	// Port to listen on; 0 (default) picks a free one.
	Port int
	// Path of the redirect URI. Default "/callback".
	Path string
	// OpenBrowser opens the authorization URL. Default: the package's
	// OpenBrowser. It is not called when NoBrowser is set.
	OpenBrowser func(ctx context.Context, url string) error
	// NoBrowser only prints the URL (to Output) for the user to open.
	NoBrowser bool
	// Output receives the URL to open and progress messages for the
	// user; nil prints nothing (then a browser that fails to open is an
	// error).
	Output io.Writer
	// Timeout bounds the wait for the user. Default 5 minutes.
	Timeout time.Duration
}

// A LoopbackAuthorizer is the interactive Authorizer of command-line
// tools (RFC 8252 §7.3): it listens on a loopback port from creation
// until Close, opens the authorization URL in the user's browser (or
// prints it), and waits for the browser to come back to its redirect
// URI, where it shows a page saying the window can be closed.
//
// Only requests to its path, with the Host of its redirect URI, and with
// the state of an authorization in progress are accepted; anything else
// gets an error page and is ignored.
type LoopbackAuthorizer struct {
	opts     LoopbackOptions
	redirect *url.URL
	srv      *http.Server
	served   chan struct{} // closed when the serving goroutine ends

	mu      sync.Mutex
	waiting map[string]chan *url.URL // by state
	closed  bool
}

// NewLoopbackAuthorizer starts listening and returns the authorizer;
// Close it when done.
func NewLoopbackAuthorizer(opts *LoopbackOptions) (*LoopbackAuthorizer, error) {
	a := &LoopbackAuthorizer{waiting: map[string]chan *url.URL{}, served: make(chan struct{})}
	if opts != nil {
		a.opts = *opts
	}
	o := &a.opts
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	if !isLoopbackHost(o.Host) {
		return nil, fmt.Errorf("auth: loopback authorizer host %q is not a loopback address", o.Host)
	}
	if o.Path == "" {
		o.Path = "/callback"
	}
	if !strings.HasPrefix(o.Path, "/") {
		return nil, fmt.Errorf("auth: loopback authorizer path %q must start with /", o.Path)
	}
	if o.Timeout <= 0 {
		o.Timeout = waitTimeout
	}
	if o.OpenBrowser == nil {
		o.OpenBrowser = OpenBrowser
	}
	listenHost := o.Host
	if strings.EqualFold(listenHost, "localhost") {
		listenHost = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(strings.Trim(listenHost, "[]"), strconv.Itoa(o.Port)))
	if err != nil {
		return nil, fmt.Errorf("auth: loopback authorizer: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	a.redirect = &url.URL{Scheme: "http", Host: net.JoinHostPort(strings.Trim(o.Host, "[]"), strconv.Itoa(port)), Path: o.Path}
	a.srv = &http.Server{
		Handler:           http.HandlerFunc(a.serveHTTP),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       30 * time.Second,
		MaxHeaderBytes:    32 << 10,
	}
	go func() {
		defer close(a.served)
		a.srv.Serve(ln)
	}()
	return a, nil
}

// RedirectURI implements Authorizer: http://127.0.0.1:<port>/callback.
func (a *LoopbackAuthorizer) RedirectURI() string { return a.redirect.String() }

// Close stops listening and ends any authorization in progress.
func (a *LoopbackAuthorizer) Close() error {
	a.mu.Lock()
	a.closed = true
	for state, ch := range a.waiting {
		close(ch)
		delete(a.waiting, state)
	}
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := a.srv.Shutdown(ctx)
	if err != nil {
		a.srv.Close()
	}
	<-a.served
	return err
}

// Authorize implements Authorizer: it opens authURL in a browser (or
// prints it) and waits for the redirect back, the context, the timeout
// or Close.
func (a *LoopbackAuthorizer) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	u, err := url.Parse(authURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%w: %q", ErrUnsafeAuthorizationURL, authURL)
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("auth: authorization URL has no state")
	}
	ch := make(chan *url.URL, 1)
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil, errAuthorizerClosed
	}
	a.waiting[state] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		if a.waiting[state] == ch {
			delete(a.waiting, state)
		}
		a.mu.Unlock()
	}()

	out := a.opts.Output
	if out != nil {
		fmt.Fprintf(out, "To authorize, open this URL in your browser:\n\n  %s\n\n", u.String())
	}
	if !a.opts.NoBrowser {
		if err := a.opts.OpenBrowser(ctx, u.String()); err != nil {
			if out == nil {
				return nil, err
			}
			fmt.Fprintf(out, "(could not open a browser: %v)\n", err)
		}
	}
	timer := time.NewTimer(a.opts.Timeout)
	defer timer.Stop()
	select {
	case cb, ok := <-ch:
		if !ok {
			return nil, errAuthorizerClosed
		}
		return cb, nil
	case <-timer.C:
		return nil, fmt.Errorf("auth: no authorization response within %v", a.opts.Timeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (a *LoopbackAuthorizer) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	if !strings.EqualFold(r.Host, a.redirect.Host) && !strings.EqualFold(r.Host, "localhost:"+a.redirect.Port()) &&
		!strings.EqualFold(r.Host, "127.0.0.1:"+a.redirect.Port()) {
		page(w, http.StatusForbidden, "Wrong host", "This page only answers on its own loopback address.")
		return
	}
	if r.URL.Path != a.redirect.Path {
		page(w, http.StatusNotFound, "Not found", "Nothing here.")
		return
	}
	if r.Method != http.MethodGet {
		h.Set("Allow", "GET")
		page(w, http.StatusMethodNotAllowed, "Method not allowed", "Use GET.")
		return
	}
	q := r.URL.Query()
	a.mu.Lock()
	ch, ok := a.waiting[q.Get("state")]
	if ok {
		delete(a.waiting, q.Get("state")) // single use
	}
	a.mu.Unlock()
	if !ok {
		page(w, http.StatusBadRequest, "Unknown authorization", "This authorization is unknown or already finished. Start again from your application.")
		return
	}
	cb := *a.redirect
	cb.RawQuery = r.URL.RawQuery
	ch <- &cb
	if e := q.Get("error"); e != "" {
		page(w, http.StatusOK, "Authorization failed", "The authorization server said: "+e+". You can close this window.")
		return
	}
	page(w, http.StatusOK, "Authorization complete", "You can close this window and return to your application.")
}

func page(w http.ResponseWriter, status int, title, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<!doctype html><html><head><meta charset="utf-8"><title>%s</title>`+
		`<style>body{font-family:system-ui,sans-serif;margin:4em auto;max-width:32em;text-align:center}</style>`+
		`</head><body><h1>%s</h1><p>%s</p></body></html>`,
		html.EscapeString(title), html.EscapeString(title), html.EscapeString(msg))
}
