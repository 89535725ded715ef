package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// connPair returns two connected Conns.
func connPair(t *testing.T, a, b *Options) (*Conn, *Conn) {
	t.Helper()
	pa, pb := pipe()
	ca, cb := NewConn(pa, a), NewConn(pb, b)
	t.Cleanup(func() { ca.Close(); cb.Close() })
	return ca, cb
}

func TestCallBothWays(t *testing.T) {
	echo := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "echo" {
			return req.Params, nil
		}
		if req.Method == "callback" {
			// A handler calls back the peer that called it.
			var s string
			if err := ConnFromContext(ctx).Call(ctx, "echo", []string{"from handler"}, &s); err == nil {
				return nil, errors.New("expected an array back")
			}
			var arr []string
			err := ConnFromContext(ctx).Call(ctx, "echo", []string{"from handler"}, &arr)
			return arr, err
		}
		return nil, NewError(CodeMethodNotFound, "")
	})
	a, b := connPair(t, &Options{Handler: echo}, &Options{Handler: echo})
	ctx := context.Background()
	var got map[string]int
	if err := a.Call(ctx, "echo", map[string]int{"x": 1}, &got); err != nil || got["x"] != 1 {
		t.Fatalf("a→b echo = %v, %v", got, err)
	}
	var arr []string
	if err := b.Call(ctx, "callback", nil, &arr); err != nil || len(arr) != 1 || arr[0] != "from handler" {
		t.Fatalf("b→a callback = %v, %v", arr, err)
	}
	err := a.Call(ctx, "nope", nil, nil)
	if ErrorCode(err) != CodeMethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}
	if !errors.Is(err, NewError(CodeMethodNotFound, "")) {
		t.Errorf("errors.Is by code failed for %v", err)
	}
	if err := a.Notify(ctx, "echo", nil); err != nil {
		t.Fatal(err)
	}
}

func TestHandlerErrorsAndPanics(t *testing.T) {
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "panic":
			panic("boom")
		case "plain":
			return nil, errors.New("disk full")
		case "zero":
			return nil, &Error{Message: "code zero"}
		case "unencodable":
			return make(chan int), nil
		case "deadline":
			return nil, context.DeadlineExceeded
		}
		return "ok", nil
	})
	a, _ := connPair(t, nil, &Options{Handler: h})
	ctx := context.Background()
	for method, want := range map[string]Code{
		"panic":       CodeInternalError,
		"plain":       CodeInternalError,
		"zero":        CodeInternalError,
		"unencodable": CodeInternalError,
		"deadline":    CodeRequestTimeout,
	} {
		err := a.Call(ctx, method, nil, nil)
		if ErrorCode(err) != want {
			t.Errorf("%s: error %v, want code %d", method, err, want)
		}
	}
	var e *Error
	if err := a.Call(ctx, "plain", nil, nil); !errors.As(err, &e) || e.Message != "disk full" {
		t.Errorf("plain error message lost: %v", err)
	}
	var s string
	if err := a.Call(ctx, "fine", nil, &s); err != nil || s != "ok" {
		t.Errorf("after a panic the connection must keep working: %q %v", s, err)
	}
}

func TestConcurrencyBound(t *testing.T) {
	const max = 3
	var running, peak atomic.Int32
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		<-release
		running.Add(-1)
		return nil, nil
	})
	a, b := connPair(t, nil, &Options{Handler: h, MaxConcurrency: max})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if err := a.Call(context.Background(), "work", nil, nil); err != nil {
				t.Error(err)
			}
		})
	}
	// All ten in, and max of them running: InFlight counts the queued
	// ones too, so waiting for it alone let release come before the
	// handlers had started (peak 1 under a loaded -race run).
	waitFor(t, func() bool { in, _ := b.InFlight(); return in == 10 && running.Load() == max })
	close(release)
	wg.Wait()
	if p := peak.Load(); p != max {
		t.Errorf("peak concurrency %d, want %d", p, max)
	}
}

