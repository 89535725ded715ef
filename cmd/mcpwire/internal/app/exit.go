package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// The exit codes of mcpwire, documented in the help of the root command.
const (
	ExitOK        = 0 // the command did what was asked
	ExitFailure   = 1 // the operation failed (server error, timeout, I/O)
	ExitUsage     = 2 // the command line is wrong
	ExitToolError = 3 // the tool ran and returned a result with isError
	ExitConnect   = 4 // the server could not be started or connected
)

// An ExitError is an error with the exit code it ends the program with.
// Every error a command's RunE returns is one (RunE and Failure see to
// it); errors of any other type come from cobra's own parsing and mean
// ExitUsage.
type ExitError struct {
	Code int
	Err  error // nil: the message has been printed already
}

// Error returns the message of the error.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the error that has the exit code.
func (e *ExitError) Unwrap() error { return e.Err }

// UsageErrorf returns a usage error (exit code 2).
func UsageErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// ConnectErrorf returns an error for a server that could not be started
// or connected (exit code 4).
func ConnectErrorf(format string, args ...any) error {
	return &ExitError{Code: ExitConnect, Err: fmt.Errorf(format, args...)}
}

// Failure gives err exit code 1 unless it has a code already.
func Failure(err error) error {
	if err == nil {
		return nil
	}
	return WithCode(err, ExitFailure)
}

// WithCode gives err the exit code code unless it has one.
func WithCode(err error, code int) error {
	var e *ExitError
	if errors.As(err, &e) {
		return err
	}
	return &ExitError{Code: code, Err: err}
}

// ExitCode returns the exit code for an error returned by cobra's
// Execute: the code of an ExitError, else ExitUsage.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var e *ExitError
	if errors.As(err, &e) {
		return e.Code
	}
	return ExitUsage
}

// Message returns the one line that reports err after "mcpwire: ", or ""
// when nothing is to be printed.
func Message(err error) string {
	var e *ExitError
	if errors.As(err, &e) && e.Err == nil {
		return ""
	}
	return OneLine(err.Error())
}

// OneLine folds a message onto a single line: lines are trimmed and
// joined with "; ".
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return strings.TrimSpace(s)
	}
	var parts []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// describe turns the error of an MCP operation into the words mcpwire
// reports: the server's own message for a protocol error, the deadline
// for a timeout, what was wrong with a message of the server that was not
// valid JSON-RPC, the error text without the library's package prefixes
// otherwise.
func (a *App) describe(err error) error {
	var je *jsonrpc.Error
	var fe *jsonrpc.FrameError
	switch {
	case errors.As(err, &fe) && fe.Cause == nil:
		return fmt.Errorf("the server's answer to %s is not valid JSON-RPC: %s", fe.Method, invalidMessage(fe))
	case errors.As(err, &fe):
		return fmt.Errorf("%v; before that, the server sent a message that is not valid JSON-RPC: %s", a.describe(fe.Cause), invalidMessage(fe))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("timed out after %s (see --timeout)", a.Global.Timeout)
	case errors.Is(err, context.Canceled):
		return errors.New("interrupted")
	case mcp.IsResourceNotFound(err):
		var d mcp.ResourceNotFoundData
		if errors.As(err, &je) && je.Data != nil && json.Unmarshal(je.Data, &d) == nil && d.URI != "" {
			return fmt.Errorf("resource not found: %s", d.URI)
		}
		return fmt.Errorf("resource not found: %s", je.Message)
	case errors.As(err, &je):
		return fmt.Errorf("server error: %s (code %d)", je.Message, int64(je.Code))
	}
	return errors.New(TrimPrefixes(err.Error()))
}

// invalidMessage says what was wrong with a message of the server, where
// it was and how it started (quoted: the server's bytes never reach the
// terminal as they are).
func invalidMessage(fe *jsonrpc.FrameError) string {
	return fmt.Sprintf("%s (message %d from the server, %s)", fe.Err.Rule(), fe.N, fe.Err.Excerpt())
}

// TrimPrefixes removes the package prefixes that the library's errors
// start with ("mcp client: ", "jsonrpc: ", "command: ", "streamable: ",
// "sse: "), for a message shown to a person.
func TrimPrefixes(s string) string {
	for {
		t := s
		for _, p := range []string{"mcp client: ", "jsonrpc: ", "command: ", "streamable: ", "sse: "} {
			t = strings.TrimPrefix(t, p)
		}
		if t == s {
			return s
		}
		s = t
	}
}
