package jsonrpc

import (
	"fmt"
	"strconv"
	"strings"
)

// A FrameError names a frame from the peer that was not a valid message,
// for the call that it concerns:
//
//   - the call's response arrived, but broken: the frame's id could be
//     read (DecodeError.ResponseID), or it was meant as a response and
//     the call was the only one waiting. The call fails as soon as the
//     frame arrives, and Cause is nil.
//   - the frame could not be tied to any call (its id could not be read:
//     a line that is not JSON, say), and the call ended unanswered
//     later: its context ended, or the connection. Cause is why it ended
//     (ctx.Err(), an error for which errors.Is reports ErrClosed), and
//     Unwrap returns it; the frame is the first such frame received while
//     the call waited.
//
// A peer that writes a stray line (a banner, a log line on stdout) and
// then answers correctly is tolerated, as other MCP clients tolerate it:
// only the calls that end without their answer report the frame.
type FrameError struct {
	Method string       // the method of the call
	ID     ID           // the call's id
	N      int64        // the frame's position: the Nth frame received on the connection, from 1
	Err    *DecodeError // the rule the frame broke, and its start (Err.Frame)
	Cause  error        // why the call ended, if the frame was not its response
}

// Error returns, for example:
//
//	jsonrpc: the response to initialize (id 1) is not a valid message: "jsonrpc" must be "2.0" (frame 1 from the peer, 36 bytes: "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}")
//	context deadline exceeded; meanwhile the peer sent a frame that is not a valid message: not JSON: ... (frame 1 from the peer, ...)
//
// The frame is quoted: its bytes are never written as they are.
func (e *FrameError) Error() string {
	if e.Cause != nil {
		return e.Cause.Error() + "; meanwhile the peer sent a frame that is not a valid message: " + e.Describe()
	}
	return fmt.Sprintf("jsonrpc: the response to %s (id %s) is not a valid message: %s", quoteMethod(e.Method), e.ID, e.Describe())
}

// Unwrap returns Cause.
func (e *FrameError) Unwrap() error { return e.Cause }

// Describe says what was wrong with the frame, where it was and how it
// started, with the frame's bytes quoted as a Go string literal:
//
//	"jsonrpc" must be "2.0" (frame 1 from the peer, 36 bytes: "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}")
func (e *FrameError) Describe() string {
	return fmt.Sprintf("%s (frame %d from the peer, %s)", e.Err.Rule(), e.N, e.Err.Excerpt())
}

// Excerpt describes the frame: its size and its start, quoted as a Go
// string literal, so that its bytes are never written as they are:
//
//	36 bytes: "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}"
//	too large to be read whole: "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":\"xxxxxxxx"...
func (e *DecodeError) Excerpt() string {
	var b strings.Builder
	if e.Size > 0 {
		fmt.Fprintf(&b, "%d bytes", e.Size)
	} else {
		b.WriteString("too large to be read whole")
	}
	if len(e.Frame) > 0 {
		b.WriteString(": ")
		b.WriteString(strconv.Quote(string(e.Frame)))
		if e.Size == 0 || len(e.Frame) < e.Size {
			b.WriteString("...")
		}
	}
	return b.String()
}

// Rule returns the rule that the frame broke, in words that suit a
// request and a response alike: the error's message without its "Invalid
// Request: " prefix, "not JSON: ..." for a parse error.
func (e *DecodeError) Rule() string {
	if e == nil || e.Err == nil {
		return "invalid message"
	}
	m := e.Err.Message
	for _, p := range []string{"Invalid Request: ", "Parse error: "} {
		if rest, ok := strings.CutPrefix(m, p); ok {
			m = rest
			if e.Err.Code == CodeParseError {
				m = "not JSON: " + m
			}
			break
		}
	}
	return m
}

// quoteMethod returns a method name for an error message: as it is when
// it is plain (the methods this side calls are), quoted otherwise.
func quoteMethod(m string) string {
	for _, r := range m {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' || r > 0x7e {
			return quoteForMessage(m)
		}
	}
	if m == "" {
		return `""`
	}
	return m
}

// frameRecord is a frame that could not be tied to a call, kept for each
// call waiting when it arrived (state.invalid).
type frameRecord struct {
	n      int64
	err    *DecodeError
	method string // of the call that keeps it
}
