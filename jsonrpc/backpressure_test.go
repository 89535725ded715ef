package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// These tests run in a synctest bubble: a deadlock leaves every goroutine
// of the bubble blocked, the fake clock jumps to the next deadline at once
// (frameStream's 5s), and the test fails at once with every goroutine's
// stack instead of hanging.

// Regression (issue 9, defect 2): when notifications filled the queue,
// the reader waited for room, so the response that a notification
// handler was waiting for was never read: the handler, and with it the
// queue, waited forever. (A client's OnListChanged that calls ListTools
// while a chatty server logs is this case.)
func TestNotificationHandlerGetsItsAnswerBehindManyNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var handled atomic.Int32
		var c *Conn
		answered := make(chan error, 1)
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			switch req.Method {
			case "changed":
				var out string
				err := c.Call(ctx, "list", nil, &out)
				if err == nil && out != "the list" {
					err = fmt.Errorf("got %q", out)
				}
				answered <- err
			case "log":
				handled.Add(1)
			}
			return nil, nil
		})
		s := newFrameStream(Limits{})
		c = NewConn(s, &Options{Handler: h, MaxQueue: 4})
		defer c.Close()
		s.send(t, `{"jsonrpc":"2.0","method":"changed"}`)
		if got := s.recv(t); !strings.Contains(got, `"method":"list"`) {
			t.Fatalf("the handler's call: %s", got)
		}
		// The peer logs more than the queue holds before it answers.
		for range 8 {
			s.send(t, `{"jsonrpc":"2.0","method":"log"}`)
		}
		s.send(t, `{"jsonrpc":"2.0","id":1,"result":"the list"}`)
		if err := <-answered; err != nil {
			t.Fatalf("the notification handler's call: %v", err)
		}
		c.Close()
		if n := handled.Load(); n != 8 {
			t.Errorf("%d of the 8 notifications handled", n)
		}
	})
}

// Regression (issue 9, defect 2): with the reader waiting for room in the
// notification queue, a cancellation behind the notifications was never
// read, so a call that runs until it is cancelled held its slot forever,
// the queued call behind it never started, and the notifications behind
// that call were never handled.
func TestCancellationReadBehindManyNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		var handled atomic.Int32
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			switch req.Method {
			case "listen":
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			case "log":
				handled.Add(1)
			}
			return req.Method, nil
		})
		var c *Conn
		pre, cancelled := cancelPreempter(t, &c)
		s := newFrameStream(Limits{})
		c = NewConn(s, &Options{Handler: h, Preempter: pre, MaxConcurrency: 1, MaxQueue: 4})
		defer c.Close()
		s.send(t, `{"jsonrpc":"2.0","id":1,"method":"listen"}`)
		<-started
		s.send(t, `{"jsonrpc":"2.0","id":2,"method":"next"}`) // queued: the slot is taken
		for range 8 {
			s.send(t, `{"jsonrpc":"2.0","method":"log"}`) // behind "next"
		}
		s.send(t, `{"jsonrpc":"2.0","method":"cancel","params":{"id":1}}`)
		<-cancelled
		if got := s.recv(t); !jsonEqual(t, got, `{"jsonrpc":"2.0","id":2,"result":"next"}`) {
			t.Errorf("got %s, want the answer to the queued call", got)
		}
		c.Close()
		if n := handled.Load(); n != 8 {
			t.Errorf("%d of the 8 notifications handled", n)
		}
	})
}

// Regression: a call made by a call's handler returns once the
// notifications received before its response have been handled. When
// those notifications were queued behind a call waiting for the slot the
// handler itself held, they could never be handled, and the handler
// waited forever.
func TestCallFromHandlerDoesNotWaitForNotificationsBehindItsOwnSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c *Conn
		done := make(chan error, 1)
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			if req.Method == "ask" {
				err := c.Call(ctx, "question", nil, nil)
				done <- err
				return "asked", err
			}
			return req.Method, nil
		})
		s := newFrameStream(Limits{})
		c = NewConn(s, &Options{Handler: h, MaxConcurrency: 1})
		defer c.Close()
		s.send(t, `{"jsonrpc":"2.0","id":1,"method":"ask"}`)
		q := s.recv(t) // the handler's question, id 1
		if !strings.Contains(q, `"method":"question"`) {
			t.Fatalf("got %s", q)
		}
		s.send(t, `{"jsonrpc":"2.0","id":2,"method":"other"}`) // waits for the slot "ask" holds
		s.send(t, `{"jsonrpc":"2.0","method":"log"}`)          // behind "other"
		s.send(t, `{"jsonrpc":"2.0","id":1,"result":null}`)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":"asked"}`, `{"jsonrpc":"2.0","id":2,"result":"other"}`} {
			if got := s.recv(t); !jsonEqual(t, got, want) {
				t.Errorf("got %s, want %s", got, want)
			}
		}
	})
}

// TestNotificationOverflowEndsConnection checks the policy for a peer that
// sends more notifications than Options.MaxQueuedNotifications ahead of
// their handling: the reader never waits for room; the connection ends
// with an error that names the limit, which outstanding calls, Wait and
// OnClosed report; the notifications already queued are still handled.
func TestNotificationOverflowEndsConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		var handled atomic.Int32
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			if req.Method == "log" && handled.Add(1) == 1 {
				close(started)
				<-release
			}
			return nil, nil
		})
		closed := make(chan error, 1)
		s := newFrameStream(Limits{})
		c := NewConn(s, &Options{Handler: h, MaxQueuedNotifications: 4, OnClosed: func(err error) { closed <- err }})
		defer c.Close()
		callErr := make(chan error, 1)
		go func() { callErr <- c.Call(context.Background(), "pending", nil, nil) }()
		s.recv(t)
		// One notification runs and blocks; four wait; the sixth is one too
		// many. The connection drains: the four are still handled.
		s.send(t, `{"jsonrpc":"2.0","method":"log"}`)
		<-started
		for range 5 {
			s.send(t, `{"jsonrpc":"2.0","method":"log"}`)
		}
		<-c.Closing()
		close(release)
		err := <-callErr
		if !errors.Is(err, ErrTooManyNotifications) || !errors.Is(err, ErrClosed) {
			t.Errorf("outstanding call: %v, want ErrTooManyNotifications and ErrClosed", err)
		}
		if err == nil || !strings.Contains(err.Error(), "MaxQueuedNotifications") || !strings.Contains(err.Error(), "4") {
			t.Errorf("the error does not name the limit: %v", err)
		}
		if err := c.Wait(); !errors.Is(err, ErrTooManyNotifications) {
			t.Errorf("Wait = %v, want ErrTooManyNotifications", err)
		}
		if err := <-closed; !errors.Is(err, ErrTooManyNotifications) {
			t.Errorf("OnClosed got %v", err)
		}
		if n := handled.Load(); n != 5 {
			t.Errorf("%d notifications handled, want the 5 taken before the overflow", n)
		}
	})
}
