package cli

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
	exitOK        = 0 // the command did what was asked
	exitFailure   = 1 // the operation failed (server error, timeout, I/O)
	exitUsage     = 2 // the command line is wrong
	exitToolError = 3 // the tool ran and returned a result with isError
	exitConnect   = 4 // the server could not be started or connected
)

// An exitError is an error with the exit code it ends the program with.
// Every error a command's RunE returns is one; errors of any other type
// come from cobra's own parsing and mean exitUsage.
type exitError struct {
	code int
	err  error // nil: the message has been printed already
}

// Error returns the message of the error.
func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

// Unwrap returns the error that has the exit code.
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf returns a usage error (exit code 2).
func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// connectErrorf returns an error for a server that could not be started
// or connected (exit code 4).
func connectErrorf(format string, args ...any) error {
	return &exitError{code: exitConnect, err: fmt.Errorf(format, args...)}
}

// failure gives err exit code 1 unless it has a code already.
func failure(err error) error {
	if err == nil {
		return nil
	}
	var e *exitError
	if errors.As(err, &e) {
		return err
	}
	return &exitError{code: exitFailure, err: err}
}

// exitCode returns the exit code for an error returned by cobra's Execute:
// the code of an exitError, else exitUsage.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return exitUsage
}

// message returns the one line that reports err after "mcpwire: ", or ""
// when nothing is to be printed.
func message(err error) string {
	var e *exitError
	if errors.As(err, &e) && e.err == nil {
		return ""
	}
	return oneLine(err.Error())
}

// oneLine folds a message onto a single line: lines are trimmed and joined
// with "; ".
func oneLine(s string) string {
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
// for a timeout, the error text without the library's package prefixes
// otherwise.
func describe(err error, a *app) error {
	var je *jsonrpc.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("timed out after %s (see --timeout)", a.global.Timeout)
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
	return errors.New(trimPrefixes(err.Error()))
}

// trimPrefixes removes the package prefixes that the library's errors
// start with ("mcp client: ", "jsonrpc: ", "command: ", "streamable: ",
// "sse: ").
func trimPrefixes(s string) string {
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
