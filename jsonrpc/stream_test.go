package jsonrpc

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// frameStream is a Stream whose other end is driven with raw frames, so
// tests see exactly the bytes that go over the wire.
type frameStream struct {
	dec    *Decoder
	in     chan []byte // frames to the conn
	out    chan []byte // frames written by the conn
	once   sync.Once
	closed chan struct{}
}

func newFrameStream(lim Limits) *frameStream {
	return &frameStream{
		dec:    NewDecoder(lim),
		in:     make(chan []byte),
		out:    make(chan []byte, 1024),
		closed: make(chan struct{}),
	}
}

func (s *frameStream) Read(ctx context.Context) (Message, error) {
	select {
	case f, ok := <-s.in:
		if !ok {
			return nil, io.EOF
		}
		return s.dec.Decode(f)
	case <-s.closed:
		return nil, io.EOF
	}
}

func (s *frameStream) Write(ctx context.Context, m Message) error {
	b, err := Encode(m)
	if err != nil {
		return err
	}
	select {
	case s.out <- b:
		return nil
	case <-s.closed:
		return ErrClosed
	}
}

func (s *frameStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// send hands a frame to the conn.
func (s *frameStream) send(t *testing.T, frame string) {
	t.Helper()
	select {
	case s.in <- []byte(frame):
	case <-time.After(5 * time.Second):
		t.Fatalf("conn did not read %s within 5s\n%s", frame, goroutines())
	}
}

// recv returns the next frame the conn wrote.
func (s *frameStream) recv(t *testing.T) string {
	t.Helper()
	select {
	case b := <-s.out:
		return string(b)
	case <-time.After(5 * time.Second):
		t.Fatalf("no frame from the conn within 5s\n%s", goroutines())
		return ""
	}
}

// goroutines returns the stacks of every goroutine, for a test that
// waited in vain: a deadlock shows where each one waits.
func goroutines() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// pipe returns two connected streams that exchange encoded frames.
func pipe() (a, b *pipeEnd) {
	ab, ba := make(chan []byte, 64), make(chan []byte, 64)
	done := make(chan struct{})
	var once sync.Once
	closeFn := func() { once.Do(func() { close(done) }) }
	a = &pipeEnd{in: ba, out: ab, done: done, close: closeFn}
	b = &pipeEnd{in: ab, out: ba, done: done, close: closeFn}
	return a, b
}

type pipeEnd struct {
	in, out chan []byte
	done    chan struct{}
	close   func()
}

func (p *pipeEnd) Read(ctx context.Context) (Message, error) {
	select {
	case f := <-p.in:
		return Decode(f, nil)
	case <-p.done:
		return nil, io.EOF
	}
}

func (p *pipeEnd) Write(ctx context.Context, m Message) error {
	b, err := Encode(m)
	if err != nil {
		return err
	}
	select {
	case p.out <- b:
		return nil
	case <-p.done:
		return ErrClosed
	}
}

func (p *pipeEnd) Close() error { p.close(); return nil }

// jsonEqual compares two JSON texts after decoding.
func jsonEqual(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("invalid JSON %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("invalid JSON %s: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}
