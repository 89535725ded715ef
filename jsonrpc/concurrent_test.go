package jsonrpc

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// holdingStream is a Stream whose Write waits until n writes are in
// progress at once (or a deadline passes), counting the most it saw.
type holdingStream struct {
	concurrent bool
	n          int32
	inFlight   atomic.Int32
	most       atomic.Int32
	all        chan struct{} // closed once n writes were in progress at once
	once       sync.Once
	closed     chan struct{}
}

func newHoldingStream(concurrent bool, n int32) *holdingStream {
	return &holdingStream{concurrent: concurrent, n: n, all: make(chan struct{}), closed: make(chan struct{})}
}

func (s *holdingStream) Write(ctx context.Context, m Message) error {
	k := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		most := s.most.Load()
		if k <= most || s.most.CompareAndSwap(most, k) {
			break
		}
	}
	if k == s.n {
		close(s.all)
	}
	// Concurrent writes all arrive, however busy the machine: only a
	// failure waits that long. Serialized ones never meet: each gives up
	// after a moment, which proves nothing and delays the test only.
	wait := 10 * time.Second
	if !s.concurrent {
		wait = 20 * time.Millisecond
	}
	select {
	case <-s.all:
	case <-time.After(wait):
	}
	return nil
}

func (s *holdingStream) Read(ctx context.Context) (Message, error) {
	select {
	case <-s.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *holdingStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

type concurrentHoldingStream struct{ *holdingStream }

func (s concurrentHoldingStream) ConcurrentWrites() bool { return true }

// TestConcurrentWriter: the engine serializes writes, except to a
// ConcurrentWriter that allows concurrent ones (an HTTP client, whose
// Write of a call waits for its request to reach the wire: under the lock,
// concurrent calls queued behind each other's network round trip).
func TestConcurrentWriter(t *testing.T) {
	const n = 4
	for _, concurrent := range []bool{false, true} {
		hs := newHoldingStream(concurrent, n)
		var s Stream = hs
		if concurrent {
			s = concurrentHoldingStream{hs}
		}
		c := NewConn(s, nil)
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if err := c.Notify(context.Background(), "note", nil); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		c.Close()
		most := hs.most.Load()
		switch {
		case concurrent && most != n:
			t.Errorf("ConcurrentWriter: at most %d writes at once, want %d", most, n)
		case !concurrent && most != 1:
			t.Errorf("plain Writer: %d writes at once, want 1", most)
		}
	}
}
