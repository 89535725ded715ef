package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
)

// Encode returns the JSON encoding of m on one line (no newline at the
// end), as newline-delimited transports need.
func Encode(m Message) ([]byte, error) {
	return AppendMessage(nil, m)
}

// AppendMessage appends the one-line JSON encoding of m to b. Raw params,
// results and error data are copied as they are, except that line breaks
// between tokens are removed. A nil message, a call without a method or a
// response with neither result nor error is an error.
func AppendMessage(b []byte, m Message) ([]byte, error) {
	return Encoder{}.Append(b, m)
}

// An Encoder encodes messages with options. The zero Encoder follows
// JSON-RPC 2.0 to the letter.
type Encoder struct {
	// OmitNullID leaves "id" out of an error response whose id is
	// unknown, as MCP's schema requires, instead of writing "id":null as
	// JSON-RPC 2.0 does.
	OmitNullID bool
}

// Append appends the one-line JSON encoding of m to b; see AppendMessage.
func (e Encoder) Append(b []byte, m Message) ([]byte, error) {
	switch m := m.(type) {
	case *Request:
		return appendRequest(b, m)
	case *Response:
		return e.appendResponse(b, m)
	case *Batch:
		if len(m.Messages)+len(m.Invalid) == 0 {
			return b, errors.New("jsonrpc: cannot encode an empty batch")
		}
		b = append(b, '[')
		first := true
		var err error
		for _, x := range m.Messages {
			if !first {
				b = append(b, ',')
			}
			first = false
			if b, err = e.Append(b, x); err != nil {
				return b, err
			}
		}
		for _, x := range m.Invalid {
			if !first {
				b = append(b, ',')
			}
			first = false
			if b, err = e.appendResponse(b, x); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	return b, errors.New("jsonrpc: cannot encode a nil message")
}

// frameRoom is about what a frame takes besides its method and its
// params, result or error: the keys, the version and an id. The encoders
// grow the buffer once by that much and the values' lengths.
const frameRoom = 64

func appendRequest(b []byte, r *Request) ([]byte, error) {
	if r == nil || r.Method == "" {
		return b, errors.New("jsonrpc: a request needs a method")
	}
	b = slices.Grow(b, frameRoom+len(r.Method)+len(r.Params)) // one allocation, not one per append that outgrows b
	b = append(b, `{"jsonrpc":"2.0",`...)
	if r.ID.IsValid() {
		b = append(b, `"id":`...)
		b = r.ID.AppendJSON(b)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = appendString(b, r.Method)
	if len(r.Params) > 0 {
		b = append(b, `,"params":`...)
		b = appendRaw(b, r.Params)
	}
	return append(b, '}'), nil
}

func (e Encoder) appendResponse(b []byte, r *Response) ([]byte, error) {
	if r == nil {
		return b, errors.New("jsonrpc: cannot encode a nil response")
	}
	if r.Error != nil {
		b = slices.Grow(b, 2*frameRoom+len(r.Error.Message)+len(r.Error.Data))
	} else {
		b = slices.Grow(b, frameRoom+len(r.Result))
	}
	if e.OmitNullID && !r.ID.IsValid() && r.Error != nil {
		b = append(b, `{"jsonrpc":"2.0"`...)
	} else {
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = r.ID.AppendJSON(b)
	}
	if r.Error != nil {
		b = append(b, `,"error":`...)
		b = appendError(b, r.Error)
		return append(b, '}'), nil
	}
	if len(r.Result) == 0 {
		return b, errors.New("jsonrpc: a response needs a result or an error")
	}
	b = append(b, `,"result":`...)
	b = appendRaw(b, r.Result)
	return append(b, '}'), nil
}

func appendError(b []byte, e *Error) []byte {
	code := e.Code
	if code == 0 {
		code = CodeInternalError
	}
	msg := e.Message
	if msg == "" {
		msg = code.String()
	}
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, msg)
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		b = appendRaw(b, e.Data)
	}
	return append(b, '}')
}

// appendRaw appends raw JSON, removing line breaks between tokens (line
// breaks can only be insignificant whitespace in valid JSON).
func appendRaw(b []byte, raw json.RawMessage) []byte {
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(b, raw...)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		// Not valid JSON: drop the line breaks so framing survives; the
		// peer will reject the value.
		for _, c := range raw {
			if c != '\n' && c != '\r' {
				b = append(b, c)
			}
		}
		return b
	}
	return append(b, buf.Bytes()...)
}
