package jsonrpc

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// Shutdown lets a call run past the drain timeout while its context
// allows, and its response is still sent.
func TestShutdownWaitsForItsContextNotTheDrainTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			close(started)
			select {
			case <-time.After(3 * time.Second):
				return "finished", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
		s := newFrameStream(Limits{})
		c := NewConn(s, &Options{Handler: h, DrainTimeout: time.Second})
		s.send(t, `{"jsonrpc":"2.0","id":1,"method":"work"}`)
		<-started
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		t0 := time.Now()
		if err := c.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if d := time.Since(t0); d != 3*time.Second {
			t.Errorf("Shutdown took %v, want the 3s the call needed", d)
		}
		if got := s.recv(t); !jsonEqual(t, got, `{"jsonrpc":"2.0","id":1,"result":"finished"}`) {
			t.Errorf("response during Shutdown: %s", got)
		}
	})
}

// When its context ends first, Shutdown cancels the calls still running
// and returns the context's error.
func TestShutdownCancelsWhenItsContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		cancelled := make(chan struct{})
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			close(started)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		})
		s := newFrameStream(Limits{})
		c := NewConn(s, &Options{Handler: h, DrainTimeout: time.Hour})
		s.send(t, `{"jsonrpc":"2.0","id":1,"method":"stuck"}`)
		<-started
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		t0 := time.Now()
		if err := c.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown: %v, want the context's deadline", err)
		}
		if d := time.Since(t0); d != 2*time.Second {
			t.Errorf("Shutdown took %v, want 2s", d)
		}
		select {
		case <-cancelled:
		default:
			t.Error("the running call was not cancelled")
		}
		select {
		case <-c.Done():
		default:
			t.Error("the connection is not done after Shutdown")
		}
	})
}

// Shutdown and Close may race: each returns once the connection is down,
// and a cancelled context makes Shutdown as immediate as it can be.
func TestShutdownAndCloseConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
		s := newFrameStream(Limits{})
		c := NewConn(s, &Options{Handler: h, DrainTimeout: time.Minute})
		s.send(t, `{"jsonrpc":"2.0","id":1,"method":"stuck"}`)
		<-started
		now, cancel := context.WithCancel(context.Background())
		cancel()
		t0 := time.Now()
		done := make(chan struct{}, 3)
		go func() { c.Close(); done <- struct{}{} }()
		go func() { c.Shutdown(context.Background()); done <- struct{}{} }()
		go func() { c.Shutdown(now); done <- struct{}{} }()
		for range 3 {
			<-done
		}
		if d := time.Since(t0); d != 0 {
			t.Errorf("closing took %v with a cancelled context, want no wait", d)
		}
	})
}
