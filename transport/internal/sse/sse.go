// Package sse reads and writes Server-Sent Events
// (https://html.spec.whatwg.org/multipage/server-sent-events.html), as the
// Streamable HTTP and legacy HTTP+SSE transports of MCP use them: each
// event carries at most one JSON-RPC message on one data line, an optional
// id (for resumption with Last-Event-ID) and an optional retry delay.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// An Event is one server-sent event.
type Event struct {
	// ID is the event id ("" for none). Clients resume after it.
	ID string
	// Name is the event type ("" means "message").
	Name string
	// Data is the event's data; lines are joined with '\n'.
	Data []byte
	// Retry is the reconnection delay the server asks for, in
	// milliseconds; -1 when the event has no retry field.
	Retry int
}

// Write writes ev to w. Data may not contain "\r"; each "\n" starts a new
// data line. An event with no id, name, retry or data writes an empty
// data line, which is still an event.
func Write(w io.Writer, ev Event) error {
	b, err := AppendEvent(make([]byte, 0, len(ev.Data)+64), ev)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// AppendEvent appends the wire form of ev to b, as Write writes it, so
// that a server can frame events in a reused buffer. On error b is
// returned unchanged.
func AppendEvent(b []byte, ev Event) ([]byte, error) {
	if strings.ContainsAny(ev.ID, "\r\n\x00") {
		return b, errors.New("sse: event id contains a line break or NUL")
	}
	if strings.ContainsAny(ev.Name, "\r\n") {
		return b, errors.New("sse: event name contains a line break")
	}
	if bytes.IndexByte(ev.Data, '\r') >= 0 {
		return b, errors.New("sse: event data contains a carriage return")
	}
	if ev.ID != "" {
		b = append(b, "id: "...)
		b = append(b, ev.ID...)
		b = append(b, '\n')
	}
	if ev.Name != "" {
		b = append(b, "event: "...)
		b = append(b, ev.Name...)
		b = append(b, '\n')
	}
	if ev.Retry >= 0 {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, int64(ev.Retry), 10)
		b = append(b, '\n')
	}
	data := ev.Data
	for {
		line, rest, more := bytes.Cut(data, []byte{'\n'})
		b = append(b, "data: "...)
		b = append(b, line...)
		b = append(b, '\n')
		if !more {
			break
		}
		data = rest
	}
	return append(b, '\n'), nil
}

// WriteComment writes a comment line, which clients ignore; servers send
// them as keepalives.
func WriteComment(w io.Writer, text string) error {
	_, err := w.Write(AppendComment(nil, text))
	return err
}

// AppendComment appends a comment (": text" and a blank line) to b; line
// breaks in text become spaces.
func AppendComment(b []byte, text string) []byte {
	b = append(b, ": "...)
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		b = append(b, c)
	}
	return append(b, "\n\n"...)
}

// ErrTooLarge is returned by Reader.Next for an event larger than the
// reader's limit.
var ErrTooLarge = errors.New("sse: event too large")

// A Reader reads events from a stream.
type Reader struct {
	r    *bufio.Reader
	max  int
	line []byte      // the line being read (readLine)
	bufs *readerBufs // where r and line came from, for Release
	// LastID is the id of the last event read that had one: the value to
	// send as Last-Event-ID when reconnecting.
	LastID string
}

// readerBufs are the buffers of a Reader, reused after Release.
type readerBufs struct {
	r    *bufio.Reader
	line []byte
}

var readerPool = sync.Pool{New: func() any { return &readerBufs{r: bufio.NewReaderSize(nil, 4096)} }}

// maxPooledLine bounds the line buffer a released Reader keeps for reuse.
const maxPooledLine = 64 << 10

// NewReader returns a reader of events from r; an event (all its lines)
// may hold at most max bytes. Release gives its buffers back when it is
// no longer needed.
func NewReader(r io.Reader, max int) *Reader {
	b := readerPool.Get().(*readerBufs)
	b.r.Reset(r)
	return &Reader{r: b.r, max: max, line: b.line[:0], bufs: b}
}

// Release gives the reader's buffers back for other readers: a stream
// per call then costs no 4 KiB buffer of its own. The reader must not be
// used afterwards; the events it returned stay valid (they hold copies).
func (r *Reader) Release() {
	b := r.bufs
	if b == nil {
		return
	}
	line := r.line
	r.bufs, r.r, r.line = nil, nil, nil
	b.r.Reset(nil)
	if cap(line) <= maxPooledLine {
		b.line = line[:0] // the line buffer as it grew
	}
	readerPool.Put(b)
}

// Next returns the next event. Comments are skipped; an event made only of
// comments is not returned. It returns io.EOF at the end of the stream
// (an unterminated last event is dropped, as the specification says).
func (r *Reader) Next() (Event, error) {
	ev := Event{Retry: -1}
	var data []byte
	hasData, hasField := false, false
	size := 0
	for {
		line, err := r.readLine(r.max - size)
		if err != nil {
			return Event{}, err
		}
		size += len(line) + 1
		if len(line) == 0 {
			if !hasField {
				continue
			}
			if hasData {
				ev.Data = data
			}
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte{':'})
		value = bytes.TrimPrefix(value, []byte{' '})
		hasField = true
		switch string(field) {
		case "data":
			if hasData {
				data = append(data, '\n')
			} else {
				data = make([]byte, 0, len(value))
			}
			data = append(data, value...)
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID = string(value)
				r.LastID = ev.ID
			}
		case "event":
			ev.Name = eventName(value)
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 {
				ev.Retry = n
			}
		}
	}
}

// eventName returns the event type value names, without allocating for
// "message".
func eventName(value []byte) string {
	if string(value) == "message" {
		return "message"
	}
	return string(value)
}

// readLine reads one line (without its terminator: \n, \r\n or \r), of
// at most max bytes. The line is valid until the next call.
func (r *Reader) readLine(max int) ([]byte, error) {
	line := r.line[:0]
	for {
		n := r.r.Buffered()
		if n == 0 {
			if _, err := r.r.Peek(1); err != nil {
				if err == io.EOF && len(line) > 0 {
					return nil, io.ErrUnexpectedEOF
				}
				return nil, err
			}
			n = r.r.Buffered()
		}
		buf, _ := r.r.Peek(n)
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			if len(line)+len(buf) > max {
				return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
			}
			line = append(line, buf...)
			r.r.Discard(len(buf))
			continue
		}
		if len(line)+i > max && len(line)+i > 0 { // max < 0 still allows an empty line
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
		}
		line = append(line, buf[:i]...)
		r.r.Discard(i + 1)
		if buf[i] == '\r' {
			if next, err := r.r.Peek(1); err == nil && next[0] == '\n' {
				r.r.Discard(1)
			}
		}
		r.line = line
		return line, nil
	}
}
