package jsonrpc

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"testing/synctest"
	"time"
)

// goroutineID is the id of the calling goroutine, from its stack header.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	f := bytes.Fields(buf)
	if len(f) < 2 {
		return ""
	}
	return string(f[1])
}

// TestWorkersAreReusedThenEnd checks that a call runs in the goroutine of
// the previous one (its stack has grown already) and that an idle worker
// ends after workerIdle.
func TestWorkersAreReusedThenEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ids []string
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			ids = append(ids, goroutineID())
			return "ok", nil
		})
		client, server := connPair(t, nil, &Options{Handler: h})
		ctx := context.Background()
		for range 3 {
			if err := client.Call(ctx, "m", nil, nil); err != nil {
				t.Fatal(err)
			}
			synctest.Wait() // the worker is back waiting
		}
		if ids[0] != ids[1] || ids[1] != ids[2] {
			t.Errorf("calls ran in goroutines %v, want one reused worker", ids)
		}
		server.mu.Lock()
		idle := server.st.idleWorkers
		server.mu.Unlock()
		if idle != 1 {
			t.Errorf("%d idle workers after the calls, want 1", idle)
		}
		time.Sleep(workerIdle + time.Millisecond)
		synctest.Wait()
		server.mu.Lock()
		idle = server.st.idleWorkers
		server.mu.Unlock()
		if idle != 0 {
			t.Errorf("%d idle workers %v after the last call, want 0", idle, workerIdle)
		}
		// A call after that starts a new worker.
		if err := client.Call(ctx, "m", nil, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCloseEndsIdleWorkers checks that closing a connection ends the
// workers waiting for calls at once (goleak checks that none is left).
func TestCloseEndsIdleWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "ok", nil })
		client, server := connPair(t, nil, &Options{Handler: h})
		for range 4 {
			if err := client.Call(context.Background(), "m", nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		start := time.Now()
		server.Close()
		if d := time.Since(start); d >= workerIdle {
			t.Errorf("Close took %v: it waited for idle workers", d)
		}
	})
}

// TestManyCallsInHand checks the bookkeeping of calls in hand past the
// first (which needs no map): duplicate ids are refused whichever call
// holds the id, cancellation finds every call, and the counts drop to
// zero.
func TestManyCallsInHand(t *testing.T) {
	release := make(chan struct{})
	cancelled := make(chan string, 3)
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			cancelled <- req.Method
			return nil, ctx.Err()
		}
	})
	s := newFrameStream(Limits{})
	c := NewConn(s, &Options{Handler: h})
	defer c.Close()
	for _, id := range []string{"1", "2", "3"} {
		s.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"m`+id+`"}`)
	}
	waitFor(t, func() bool { in, _ := c.InFlight(); return in == 3 })
	for _, id := range []string{"1", "3"} {
		s.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"dup"}`)
		if got := s.recv(t); normalize(t, got) != normalize(t, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32600}}`) {
			t.Errorf("duplicate id %s: %s", id, got)
		}
	}
	for _, id := range []int64{1, 3} {
		if !c.CancelIncoming(Int64ID(id)) {
			t.Errorf("CancelIncoming(%d) found no call", id)
		}
	}
	got := map[string]bool{<-cancelled: true, <-cancelled: true}
	if !got["m1"] || !got["m3"] {
		t.Errorf("cancelled %v, want m1 and m3", got)
	}
	close(release)
	if got := s.recv(t); !jsonEqual(t, got, `{"jsonrpc":"2.0","id":2,"result":"done"}`) {
		t.Errorf("call 2: %s", got)
	}
	waitFor(t, func() bool { in, _ := c.InFlight(); return in == 0 })
}