func TestQueueOverflowIsRefused(t *testing.T) {
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		<-release
		return nil, nil
	})
	a, b := connPair(t, nil, &Options{Handler: h, MaxConcurrency: 1, MaxQueue: 2})
	errs := make(chan error, 5)
	for range 5 {
		go func() { errs <- a.Call(context.Background(), "work", nil, nil) }()
	}
	// 1 running + 2 queued are held; the other 2 are refused at once.
	for range 2 {
		if err := <-errs; ErrorCode(err) != CodeOverloaded {
			t.Fatalf("got %v, want CodeOverloaded", err)
		}
	}
	if in, _ := b.InFlight(); in != 3 {
		t.Errorf("%d calls in flight, want 3", in)
	}
	close(release)
	for range 3 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestNotificationsInOrderBeforeLaterMessages checks that notifications
// are handled one at a time in arrival order, and that a call that
// arrives after them starts only once they have all been handled, however
// slow they are (in the bubble, each takes a millisecond of fake time).
func TestNotificationsInOrderBeforeLaterMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var log []string
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			if !req.IsCall() {
				time.Sleep(time.Millisecond) // a slow notification must still come first
			}
			mu.Lock()
			log = append(log, req.Method)
			mu.Unlock()
			return nil, nil
		})
		a, _ := connPair(t, nil, &Options{Handler: h})
		ctx := context.Background()
		for i := range 20 {
			if err := a.Notify(ctx, fmt.Sprintf("n%02d", i), nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Call(ctx, "call", nil, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		for i := range 20 {
			if want := fmt.Sprintf("n%02d", i); log[i] != want {
				t.Fatalf("handled %v, want n00..n19 in order, then call", log)
			}
		}
		if log[20] != "call" {
			t.Errorf("the call ran before the notifications ahead of it: %v", log)
		}
	})
}

// TestBarrier checks that a barrier starts only once the call before it
// has finished, and that the call after it waits for it. The frames are
// read in order, so "init" is queued behind "slow" and "after" behind
// "init"; "slow" holds on until the test has seen "after" queued.
func TestBarrier(t *testing.T) {
	var events []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); events = append(events, s); mu.Unlock() }
	started, release := make(chan struct{}), make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "slow":
			close(started)
			<-release
			note("slow done")
		case "init":
			note("init")
		case "after":
			note("after")
		}
		return nil, nil
	})
	s := newFrameStream(Limits{})
	c := NewConn(s, &Options{Handler: h, Barrier: func(r *Request) bool { return r.Method == "init" }})
	defer c.Close()
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	<-started
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"init"}`)
	s.send(t, `{"jsonrpc":"2.0","id":3,"method":"after"}`)
	// All three are in hand: "slow" runs, the other two wait.
	waitFor(t, func() bool { in, _ := c.InFlight(); return in == 3 })
	mu.Lock()
	early := slices.Clone(events)
	mu.Unlock()
	if len(early) != 0 {
		t.Fatalf("%v ran while the call before the barrier was running", early)
	}
	close(release)
	for range 3 {
		s.recv(t)
	}
	want := "slow done,init,after"
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(events, ","); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

func TestCancelIncoming(t *testing.T) {
	started := make(chan struct{})
	ended := make(chan error, 1)
	var cancelMethod = "cancel"
	var server *Conn
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "work" {
			close(started)
		}
		<-ctx.Done()
		if req.Method == "work" {
			ended <- ctx.Err()
		}
		return "too late", nil
	})
	pre := PreempterFunc(func(ctx context.Context, req *Request) bool {
		if req.Method != cancelMethod {
			return false
		}
		var p struct{ ID ID }
		if err := json.Unmarshal(req.Params, &p); err != nil {
			t.Errorf("cancel params: %v", err)
		}
		server.CancelIncoming(p.ID)
		return true
	})
	s := newFrameStream(Limits{})
	server = NewConn(s, &Options{Handler: h, Preempter: pre, MaxConcurrency: 1})
	defer server.Close()
	s.send(t, `{"jsonrpc":"2.0","id":"long","method":"work"}`)
	<-started
	// The handler holds the only slot; the cancellation still gets through.
	s.send(t, `{"jsonrpc":"2.0","method":"cancel","params":{"id":"long"}}`)
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Fatalf("handler context: %v", err)
	}
	s.send(t, `{"jsonrpc":"2.0","id":"next","method":"work2"}`)
	// "work2" blocks too: cancel it and check nothing at all was written.
	s.send(t, `{"jsonrpc":"2.0","method":"cancel","params":{"id":"next"}}`)
	server.Close()
	if n := len(s.out); n != 0 {
		t.Errorf("a cancelled call was answered: %s", <-s.out)
	}
}

func TestAbandonedCallNotifiesHook(t *testing.T) {
	var abandoned atomic.Value
	block := make(chan struct{})
	defer close(block)
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return nil, nil
	})
	a, _ := connPair(t, &Options{OnCallAbandoned: func(id ID, cause error) { abandoned.Store(id) }}, &Options{Handler: h})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := a.Call(ctx, "slow", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	if id, _ := abandoned.Load().(ID); id != Int64ID(1) {
		t.Errorf("hook got %v, want id 1", abandoned.Load())
	}
}

// TestCloseDrainsRunningHandlers checks that Close lets a running handler
// finish and send its response: the handler returns only once Close has
// begun.
func TestCloseDrainsRunningHandlers(t *testing.T) {
	started := make(chan struct{})
	var c *Conn
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-c.Closing()
		return "finished", ctx.Err()
	})
	s := newFrameStream(Limits{})
	c = NewConn(s, &Options{Handler: h})
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"work"}`)
	<-started
	c.Close()
	if got := s.recv(t); !jsonEqual(t, got, `{"jsonrpc":"2.0","id":1,"result":"finished"}`) {
		t.Errorf("response during drain: %s", got)
	}
}

