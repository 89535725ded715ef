package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestOutgoingMiddleware checks that Options.Outgoing wraps calls and
// notifications, first outermost, that a middleware can change what is
// sent and sees what comes back.
func TestOutgoingMiddleware(t *testing.T) {
	var mu sync.Mutex
	var got []string // what the peer received
	peer := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		mu.Lock()
		got = append(got, req.Method+" "+string(req.Params))
		mu.Unlock()
		return map[string]string{"echo": string(req.Params)}, nil
	})
	var log []string
	tag := func(name string) Middleware {
		return func(next Handler) Handler {
			return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
				log = append(log, name+" > "+req.Method)
				if name == "inner" {
					req.Params = json.RawMessage(`{"tagged":true}`)
				}
				res, err := next.Handle(ctx, req)
				if raw, ok := res.(json.RawMessage); ok {
					log = append(log, name+" < "+string(raw))
				} else {
					log = append(log, name+" < notification")
				}
				return res, err
			})
		}
	}
	a, _ := connPair(t, &Options{Outgoing: []Middleware{tag("outer"), tag("inner")}}, &Options{Handler: peer})
	ctx := context.Background()
	var res map[string]string
	if err := a.Call(ctx, "m", map[string]int{"x": 1}, &res); err != nil {
		t.Fatal(err)
	}
	if res["echo"] != `{"tagged":true}` {
		t.Errorf("result %v: the peer did not get the params the middleware set", res)
	}
	if err := a.Notify(ctx, "n", nil); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"outer > m", "inner > m", `inner < {"echo":"{\"tagged\":true}"}`, `outer < {"echo":"{\"tagged\":true}"}`,
		"outer > n", "inner > n", "inner < notification", "outer < notification",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("middleware saw:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 2 })
}

// TestOutgoingMiddlewareStart checks Start through the middleware: Start
// returns once the call is written, with its id, and the middleware sees
// the response when it comes.
func TestOutgoingMiddlewareStart(t *testing.T) {
	release := make(chan struct{})
	peer := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		<-release
		return "late", nil
	})
	seen := make(chan string, 1)
	mw := func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			res, err := next.Handle(ctx, req)
			seen <- string(res.(json.RawMessage))
			return res, err
		})
	}
	a, _ := connPair(t, &Options{Outgoing: []Middleware{mw}}, &Options{Handler: peer})
	ctx := context.Background()
	p, err := a.Start(ctx, "slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.ID().IsValid() {
		t.Fatal("Start returned no id")
	}
	if in, out := a.InFlight(); in != 0 || out != 1 {
		t.Errorf("in flight %d, %d; want the started call outstanding", in, out)
	}
	close(release)
	raw, err := p.Wait(ctx)
	if err != nil || string(raw) != `"late"` {
		t.Fatalf("Wait: %s, %v", raw, err)
	}
	if s := <-seen; s != `"late"` {
		t.Errorf("the middleware saw %s", s)
	}
}

// TestOutgoingMiddlewareAnswers checks a middleware that answers or
// refuses without sending, and that errors keep their identity.
func TestOutgoingMiddlewareAnswers(t *testing.T) {
	refused := errors.New("refused by policy")
	mw := func(next Handler) Handler {
		return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			switch req.Method {
			case "cached":
				return map[string]int{"n": 7}, nil
			case "forbidden":
				return nil, refused
			}
			return next.Handle(ctx, req)
		})
	}
	a, b := connPair(t, &Options{Outgoing: []Middleware{mw}}, nil)
	ctx := context.Background()
	var res map[string]int
	if err := a.Call(ctx, "cached", nil, &res); err != nil || res["n"] != 7 {
		t.Errorf("cached: %v, %v", res, err)
	}
	if err := a.Call(ctx, "forbidden", nil, nil); !errors.Is(err, refused) {
		t.Errorf("forbidden: %v, want the middleware's error", err)
	}
	p, err := a.Start(ctx, "cached", nil)
	if err != nil {
		t.Fatal(err)
	}
	if raw, err := p.Wait(ctx); err != nil || string(raw) != `{"n":7}` {
		t.Errorf("Start cached: %s, %v", raw, err)
	}
	if _, err := a.Start(ctx, "forbidden", nil); err != nil {
		t.Fatalf("Start forbidden: %v (the refusal is the call's outcome)", err)
	}
	var e *Error
	if err := a.Call(ctx, "unknown", nil, nil); !errors.As(err, &e) || e.Code != CodeMethodNotFound {
		t.Errorf("unknown: %v, want the peer's error", err)
	}
	b.Close()
	<-a.Done()
	if err := a.Call(ctx, "after", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("after close: %v, want ErrClosed", err)
	}
}

// TestOutgoingMiddlewareAbandon checks that a started call abandoned by
// its Wait leaves no goroutine behind and tells the hook once.
func TestOutgoingMiddlewareAbandon(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	peer := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return nil, nil
	})
	var abandoned sync.WaitGroup
	abandoned.Add(1)
	var once sync.Once
	mw := func(next Handler) Handler { return next }
	a, _ := connPair(t, &Options{Outgoing: []Middleware{mw}, OnCallAbandoned: func(ID, error) { once.Do(abandoned.Done) }}, &Options{Handler: peer})
	p, err := a.Start(context.Background(), "hang", nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := p.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait: %v", err)
	}
	abandoned.Wait()
	if _, out := a.InFlight(); out != 0 {
		t.Errorf("%d outgoing calls still in flight", out)
	}
}
