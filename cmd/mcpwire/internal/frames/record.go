// Package frames is mcpwire's view of frames on the wire: the recording
// format that `mcpwire tap` writes and `mcpwire replay` and `mcpwire
// inspect` read (JSONL, one object per frame), and the live view that
// `--trace` and tap print on a terminal.
//
// # The recording format
//
// A recording is JSON Lines: one object per frame, in the order the frames
// crossed the wire, with these members:
//
//	time        RFC 3339 with nanoseconds, when the frame was seen
//	from        "client" or "server": who sent it
//	message     the frame as JSON, exactly as on the wire (a frame that
//	            spanned several lines has the whitespace between its
//	            tokens removed, since a record is one line)
//	raw         instead of message, a frame that is not JSON, as a string
//	transport   "stdio", "command", "streamable", "sse", ... (optional)
//	session     the transport's session id (optional)
//	status      the HTTP status of the response that carried it (optional)
//	method      the method; for a response, that of its request (optional)
//	latency_ms  for a response, the time since its request (optional)
//	error       why the frame is not a valid JSON-RPC message (optional)
//
// jq reads it: `jq -c 'select(.from=="server") | .message.result' rec.jsonl`.
package frames

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// Who sent a frame.
const (
	FromClient = "client"
	FromServer = "server"
)

// A Record is one frame of a recording.
type Record struct {
	Time      time.Time       `json:"time"`
	From      string          `json:"from"`
	Message   json.RawMessage `json:"message,omitempty"`
	Raw       *string         `json:"raw,omitempty"`
	Transport string          `json:"transport,omitempty"`
	Session   string          `json:"session,omitempty"`
	Status    int             `json:"status,omitempty"`
	Method    string          `json:"method,omitempty"`
	LatencyMS float64         `json:"latency_ms,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// A Side is where frames are observed: at the client (its sent frames come
// from the client) or at the server.
type Side int

const (
	// AtClient: sent frames are the client's.
	AtClient Side = iota
	// AtServer: sent frames are the server's.
	AtServer
)

// FromFrame turns an observed frame into a record; the record keeps no
// reference to the frame.
func FromFrame(f *transport.Frame, side Side) Record {
	r := Record{
		Time:      f.Time,
		From:      FromServer,
		Transport: f.Transport,
		Session:   f.Session,
		Status:    f.HTTPStatus,
		Method:    f.Method,
	}
	if (f.Direction == transport.Sent) == (side == AtClient) {
		r.From = FromClient
	}
	if f.Latency > 0 {
		r.LatencyMS = float64(f.Latency.Microseconds()) / 1000
	}
	if f.Err != nil {
		var de *jsonrpc.DecodeError
		if errors.As(f.Err, &de) && de.Err != nil {
			r.Error = de.Err.Message
		} else {
			r.Error = f.Err.Error()
		}
	}
	r.setBody(f.Raw)
	return r
}

// setBody keeps b as the record's message if it is JSON, else as raw.
func (r *Record) setBody(b []byte) {
	if json.Valid(b) {
		m := bytes.TrimSpace(b)
		if bytes.ContainsAny(m, "\r\n") {
			var c bytes.Buffer
			json.Compact(&c, m)
			m = c.Bytes()
		} else {
			m = bytes.Clone(m)
		}
		r.Message = m
		r.Raw = nil
		return
	}
	s := string(b)
	r.Raw = &s
	r.Message = nil
}

// Body returns the frame as it was on the wire (up to whitespace, for a
// frame that spanned lines).
func (r *Record) Body() []byte {
	if r.Raw != nil {
		return []byte(*r.Raw)
	}
	return r.Message
}

// Decode returns the record's frame as a JSON-RPC message, or the error
// that decoding it gives.
func (r *Record) Decode() (jsonrpc.Message, error) {
	if r.Raw != nil {
		return nil, errors.New("not JSON")
	}
	return jsonrpc.Decode(r.Message, nil)
}

// AppendJSON appends the record as one line of JSON, without its newline.
// The message goes in as it is, byte for byte.
func (r *Record) AppendJSON(b []byte) []byte {
	return r.appendTail(r.appendBody(r.appendHead(b)))
}

// WriteJSON writes the record to w as AppendJSON makes it, without a
// newline; its message goes to w as it is, never copied, so that a
// record of a long frame costs no second copy of it. buf is room for the
// other members, returned for the next record. (w is best buffered: the
// record takes three writes.)
func (r *Record) WriteJSON(w io.Writer, buf []byte) ([]byte, error) {
	buf = r.appendHead(buf[:0])
	if r.Raw == nil && len(r.Message) > 0 {
		if _, err := w.Write(buf); err != nil {
			return buf, err
		}
		if _, err := w.Write(r.Message); err != nil {
			return buf, err
		}
		buf = buf[:0]
	} else {
		buf = r.appendBody(buf)
	}
	buf = r.appendTail(buf)
	_, err := w.Write(buf)
	return buf, err
}

// appendHead appends the start of the record's JSON, up to its message
// or raw frame.
func (r *Record) appendHead(b []byte) []byte {
	b = append(b, `{"time":`...)
	b = strconv.AppendQuote(b, r.Time.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"from":`...)
	b = strconv.AppendQuote(b, r.From)
	if r.Raw != nil {
		return append(b, `,"raw":`...)
	}
	return append(b, `,"message":`...)
}

// appendBody appends the record's message, or its raw frame as a string.
func (r *Record) appendBody(b []byte) []byte {
	switch {
	case r.Raw != nil:
		return appendJSONString(b, *r.Raw)
	case len(r.Message) == 0:
		return append(b, "null"...)
	}
	return append(b, r.Message...)
}

// appendTail appends the members after the message, and the end.
func (r *Record) appendTail(b []byte) []byte {
	if r.Transport != "" {
		b = append(b, `,"transport":`...)
		b = appendJSONString(b, r.Transport)
	}
	if r.Session != "" {
		b = append(b, `,"session":`...)
		b = appendJSONString(b, r.Session)
	}
	if r.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(r.Status), 10)
	}
	if r.Method != "" {
		b = append(b, `,"method":`...)
		b = appendJSONString(b, r.Method)
	}
	if r.LatencyMS > 0 {
		b = append(b, `,"latency_ms":`...)
		b = strconv.AppendFloat(b, r.LatencyMS, 'f', -1, 64)
	}
	if r.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, r.Error)
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string (encoding/json's escaping,
// so that any bytes, even invalid UTF-8, round-trip as the JSON decoder
// reads them).
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// A Writer writes records as JSON Lines. It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes one record; after a failed write every later one fails
// with the same error.
func (w *Writer) Write(r *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.buf = append(r.AppendJSON(w.buf[:0]), '\n')
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = err
	}
	if cap(w.buf) > 1<<20 {
		w.buf = nil
	}
	return w.err
}

// Observe returns an Observer that hands each frame seen at side to sink
// as a record.
func Observe(side Side, sink func(*Record)) transport.Observer {
	return transport.ObserverFunc(func(f *transport.Frame) {
		r := FromFrame(f, side)
		sink(&r)
	})
}
