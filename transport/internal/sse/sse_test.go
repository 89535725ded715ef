package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	events := []Event{
		{ID: "1", Data: []byte(`{"jsonrpc":"2.0","method":"x"}`), Retry: -1},
		{ID: "2", Retry: 500}, // a priming event: id, retry, empty data
		{Name: "endpoint", Data: []byte("/messages?s=1"), Retry: -1},
		{Data: []byte("a\nb"), Retry: -1},
	}
	for _, ev := range events {
		if err := Write(&b, ev); err != nil {
			t.Fatal(err)
		}
	}
	WriteComment(&b, "keepalive")
	r := NewReader(&b, 1<<10)
	for i, want := range events {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if got.ID != want.ID || got.Name != want.Name || string(got.Data) != string(want.Data) || got.Retry != want.Retry {
			t.Errorf("event %d: got %+v want %+v", i, got, want)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last event: %v", err)
	}
	if r.LastID != "2" {
		t.Errorf("LastID %q", r.LastID)
	}
}

func TestReaderForms(t *testing.T) {
	in := ": comment\r\n\r\nid: 7\r\ndata:x\rdata: y\n\nevent: e\ndata\n\nid: 8\ndata: unterminated"
	r := NewReader(strings.NewReader(in), 100)
	ev, err := r.Next()
	if err != nil || ev.ID != "7" || string(ev.Data) != "x\ny" {
		t.Fatalf("got %+v %v", ev, err)
	}
	ev, err = r.Next()
	if err != nil || ev.Name != "e" || ev.Data == nil || len(ev.Data) != 0 {
		t.Fatalf("got %+v %v", ev, err)
	}
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("unterminated event: %v", err)
	}
}

func TestReaderLimit(t *testing.T) {
	r := NewReader(strings.NewReader("data: "+strings.Repeat("x", 200)+"\n\n"), 100)
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge", err)
	}
}

func TestWriteRejectsBreaks(t *testing.T) {
	for _, ev := range []Event{{ID: "a\nb"}, {Name: "x\r"}, {Data: []byte("a\rb")}} {
		if err := Write(io.Discard, ev); err == nil {
			t.Errorf("Write(%+v) succeeded", ev)
		}
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("id: 1\ndata: {}\n\n"), 64)
	f.Add([]byte(": c\r\nretry: 5\r\n\r\n"), 8)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<16 {
			return
		}
		r := NewReader(bytes.NewReader(in), max)
		for range 1000 {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if len(ev.Data) > max {
				t.Fatalf("event of %d bytes passed a %d-byte limit", len(ev.Data), max)
			}
		}
	})
}
