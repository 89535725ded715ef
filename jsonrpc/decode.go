package jsonrpc

import (
	"fmt"
	"strconv"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// A DecodeError reports a frame that is not a valid JSON-RPC message. The
// connection stays usable: the frame is answered with Response() and
// reading goes on.
type DecodeError struct {
	// ID is the id of the offending request when it could be read (the
	// frame had a "method" and a valid "id"); otherwise the zero ID, which
	// is written as null.
	ID ID
	// Err is the error to report: CodeParseError for text that is not
	// JSON (including invalid UTF-8), CodeInvalidRequest for JSON that is
	// not a valid message (unknown or duplicate members, wrong types, a
	// message too large or nested too deep, an empty batch).
	Err *Error
	// ResponseID is the frame's id when the frame is not a request (it
	// has no "method") and its "id" could be read, even from a frame cut
	// short or nested too deep: the frame was meant as the response to
	// that call. A Conn fails the call, if it is waiting, with a
	// *FrameError rather than let it wait for a response that will not
	// come.
	ResponseID ID
	// IsResponse reports that the frame was meant as a response: it has
	// a "result" or an "error" and no "method". A Conn does not answer
	// it (a response is never answered).
	IsResponse bool
	// Frame is a copy of the start of the frame, at most MaxFrameExcerpt
	// bytes, and Size the frame's length in bytes (0 when it was too
	// large to be read whole), for diagnostics.
	Frame []byte
	Size  int
}

// Error implements the error interface.
func (e *DecodeError) Error() string { return e.Err.Error() }

// Unwrap returns e.Err.
func (e *DecodeError) Unwrap() error { return e.Err }

// Response returns the error response that answers the frame.
func (e *DecodeError) Response() *Response { return &Response{ID: e.ID, Error: e.Err} }

// A Decoder turns frames into messages, strictly: member names are
// case-sensitive, unknown members and duplicate keys (at any depth) are
// rejected, "jsonrpc" must be "2.0", ids must be strings or integers,
// strings must be valid UTF-8, and the size, depth and batch limits hold.
//
// A Decoder is safe for concurrent use. The zero Decoder uses the default
// limits.
type Decoder struct {
	limits Limits
	names  map[string]string
}

// NewDecoder returns a decoder with the given limits. The method names
// listed are returned without allocating when they appear in a message.
func NewDecoder(limits Limits, methods ...string) *Decoder {
	d := &Decoder{limits: limits}
	if len(methods) > 0 {
		d.names = make(map[string]string, len(methods))
		for _, m := range methods {
			d.names[m] = m
		}
	}
	return d
}

// Limits returns the decoder's limits.
func (dec *Decoder) Limits() Limits {
	if dec == nil {
		return Limits{}
	}
	return dec.limits
}

// Decode decodes one frame: a message, or a batch when the frame is a JSON
// array. The returned message refers to data (params and results are
// sub-slices of it), so data must not be modified afterwards. A frame that
// is not a valid message yields a *DecodeError.
func Decode(data []byte, limits *Limits) (Message, error) {
	var dec Decoder
	if limits != nil {
		dec.limits = *limits
	}
	return dec.Decode(data)
}

// Decode decodes one frame; see the package-level Decode.
func (dec *Decoder) Decode(data []byte) (Message, error) {
	var lim *Limits
	if dec != nil {
		lim = &dec.limits
	}
	if max := lim.MessageSize(); len(data) > max {
		e := &DecodeError{Err: Errorf(CodeInvalidRequest, "Invalid Request: message of %d bytes exceeds the limit of %d bytes", len(data), max)}
		return nil, e.tell(data, len(data)) // in memory already: peek reads it all, without recursion
	}
	d := decoder{Scanner: jsonscan.Scanner{Data: data, MaxDepth: lim.Depth(), Flags: jsonscan.UTF8 | jsonscan.Duplicates}, dec: dec}
	defer d.Release()
	d.SkipSpace()
	if d.Pos == len(data) {
		return nil, &DecodeError{Err: NewError(CodeParseError, "Parse error: empty message")}
	}
	var (
		msg  Message
		derr *DecodeError
	)
	switch data[d.Pos] {
	case '{':
		msg, derr = d.message(1)
	case '[':
		msg, derr = d.batch(lim.BatchSize())
	default:
		if d.Value(0) {
			derr = &DecodeError{Err: NewError(CodeInvalidRequest, "Invalid Request: a message must be a JSON object or array")}
		}
	}
	if !d.Failed() && d.fatal == nil {
		d.SkipSpace()
		if d.Pos != len(data) {
			d.Fail(jsonscan.TrailingData)
		}
	}
	if err := d.error("data after the message"); err != nil {
		return nil, err.tell(data, len(data))
	}
	if derr != nil {
		return nil, derr.tell(data, len(data))
	}
	if b, ok := msg.(*Batch); ok && len(b.errs) > 0 {
		// Each invalid member is named by the batch it came in.
		frame := excerpt(data)
		for _, e := range b.errs {
			e.Frame, e.Size = frame, len(data)
		}
	}
	return msg, nil
}

// Valid reports whether data is one JSON value that this package's rules
// accept: well-formed, valid UTF-8, no duplicate keys, within the depth
// limit. It does not check that the value is a JSON-RPC message.
func Valid(data []byte, limits *Limits) error {
	d := decoder{Scanner: jsonscan.Scanner{Data: data, MaxDepth: limits.Depth(), Flags: jsonscan.UTF8 | jsonscan.Duplicates}}
	defer d.Release()
	d.Document()
	if err := d.error("data after the value"); err != nil {
		return err
	}
	if k, dup := d.Duplicate(); dup {
		return &DecodeError{Err: NewError(CodeInvalidRequest, "Invalid Request: duplicate key "+strconv.Quote(d.KeyString(k)))}
	}
	return nil
}

// decoder reads a frame with the shared JSON scanner (which checks the
// syntax, UTF-8, duplicate keys and depth) and applies the envelope rules
// of decode_message.go on top.
type decoder struct {
	jsonscan.Scanner
	dec   *Decoder
	fatal *DecodeError // a limit of this package was exceeded (batch size)
}

// error returns the DecodeError that reports why the frame could not be
// read, or nil. trailing words an error of kind TrailingData.
func (d *decoder) error(trailing string) *DecodeError {
	if d.fatal != nil {
		return d.fatal
	}
	e := d.Err()
	var what string
	switch e.Kind {
	case jsonscan.NoError:
		return nil
	case jsonscan.TooDeep:
		return &DecodeError{Err: NewError(CodeInvalidRequest, fmt.Sprintf("Invalid Request: nesting deeper than %d levels", d.MaxDepth))}
	case jsonscan.UnexpectedChar:
		what = fmt.Sprintf("unexpected character %q", d.Data[e.Offset])
	case jsonscan.TrailingData:
		what = trailing
	default:
		what = e.Kind.String()
	}
	msg := "Parse error: " + what
	if e.Offset < len(d.Data) {
		msg += " at offset " + strconv.Itoa(e.Offset)
	}
	return &DecodeError{Err: NewError(CodeParseError, msg)}
}
