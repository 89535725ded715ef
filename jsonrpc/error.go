package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A Code is a JSON-RPC error code. Compare codes, never messages.
type Code int64

// The error codes defined by JSON-RPC 2.0 (§5.1).
const (
	CodeParseError     Code = -32700 // the frame is not valid JSON
	CodeInvalidRequest Code = -32600 // the JSON is not a valid Request object
	CodeMethodNotFound Code = -32601 // the method does not exist or is not available
	CodeInvalidParams  Code = -32602 // invalid method parameters
	CodeInternalError  Code = -32603 // an internal error
)

// Implementation-defined codes in the server-error range (-32000 to -32019,
// which MCP leaves to implementations). They match the TypeScript SDK
// where it defines the same condition.
const (
	// CodeConnectionClosed: the connection closed before the response came.
	CodeConnectionClosed Code = -32000
	// CodeRequestTimeout: the request was not answered in time.
	CodeRequestTimeout Code = -32001
	// CodeOverloaded: the receiver already holds as many requests as it
	// allows for one connection; retry later.
	CodeOverloaded Code = -32005
	// CodeCancelled: the request was cancelled before it completed.
	CodeCancelled Code = -32006
)

// String returns the standard message for the code, or "error -N".
func (c Code) String() string {
	switch c {
	case CodeParseError:
		return "Parse error"
	case CodeInvalidRequest:
		return "Invalid Request"
	case CodeMethodNotFound:
		return "Method not found"
	case CodeInvalidParams:
		return "Invalid params"
	case CodeInternalError:
		return "Internal error"
	case CodeConnectionClosed:
		return "Connection closed"
	case CodeRequestTimeout:
		return "Request timed out"
	case CodeOverloaded:
		return "Too many requests in flight"
	case CodeCancelled:
		return "Request cancelled"
	}
	return fmt.Sprintf("error %d", int64(c))
}

// An Error is a JSON-RPC error object. Handlers return one to choose the
// code of the error response; any other error becomes CodeInternalError
// (see ErrorCode).
//
// An Error made locally, rather than received, may carry the Go error
// that caused it (see WithCause): a transport that fails a call because
// the network, the HTTP exchange or a deadline failed answers it with an
// Error whose cause is that failure, so that errors.Is and errors.As see
// it. An Error received from the peer has no cause.
type Error struct {
	Code    Code            // the error code; never 0 on the wire
	Message string          // one short sentence
	Data    json.RawMessage // optional, any JSON value

	cause error // the local Go cause (WithCause); never encoded
}

// NewError returns an Error with the given code and message. An empty
// message is replaced by the code's standard message.
func NewError(code Code, message string) *Error {
	if message == "" {
		message = code.String()
	}
	return &Error{Code: code, Message: message}
}

// Errorf returns an Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns a copy of e carrying data, marshaled to JSON. If data
// cannot be marshaled the copy carries no data.
func (e *Error) WithData(data any) *Error {
	c := *e
	if raw, ok := data.(json.RawMessage); ok {
		c.Data = raw
	} else if b, err := json.Marshal(data); err == nil {
		c.Data = b
	}
	return &c
}

// WithCause returns a copy of e that wraps err, the Go error that caused
// it, for errors made locally, e.g. by a transport; the cause is not
// encoded: it never goes on the wire, and the message is not changed.
// errors.Is and errors.As look into the cause (see Unwrap); a nil err
// removes it.
func (e *Error) WithCause(err error) *Error {
	c := *e
	c.cause = err
	return &c
}

// Unwrap returns the cause given by WithCause, or nil.
func (e *Error) Unwrap() error { return e.cause }

// Error implements the error interface. The message does not include the
// cause.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc: %s (%d)", e.Message, int64(e.Code))
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "")) matches
// any method-not-found error. errors.Is then goes on into the cause, if
// any.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// ErrorCode returns the code that err would carry on the wire:
//   - nil: 0 (no error);
//   - an *Error anywhere in the chain: its code (0 is replaced by
//     CodeInternalError, since 0 never goes on the wire);
//   - context.Canceled: CodeCancelled;
//   - context.DeadlineExceeded: CodeRequestTimeout;
//   - ErrClosed: CodeConnectionClosed;
//   - anything else: CodeInternalError.
func ErrorCode(err error) Code {
	if err == nil {
		return 0
	}
	var e *Error
	switch {
	case errors.As(err, &e):
		if e.Code == 0 {
			return CodeInternalError
		}
		return e.Code
	case errors.Is(err, context.Canceled):
		return CodeCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return CodeRequestTimeout
	case errors.Is(err, ErrClosed):
		return CodeConnectionClosed
	}
	return CodeInternalError
}

// toWireError converts a handler's error to the error object to send.
func toWireError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		if e.Code == 0 {
			c := *e
			c.Code = CodeInternalError
			return &c
		}
		return e
	}
	code := ErrorCode(err)
	return &Error{Code: code, Message: err.Error()}
}

// ErrClosed is returned by operations on a closed connection.
var ErrClosed = errors.New("jsonrpc: connection closed")

// ErrTooManyNotifications is why a connection ends when its peer sends
// notifications faster than they are handled, beyond
// Options.MaxQueuedNotifications. Calls outstanding then fail with an
// error for which errors.Is reports both it and ErrClosed.
var ErrTooManyNotifications = errors.New("jsonrpc: the peer sends notifications faster than they are handled")

// closedError is the error of a call outstanding when the connection
// ended for a reason other than Close or the end of the input: it is
// ErrClosed, with that reason.
type closedError struct{ cause error }

func (e *closedError) Error() string {
	return "jsonrpc: connection closed: " + strings.TrimPrefix(e.cause.Error(), "jsonrpc: ")
}

func (e *closedError) Is(target error) bool { return target == ErrClosed }

func (e *closedError) Unwrap() error { return e.cause }

// closedBy returns the error of a call outstanding when the connection
// ended because of cause.
func closedBy(cause error) error {
	if cause == nil || errors.Is(cause, ErrClosed) || errors.Is(cause, io.EOF) {
		return ErrClosed
	}
	return &closedError{cause}
}

var errInvalidID = errors.New("jsonrpc: id must be a string or an integer")