func TestCloseCancelsAfterDrainTimeout(t *testing.T) {
	started := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s := newFrameStream(Limits{})
	c := NewConn(s, &Options{Handler: h, DrainTimeout: 20 * time.Millisecond})
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"stuck"}`)
	<-started
	t0 := time.Now()
	c.Close()
	if d := time.Since(t0); d > time.Second {
		t.Errorf("Close took %v", d)
	}
}

func TestEndOfInputFailsOutstandingCalls(t *testing.T) {
	s := newFrameStream(Limits{})
	c := NewConn(s, nil)
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "never", nil, nil) }()
	s.recv(t) // the call went out
	close(s.in)
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("got %v, want ErrClosed", err)
	}
	if err := c.Wait(); err != nil {
		t.Errorf("Wait after EOF = %v, want nil", err)
	}
	if err := c.Call(context.Background(), "after", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("call after close: %v", err)
	}
}

func TestStrictInputKeepsConnectionUsable(t *testing.T) {
	s := newFrameStream(Limits{MaxMessageSize: 200, MaxDepth: 8})
	c := NewConn(s, &Options{Handler: specHandler(), AcceptBatch: func() bool { return false }})
	defer c.Close()
	bad := []struct{ in, want string }{
		{`{"jsonrpc":"2.0","Method":"sum","id":1}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
		{`{"jsonrpc":"2.0","method":"sum","id":2,"id":3}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32600}}`},
		{`{"jsonrpc":"2.0","method":"sum","params":[` + strings.Repeat("1,", 100) + `1],"id":4}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600}}`},
		{`{"jsonrpc":"2.0","method":"sum","params":[[[[[[[[[1]]]]]]]]],"id":5}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600}}`},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"s\xffm\",\"id\":6}", `{"jsonrpc":"2.0","id":6,"error":{"code":-32700}}`},
		{`{"jsonrpc":"2.0","method":"sum","id":true}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
		{`[{"jsonrpc":"2.0","method":"sum","params":[1],"id":7}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600}}`},
	}
	for _, tc := range bad {
		s.send(t, tc.in)
		if got := s.recv(t); normalize(t, got) != normalize(t, tc.want) {
			t.Errorf("in %s\ngot  %s\nwant %s", tc.in, got, tc.want)
		}
		s.send(t, `{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":"ok"}`)
		if got := s.recv(t); !jsonEqual(t, got, `{"jsonrpc":"2.0","id":"ok","result":3}`) {
			t.Fatalf("after %s the connection broke: %s", tc.in, got)
		}
	}
}

