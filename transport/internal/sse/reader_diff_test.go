package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
)

// refReader is the byte-at-a-time reader that Reader replaced (it built
// each line byte by byte, then copied it into a string): the reference
// of FuzzReaderDifferential.
type refReader struct {
	r      *bufio.Reader
	max    int
	LastID string
}

func (r *refReader) Next() (Event, error) {
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
		field, value, _ := strings.Cut(string(line), ":")
		value = strings.TrimPrefix(value, " ")
		hasField = true
		switch field {
		case "data":
			if hasData {
				data = append(data, '\n')
			} else {
				data = make([]byte, 0, len(value))
			}
			data = append(data, value...)
			hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				ev.ID = value
				r.LastID = value
			}
		case "event":
			ev.Name = value
		case "retry":
			if n, err := strconv.Atoi(value); err == nil && n >= 0 {
				ev.Retry = n
			}
		}
	}
}

func (r *refReader) readLine(max int) ([]byte, error) {
	var line []byte
	for {
		c, err := r.r.ReadByte()
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		switch c {
		case '\n':
			return line, nil
		case '\r':
			if next, err := r.r.Peek(1); err == nil && next[0] == '\n' {
				r.r.ReadByte()
			}
			return line, nil
		}
		if len(line) >= max {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
		}
		line = append(line, c)
	}
}

// oneByteReader returns one byte per Read, so that lines span buffer
// fills.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// FuzzReaderDifferential holds Reader to the events and errors of the
// byte-at-a-time reader it replaced, with input arriving whole or a byte
// at a time, and with readers reused through Release.
func FuzzReaderDifferential(f *testing.F) {
	f.Add([]byte("id: 1\ndata: {}\n\n"), 64, false)
	f.Add([]byte(": c\r\nretry: 5\r\n\r\n"), 8, true)
	f.Add([]byte(": comment\r\n\r\nid: 7\r\ndata:x\rdata: y\n\nevent: e\ndata\n\nid: 8\ndata: unterminated"), 100, false)
	f.Add([]byte("data: "+strings.Repeat("x", 200)+"\n\n"), 100, true)
	f.Add([]byte("data: abc\n\n\n"), 10, false)
	f.Add([]byte("event: message\ndata: a\r\n\r"), 9, true)
	f.Fuzz(func(t *testing.T, in []byte, max int, slow bool) {
		if max <= 0 || max > 1<<16 {
			return
		}
		var src io.Reader = bytes.NewReader(in)
		if slow {
			src = oneByteReader{src}
		}
		ref := &refReader{r: bufio.NewReaderSize(bytes.NewReader(in), 4096), max: max}
		r := NewReader(src, max)
		defer r.Release()
		for range 1000 {
			want, werr := ref.Next()
			got, gerr := r.Next()
			if (werr == nil) != (gerr == nil) || werr != nil && (errors.Is(werr, ErrTooLarge) != errors.Is(gerr, ErrTooLarge) || errors.Is(werr, io.EOF) != errors.Is(gerr, io.EOF) || errors.Is(werr, io.ErrUnexpectedEOF) != errors.Is(gerr, io.ErrUnexpectedEOF)) {
				t.Fatalf("error %v, want %v", gerr, werr)
			}
			if werr != nil {
				return
			}
			if got.ID != want.ID || got.Name != want.Name || got.Retry != want.Retry || !bytes.Equal(got.Data, want.Data) || (got.Data == nil) != (want.Data == nil) || r.LastID != ref.LastID {
				t.Fatalf("event %+v, want %+v", got, want)
			}
		}
	})
}

// BenchmarkReader reads the SSE answer of a tools/call: a priming event,
// then the response.
func BenchmarkReader(b *testing.B) {
	stream := []byte("id: 1_0\nretry: 1000\ndata: \n\nevent: message\nid: 1_1\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + strings.Repeat("x", 100) + "\"}]}}\n\n")
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(stream), 1<<20)
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
		r.Release()
	}
}
