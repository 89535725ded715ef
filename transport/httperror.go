package transport

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// An HTTPStatusError is an HTTP answer whose status is not the one an
// HTTP transport needed (not 2xx, or not 200 to a GET of a stream): the
// server, or a proxy in front of it, refused the request. The HTTP client
// transports (streamable, sse) fail a call refused so with a
// *jsonrpc.Error whose cause is the *HTTPStatusError, and return it, or
// an error wrapping it, from Write and Connect. Find it with errors.As:
//
//	var se *transport.HTTPStatusError
//	if errors.As(err, &se) && se.StatusCode == http.StatusForbidden {
//		// the server (or a proxy) said no at the HTTP level
//	}
type HTTPStatusError struct {
	// Method and URL are those of the request; the URL carries no
	// password (url.URL.Redacted).
	Method, URL string
	// StatusCode and Status are those of the answer: 403 and
	// "403 Forbidden".
	StatusCode int
	Status     string
	// Header is the answer's header (WWW-Authenticate, Retry-After).
	Header http.Header
	// Body is the start of the answer's body: at most MaxHTTPErrorBody
	// bytes.
	Body []byte
}

// MaxHTTPErrorBody bounds the part of a refused answer's body that an
// HTTPStatusError keeps.
const MaxHTTPErrorBody = 64 << 10

// NewHTTPStatusError reads the start of resp's body (at most
// MaxHTTPErrorBody bytes) into an HTTPStatusError; the caller closes the
// body. It is meant for HTTP transports.
func NewHTTPStatusError(resp *http.Response) *HTTPStatusError {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxHTTPErrorBody))
	e := &HTTPStatusError{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header, Body: b}
	if resp.Request != nil {
		e.Method = resp.Request.Method
		if resp.Request.URL != nil {
			e.URL = resp.Request.URL.Redacted()
		}
	}
	return e
}

// Error returns, for example, `POST http://host/mcp: HTTP 403 Forbidden:
// "no access"`, quoting at most 200 bytes of the body.
func (e *HTTPStatusError) Error() string {
	s := fmt.Sprintf("%s %s: HTTP %s", e.Method, e.URL, e.Status)
	if snip := BodySnippet(e.Body, 200); snip != "" {
		s += ": " + snip
	}
	return s
}

// BodySnippet returns the start of an HTTP body for an error message: at
// most n bytes, quoted, line breaks and other control characters replaced
// by spaces, invalid UTF-8 by U+FFFD, and "..." after the quote if it was
// cut; "" for an empty body.
func BodySnippet(b []byte, n int) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	cut := len(b) > n
	if cut {
		b = b[:n]
	}
	s := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(string(b), "\uFFFD"))
	if cut {
		return fmt.Sprintf("%q...", s)
	}
	return fmt.Sprintf("%q", s)
}
