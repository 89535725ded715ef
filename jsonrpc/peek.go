package jsonrpc

import (
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// What can still be told of a frame that could not be decoded. When a
// frame breaks a rule, the strict scanner stops where it broke it: at a
// syntax error, at the nesting limit, or before it starts when the frame
// is too large. The peer still deserves to hear which of its requests was
// refused, and a call waiting for a response that arrived broken should
// fail at once rather than wait for a response that will not come; both
// need the frame's "id". peek reads it without the strict scanner: it
// walks the members of the top-level object only, skipping their values
// with the readers of internal/jsonscan, which count brackets (never
// recursing, so a frame nested 100,000 deep costs one pass and no stack),
// and stops at the first thing it cannot read, so a frame cut short still
// yields what came before the cut.

// peeked is what peek found in a frame.
type peeked struct {
	id       ID   // the "id" member, when it is there whole and a valid id
	method   bool // the frame has a "method" member: it is a request
	response bool // it has a "result" or an "error" member and no "method"
}

// peek reads the top-level members of the object that b holds or starts
// with. Keys written with escapes are not recognized; the first "id" wins.
func peek(b []byte) peeked {
	var p peeked
	var result, haveID bool
	i := jsonscan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return p
	}
	i++
	for {
		i = jsonscan.SkipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			break
		}
		end, _ := jsonscan.SkipString(b, i)
		if end < 0 {
			break
		}
		key := string(b[i+1 : end-1])
		i = jsonscan.SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			break
		}
		i = jsonscan.SkipSpace(b, i+1)
		switch key {
		case "method":
			p.method = true
		case "result", "error":
			result = true
		}
		end = skipSuspect(b, i)
		if end < 0 {
			break
		}
		if key == "id" && !haveID {
			haveID = true
			if id, err := parseID(b[i:end]); err == nil {
				p.id = id
			}
		}
		i = jsonscan.SkipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			break
		}
		i++
	}
	p.response = result && !p.method
	return p
}

// skipSuspect returns the index after the value that starts at b[i], or
// -1 if it does not end in b. The value is known to be, or suspected of
// being, invalid: a string, array or object ends where its quote or
// bracket closes (jsonscan.SkipValue), anything else runs to the next
// delimiter, and one that runs to the end of b may be cut short.
func skipSuspect(b []byte, i int) int {
	if i < len(b) && (b[i] == '"' || b[i] == '{' || b[i] == '[') {
		return jsonscan.SkipValue(b, i)
	}
	for start := i; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if i == start {
				return -1
			}
			return i
		}
	}
	return -1
}

// tell completes e, the error of frame (or of its start, for a frame too
// large to be read whole), with what peek finds in it: the id of the
// request, so that the answer names it, or of the response, so that the
// call waiting for it fails at once; and the start of the frame.
func (e *DecodeError) tell(frame []byte, size int) *DecodeError {
	e.peekAt(frame)
	e.Frame = excerpt(frame)
	e.Size = size
	return e
}

// peekAt completes e, the error of the message msg (a frame, or a member
// of a batch), with the id that peek finds in it.
func (e *DecodeError) peekAt(msg []byte) {
	p := peek(msg)
	if p.method {
		if !e.ID.IsValid() {
			e.ID = p.id
		}
	} else {
		e.ResponseID = p.id
		e.IsResponse = p.response
	}
}

// FrameTooLarge returns the error for a frame of more than limit bytes
// that a transport stopped reading at the limit, start being what it read
// of it (it is not kept). The frame's id is read from start when it is
// there, so that a request too large is refused by its id and a call
// whose response is too large fails at once.
func FrameTooLarge(start []byte, limit int) *DecodeError {
	e := &DecodeError{Err: Errorf(CodeInvalidRequest, "Invalid Request: message exceeds %d bytes", limit)}
	return e.tell(start, 0)
}

// MaxFrameExcerpt is the most of a frame that a DecodeError keeps.
const MaxFrameExcerpt = 100

// excerpt returns a copy of the start of frame, at most MaxFrameExcerpt
// bytes, cut at a character boundary.
func excerpt(frame []byte) []byte {
	if len(frame) > MaxFrameExcerpt {
		n := MaxFrameExcerpt
		for n > MaxFrameExcerpt-utf8.UTFMax && n > 0 && !utf8.RuneStart(frame[n]) {
			n--
		}
		frame = frame[:n]
	}
	return append([]byte(nil), frame...)
}
