package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults that bound every HTTP exchange of the package.
const (
	// DefaultRequestTimeout bounds one HTTP exchange with an
	// authorization server, a metadata endpoint or a JWKS endpoint.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultMaxResponseBytes bounds the body read from any of them.
	DefaultMaxResponseBytes = 1 << 20
)

// ErrResponseTooLarge reports a response body beyond the configured bound.
var ErrResponseTooLarge = errors.New("auth: response body too large")

// httpDoer runs bounded HTTP exchanges.
type httpDoer struct {
	client  *http.Client
	timeout time.Duration
	max     int64
}

func newDoer(c *http.Client, timeout time.Duration, max int64) *httpDoer {
	if c == nil {
		c = defaultHTTPClient
	}
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	if max <= 0 {
		max = DefaultMaxResponseBytes
	}
	return &httpDoer{client: c, timeout: timeout, max: max}
}

// defaultHTTPClient is used where no client is configured: no redirects
// are followed and each exchange is bounded by httpDoer.
var defaultHTTPClient = &http.Client{
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// response is a fully read HTTP response.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends req with the doer's timeout and reads at most max bytes.
func (d *httpDoer) do(ctx context.Context, req *http.Request) (*response, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	resp, err := d.client.Do(req.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := readBounded(resp.Body, d.max)
	if err != nil {
		return nil, fmt.Errorf("auth: %s %s: %w", req.Method, redact(req.URL), err)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// get fetches a JSON document; hdr adds request headers.
func (d *httpDoer) get(ctx context.Context, rawURL string, hdr http.Header) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	return d.do(ctx, req)
}

// postForm posts an application/x-www-form-urlencoded body.
func (d *httpDoer) postForm(ctx context.Context, rawURL string, form url.Values, hdr http.Header) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	return d.do(ctx, req)
}

// postJSON posts v as JSON.
func (d *httpDoer) postJSON(ctx context.Context, rawURL string, v any, hdr http.Header) (*response, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	return d.do(ctx, req)
}

// readBounded reads r to its end, failing beyond max bytes.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w (more than %d bytes)", ErrResponseTooLarge, max)
	}
	return b, nil
}

// decodeJSON unmarshals a JSON response body (whatever its declared
// media type: some servers mislabel it).
func (r *response) decodeJSON(v any) error {
	if err := json.Unmarshal(r.body, v); err != nil {
		return fmt.Errorf("auth: malformed JSON response: %w", err)
	}
	return nil
}

// redact returns u without its query, which may carry secrets.
func redact(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.RawQuery = ""
	c.Fragment = ""
	c.User = nil
	return c.String()
}

// OAuthError is an error response of an OAuth endpoint (RFC 6749 §5.2,
// §4.1.2.1; RFC 7591 §3.2.2): the token endpoint, the registration
// endpoint, or the authorization response itself.
type OAuthError struct {
	// Endpoint names where the error came from: "token", "registration",
	// "authorization", "token exchange".
	Endpoint string
	// StatusCode is the HTTP status (0 for an authorization response).
	StatusCode int
	// Code is the OAuth error code ("invalid_grant"), or "" when the
	// response had none.
	Code string
	// Description and URI are error_description and error_uri.
	Description, URI string
}

// Error describes the error without secrets.
func (e *OAuthError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "auth: %s endpoint", e.Endpoint)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " answered %d", e.StatusCode)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, ": %s", e.Code)
	}
	if e.Description != "" {
		fmt.Fprintf(&b, ": %s", truncate(e.Description, 200))
	}
	return b.String()
}

// oauthError builds an OAuthError from a failed response.
func oauthError(endpoint string, r *response) *OAuthError {
	e := &OAuthError{Endpoint: endpoint, StatusCode: r.status}
	var body struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
		ErrorURI         string `json:"error_uri"`
	}
	if json.Unmarshal(r.body, &body) == nil {
		e.Code, e.Description, e.URI = body.Error, body.ErrorDescription, body.ErrorURI
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
