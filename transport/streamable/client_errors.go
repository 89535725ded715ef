package streamable

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// This file holds the errors of the client: what a call that failed
// locally carries as the cause of its *jsonrpc.Error (see "Errors" in the
// package documentation).

// An HTTPStatusError is an HTTP answer whose status is not the one the
// client needed (not 2xx, or not 200 to a GET of a stream): the server,
// or a proxy in front of it, refused the request. A call refused so fails
// with a *jsonrpc.Error (the body's own error when the body is a
// JSON-RPC error response, otherwise one naming the status) whose cause
// is the *HTTPStatusError; a notification or response refused so returns
// the same from Write. Find it with errors.As:
//
//	var se *streamable.HTTPStatusError
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
	// Body is the start of the answer's body: at most 64 KiB.
	Body []byte
}

// Error returns, for example, `POST http://host/mcp: HTTP 403 Forbidden:
// "no access"`, quoting at most 200 bytes of the body.
func (e *HTTPStatusError) Error() string {
	s := fmt.Sprintf("%s %s: HTTP %s", e.Method, e.URL, e.Status)
	if snip := sse.Snippet(e.Body, 200); snip != "" {
		s += ": " + snip
	}
	return s
}

// newHTTPStatusError returns the exported form of an HTTP status error.
func newHTTPStatusError(se *sse.StatusError) *HTTPStatusError {
	return &HTTPStatusError{Method: se.Method, URL: se.URL, StatusCode: se.StatusCode, Status: se.Status, Header: se.Header, Body: se.Body}
}

// clientCause returns err as the cause of a JSON-RPC error, an
// *sse.StatusError (which users cannot name) made an *HTTPStatusError.
func clientCause(err error) error {
	if se, ok := err.(*sse.StatusError); ok {
		return newHTTPStatusError(se)
	}
	return err
}

// clientTransportError reports a call whose HTTP exchange broke; err is
// its cause.
func clientTransportError(call *clientCall, err error) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "streamable: %s (id %s): %v", call.method, call.id, err).WithCause(clientCause(err))
}

// clientToRPCError returns err as a JSON-RPC error, with err as its
// cause.
func clientToRPCError(err error) *jsonrpc.Error {
	if e, ok := err.(*jsonrpc.Error); ok {
		return e
	}
	return jsonrpc.NewError(jsonrpc.CodeConnectionClosed, err.Error()).WithCause(clientCause(err))
}

// clientLegacyPostError returns the error to report for a failed POST of
// the HTTP+SSE transport: the body's JSON-RPC error when it has one, with
// the *HTTPStatusError as its cause; other status errors wrap an
// *HTTPStatusError (same text as before).
func clientLegacyPostError(err error) error {
	var se *sse.StatusError
	if errors.As(err, &se) {
		hse := newHTTPStatusError(se)
		if e := clientRPCErrorBody(se.Body); e != nil {
			return e.WithCause(hse)
		}
		return fmt.Errorf("sse: %w", hse)
	}
	return err
}

// A clientTimeoutError is a timeout of the transport's own
// (ConnectTimeout). Like the timeouts of net/http, it is a net.Error
// whose Timeout is true and it matches context.DeadlineExceeded.
type clientTimeoutError struct{ msg string }

func (e *clientTimeoutError) Error() string   { return e.msg }
func (e *clientTimeoutError) Timeout() bool   { return true }
func (e *clientTimeoutError) Temporary() bool { return true }
func (e *clientTimeoutError) Unwrap() error   { return context.DeadlineExceeded }