func TestDuplicateInFlightIDRefused(t *testing.T) {
	release := make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		<-release
		return "done", nil
	})
	s := newFrameStream(Limits{})
	c := NewConn(s, &Options{Handler: h})
	defer c.Close()
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"a"}`)
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"b"}`)
	if got := s.recv(t); normalize(t, got) != normalize(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600}}`) {
		t.Errorf("duplicate id: %s", got)
	}
	close(release)
	if got := s.recv(t); !jsonEqual(t, got, `{"jsonrpc":"2.0","id":1,"result":"done"}`) {
		t.Errorf("first call: %s", got)
	}
}

func TestDirectConn(t *testing.T) {
	var out []Message
	var mu sync.Mutex
	w := writerFunc(func(ctx context.Context, m Message) error {
		mu.Lock()
		out = append(out, m)
		mu.Unlock()
		return nil
	})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "ask" {
			// A handler's call goes out through the writer; the answer
			// comes back through Resolve.
			var answer string
			err := ConnFromContext(ctx).Call(ctx, "question", nil, &answer)
			return answer, err
		}
		id, _ := IncomingID(ctx)
		return id.String(), nil
	})
	c := NewDirectConn(w, &Options{Handler: h})
	defer c.Close()
	resp := c.Serve(context.Background(), &Request{ID: Int64ID(9), Method: "who"})
	if string(resp.Result) != `"9"` {
		t.Fatalf("Serve = %+v", resp)
	}
	done := make(chan *Response)
	go func() { done <- c.Serve(context.Background(), &Request{ID: Int64ID(10), Method: "ask"}) }()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(out) == 1 })
	q := out[0].(*Request)
	if !c.Resolve(&Response{ID: q.ID, Result: json.RawMessage(`"forty-two"`)}) {
		t.Fatal("Resolve found no call")
	}
	if resp := <-done; string(resp.Result) != `"forty-two"` {
		t.Errorf("ask = %+v", resp)
	}
	if c.Serve(context.Background(), &Request{Method: "note"}) != nil {
		t.Error("a notification got a response")
	}
}

type writerFunc func(ctx context.Context, m Message) error

func (f writerFunc) Write(ctx context.Context, m Message) error { return f(ctx, m) }

// waitFor polls cond until it holds, failing the test with every
// goroutine's stack if it does not within 5s. It proves neither order nor
// absence: it only waits, within a deadline that only a failure reaches.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within 5s\n%s", goroutines())
		}
		time.Sleep(time.Millisecond) // a poll interval, not a guess at timing
	}
}

// TestCallReturnsAfterPrecedingNotifications checks that a call returns
// only once the notifications received before its response have been
// handled, and that a notification handler that calls back does not wait
// for itself. In the bubble, synctest.Wait proves that the call has not
// returned while the notifications are held.
func TestCallReturnsAfterPrecedingNotifications(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var handled atomic.Int32
		gate := make(chan struct{})
		var c *Conn
		h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			switch req.Method {
			case "log":
				<-gate
				handled.Add(1)
			case "changed":
				// A notification handler that calls back must not deadlock on
				// its own ordering guarantee.
				var out string
				if err := c.Call(ctx, "ask", nil, &out); err != nil || out != "answer" {
					t.Errorf("call from a notification handler: %q %v", out, err)
				}
				handled.Add(1)
			}
			return nil, nil
		})
		s := newFrameStream(Limits{})
		c = NewConn(s, &Options{Handler: h})
		defer c.Close()
		done := make(chan error, 1)
		go func() { done <- c.Call(context.Background(), "work", nil, nil) }()
		s.recv(t) // the call
		for range 3 {
			s.send(t, `{"jsonrpc":"2.0","method":"log"}`)
		}
		s.send(t, `{"jsonrpc":"2.0","id":1,"result":null}`)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Call returned (%v) before the notifications ahead of its response were handled", err)
		default:
		}
		close(gate)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n := handled.Load(); n != 3 {
			t.Fatalf("Call returned after %d of the 3 notifications before its response", n)
		}
		s.send(t, `{"jsonrpc":"2.0","method":"changed"}`)
		got := s.recv(t) // the handler's call
		if !strings.Contains(got, `"method":"ask"`) {
			t.Fatalf("got %s", got)
		}
		var m map[string]any
		json.Unmarshal([]byte(got), &m)
		s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":"answer"}`, m["id"]))
		synctest.Wait()
		if n := handled.Load(); n != 4 {
			t.Errorf("%d notifications handled, want 4", n)
		}
	})
}

// Regression: a response written while the input ends must not be lost to
// the drain closing the stream first.
func TestResponseNotLostAtEndOfInput(t *testing.T) {
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) { return "ok", nil })
	for i := range 300 {
		s := newFrameStream(Limits{})
		c := NewConn(s, &Options{Handler: h})
		s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"m"}`, i))
		close(s.in)
		c.Wait()
		if len(s.out) != 1 {
			t.Fatalf("run %d: the response was lost", i)
		}
	}
}
