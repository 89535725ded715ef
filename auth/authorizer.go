package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// An Authorizer performs the user's step of the authorization code
// grant: it sends the user to the authorization URL and returns the URL
// the authorization server redirected the user back to (the redirect
// URI with code, state and iss). The Transport checks that response;
// the Authorizer only transports it.
type Authorizer interface {
	// RedirectURI is the redirect URI to register and to send in
	// authorization requests: https, or http on a loopback host.
	RedirectURI() string
	// Authorize sends the user to authURL (an http or https URL, already
	// checked) and waits for the redirect back.
	Authorize(ctx context.Context, authURL string) (*url.URL, error)
}

// HeadlessAuthorizer completes authorization without a user or a
// browser: it GETs the authorization URL without following redirects
// and returns the Location of the redirect. This works with
// authorization servers that grant without interaction, as test
// servers and the conformance suite's mocks do; for others it fails with
// an error saying that the server wants a user.
type HeadlessAuthorizer struct {
	// RedirectURL is the redirect URI. Default
	// "http://127.0.0.1/callback": nothing needs to listen there.
	RedirectURL string
	// HTTPClient sends the request. Default: a client with a 30-second
	// timeout that follows no redirects. A client that follows redirects
	// must stop before the redirect URI.
	HTTPClient *http.Client
}

// RedirectURI implements Authorizer.
func (h *HeadlessAuthorizer) RedirectURI() string {
	if h.RedirectURL == "" {
		return "http://127.0.0.1/callback"
	}
	return h.RedirectURL
}

var headlessClient = &http.Client{
	Timeout:       DefaultRequestTimeout,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// Authorize implements Authorizer.
func (h *HeadlessAuthorizer) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	u, err := url.Parse(authURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("%w: %q", ErrUnsafeAuthorizationURL, authURL)
	}
	c := h.HTTPClient
	if c == nil {
		c = headlessClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	drain(resp)
	loc := resp.Header.Get("Location")
	if resp.StatusCode < 300 || resp.StatusCode > 399 || loc == "" {
		return nil, fmt.Errorf("auth: the authorization server answered %d instead of redirecting: it needs a user (use an interactive Authorizer)", resp.StatusCode)
	}
	target, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("auth: authorization redirect: %w", err)
	}
	want, err := url.Parse(h.RedirectURI())
	if err != nil {
		return nil, err
	}
	if !sameRedirectTarget(target, want) {
		return nil, fmt.Errorf("auth: the authorization server redirected to %s, not to the redirect URI: it needs a user (use an interactive Authorizer)", redact(target))
	}
	return target, nil
}

// OpenBrowser opens rawURL, which must be an http or https URL, in the
// user's browser: xdg-open on Linux and BSDs, open on macOS, the URL
// protocol handler on Windows. The program runs directly, never through
// a shell, and the URL is its only argument. It returns once the opener
// has started; it does not wait for the browser.
func OpenBrowser(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("%w: %q", ErrUnsafeAuthorizationURL, rawURL)
	}
	s := u.String() // re-encoded: no spaces or control characters
	if strings.HasPrefix(s, "-") {
		return fmt.Errorf("%w: %q", ErrUnsafeAuthorizationURL, rawURL)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.CommandContext(ctx, "open", s)
	case "windows":
		cmd = exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", s)
	default:
		cmd = exec.CommandContext(ctx, "xdg-open", s)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("auth: opening a browser: %w", err)
	}
	go cmd.Wait() // reap the opener; it exits as soon as it has handed the URL on
	return nil
}

// waitTimeout is the default time a LoopbackAuthorizer waits for the user.
const waitTimeout = 5 * time.Minute

var errAuthorizerClosed = errors.New("auth: authorizer closed")
