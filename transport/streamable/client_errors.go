package streamable

import (
	"context"
	"errors"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
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
// the same from Write. It is transport.HTTPStatusError, which the legacy
// SSE transport reports too.
type HTTPStatusError = transport.HTTPStatusError

// clientTransportError reports a call whose HTTP exchange broke; err is
// its cause.
func clientTransportError(call *clientCall, err error) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeConnectionClosed, "streamable: %s (id %s): %v", call.method, call.id, err).WithCause(err)
}

// clientToRPCError returns err as a JSON-RPC error, with err as its
// cause.
func clientToRPCError(err error) *jsonrpc.Error {
	if e, ok := err.(*jsonrpc.Error); ok {
		return e
	}
	return jsonrpc.NewError(jsonrpc.CodeConnectionClosed, err.Error()).WithCause(err)
}

// clientLegacyPostError returns the error to report for a failed POST of
// the HTTP+SSE transport: the body's JSON-RPC error when it has one, with
// the *HTTPStatusError as its cause; other status errors wrap an
// *HTTPStatusError (same text as before).
func clientLegacyPostError(err error) error {
	var se *HTTPStatusError
	if errors.As(err, &se) {
		if e := clientRPCErrorBody(se.Body); e != nil {
			return e.WithCause(se)
		}
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
