package wire

import (
	"bytes"
	"io"
	"sync"
)

// An sseTee passes an event stream through unchanged and, on the side,
// parses it into events (the event stream format of the HTML standard,
// https://html.spec.whatwg.org/multipage/server-sent-events.html), which
// it hands to event as each completes. It parses whatever the reads
// deliver, cut anywhere: a line ending CR LF may arrive in two reads.
//
// It keeps at most max bytes of an event's data (over is then set) and of
// any line, so a stream costs a bounded amount of memory whatever it
// sends. end is called once, when the stream ends or is closed.
//
// (transport/internal/sse has the project's SSE reader; it pulls from an
// io.Reader and fails an event over its limit, while the tap must parse
// bytes as they pass, and keep the start of an event over the limit and
// go on. Both follow the same standard; FuzzHTTPTapSSEDelivery checks
// that this parser's events do not depend on how the stream is cut.)
type sseTee struct {
	io.ReadCloser
	max   int
	event func(name string, data []byte, over bool)
	end   func()

	line     []byte // the current line, when it spans reads: its first max+linePrefix bytes
	lineOver bool   // the current line is longer than what line keeps
	afterCR  bool   // the last byte fed ended a line with CR: a LF next is part of that ending

	data    []byte // the data of the event being read, at most max bytes
	name    string // its type ("event" field)
	hasData bool   // it has a data field
	over    bool   // its data is longer than max

	once sync.Once
}

// linePrefix is what a line keeps beyond max, so that a data line keeps
// its field name, colon and space and at least max bytes of its value.
const linePrefix = len("data: ")

func (s *sseTee) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.feed(p[:n])
	if err != nil {
		s.finish()
	}
	return n, err
}

func (s *sseTee) Close() error {
	s.finish()
	return s.ReadCloser.Close()
}

func (s *sseTee) finish() {
	s.once.Do(func() {
		if s.end != nil {
			s.end()
		}
	})
}

// feed parses stream bytes into lines and events.
func (s *sseTee) feed(b []byte) {
	if s.afterCR && len(b) > 0 {
		s.afterCR = false
		if b[0] == '\n' {
			b = b[1:]
		}
	}
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			s.keep(b)
			return
		}
		if len(s.line) > 0 || s.lineOver {
			s.keep(b[:i])
			s.field(s.line, s.lineOver)
			s.line, s.lineOver = s.line[:0], false
		} else {
			s.field(b[:i], false)
		}
		if b[i] == '\r' {
			if i+1 == len(b) {
				s.afterCR = true
			} else if b[i+1] == '\n' {
				i++
			}
		}
		b = b[i+1:]
	}
}

// keep adds b to the current line, up to what a line keeps.
func (s *sseTee) keep(b []byte) {
	room := s.max + linePrefix - len(s.line)
	if len(b) > room {
		b = b[:max(room, 0)]
		s.lineOver = true
	}
	s.line = append(s.line, b...)
}

// field handles one line; over says that l is only the start of it.
func (s *sseTee) field(l []byte, over bool) {
	if len(l) == 0 && !over { // the end of an event
		if s.hasData {
			s.event(s.name, s.data, s.over)
		}
		s.data, s.name, s.hasData, s.over = s.data[:0], "", false, false
		if cap(s.data) > 1<<20 {
			s.data = nil
		}
		return
	}
	if l[0] == ':' { // a comment
		return
	}
	name, value, colon := bytes.Cut(l, []byte{':'})
	if !colon && over {
		return // a field name longer than any known one
	}
	value = bytes.TrimPrefix(value, []byte{' '})
	switch string(name) {
	case "data":
		if s.hasData {
			s.addData([]byte{'\n'}, false)
		}
		s.hasData = true
		s.addData(value, over)
	case "event":
		s.name = string(value)
		if over {
			s.name += "\x00" // cut: it is no name the tap knows
		}
	}
}

// addData adds b to the event's data, up to max bytes; cut says that b is
// only the start of what the line holds.
func (s *sseTee) addData(b []byte, cut bool) {
	if room := s.max - len(s.data); len(b) > room || cut {
		b = b[:min(len(b), max(room, 0))]
		s.over = true
	}
	s.data = append(s.data, b...)
}
