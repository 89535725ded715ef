package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// cancelPreempter handles the notification "cancel" {"id": ID} by
// cancelling that incoming call of *c, as MCP's notifications/cancelled,
// and then sends the id on the channel it returns.
func cancelPreempter(t *testing.T, c **Conn) (Preempter, <-chan ID) {
	done := make(chan ID, 16)
	return PreempterFunc(func(ctx context.Context, req *Request) bool {
		if req.Method != "cancel" {
			return false
		}
		var p struct{ ID ID }
		if err := json.Unmarshal(req.Params, &p); err != nil {
			t.Errorf("cancel params: %v", err)
		}
		if !(*c).CancelIncoming(p.ID) {
			t.Errorf("CancelIncoming(%v) found no call", p.ID)
		}
		done <- p.ID
		return true
	}), done
}

// Regression (issue 9, defect 1): a batch holding a call that was still
// queued when the peer cancelled it was never answered at all. The
// dispatcher dropped the cancelled call without counting it as done, so
// the batch waited for it forever and the other calls' responses were
// never sent.
func TestBatchWithCancelledQueuedCallIsAnswered(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "slow" {
			close(started)
			<-release
		}
		return req.Method, nil
	})
	var c *Conn
	pre, cancelled := cancelPreempter(t, &c)
	s := newFrameStream(Limits{})
	c = NewConn(s, &Options{Handler: h, Preempter: pre, MaxConcurrency: 1})
	defer c.Close()
	// "slow" takes the only slot; "fast" waits in the queue.
	s.send(t, `[{"jsonrpc":"2.0","id":1,"method":"slow"},{"jsonrpc":"2.0","id":2,"method":"fast"}]`)
	<-started
	// The reader takes the batch whole before the next frame: "fast" is
	// queued when its cancellation arrives.
	s.send(t, `{"jsonrpc":"2.0","method":"cancel","params":{"id":2}}`)
	<-cancelled
	close(release)
	if got := s.recv(t); !jsonEqual(t, got, `[{"jsonrpc":"2.0","id":1,"result":"slow"}]`) {
		t.Errorf("batch answer %s, want slow's response alone", got)
	}
}

// unencodable is a result whose encoding panics.
type unencodable struct{}

func (unencodable) MarshalJSON() ([]byte, error) { panic("cannot encode") }

// Regression: a result whose encoding panicked (a MarshalJSON or
// AppendJSON that panics) was encoded outside the handler's recover, so
// the panic ended the program; in a batch, the call would have left the
// engine unanswered. It must fail its own call with CodeInternalError,
// like a handler that panics.
func TestResultEncodingPanicFailsOnlyItsCall(t *testing.T) {
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if req.Method == "bad" {
			return unencodable{}, nil
		}
		return "ok", nil
	})
	s := newFrameStream(Limits{})
	c := NewConn(s, &Options{Handler: h})
	defer c.Close()
	s.send(t, `[{"jsonrpc":"2.0","id":1,"method":"bad"},{"jsonrpc":"2.0","id":2,"method":"good"}]`)
	got := normalize(t, s.recv(t))
	want := normalize(t, `[{"jsonrpc":"2.0","id":1,"error":{"code":-32603}},{"jsonrpc":"2.0","id":2,"result":"ok"}]`)
	if got != want {
		t.Errorf("batch answer %s, want %s", got, want)
	}
	// Direct connections (Serve) too.
	d := NewDirectConn(writerFunc(func(context.Context, Message) error { return nil }), &Options{Handler: h})
	defer d.Close()
	resp := d.Serve(context.Background(), &Request{ID: Int64ID(3), Method: "bad"})
	if resp == nil || ErrorCode(resp.Error) != CodeInternalError {
		t.Errorf("Serve = %+v, want an internal error", resp)
	}
	if in, _ := d.InFlight(); in != 0 {
		t.Errorf("%d calls still in flight after Serve returned", in)
	}
}

// TestBatchAnsweredWhateverBecomesOfItsCalls checks each way a call of a
// batch can leave the engine: answered, failed by its handler (error or
// panic), refused (queue full), cancelled while running or while queued.
// The batch is answered once, with a response for every call but the
// cancelled ones.
func TestBatchAnsweredWhateverBecomesOfItsCalls(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	h := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		switch req.Method {
		case "slow":
			close(started)
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case "fail":
			return nil, errors.New("failed")
		case "panic":
			panic("handler panic")
		}
		return req.Method, nil
	})
	var c *Conn
	pre, cancelled := cancelPreempter(t, &c)
	s := newFrameStream(Limits{})
	c = NewConn(s, &Options{Handler: h, Preempter: pre, MaxConcurrency: 1, MaxQueue: 4})
	defer c.Close()
	s.send(t, `[
		{"jsonrpc":"2.0","id":1,"method":"slow"},
		{"jsonrpc":"2.0","id":2,"method":"fail"},
		{"jsonrpc":"2.0","id":3,"method":"panic"},
		{"jsonrpc":"2.0","id":4,"method":"cancelled while queued"},
		{"jsonrpc":"2.0","id":5,"method":"ok"},
		{"jsonrpc":"2.0","id":6,"method":"refused"},
		{"jsonrpc":"2.0","method":"a notification"},
		{"jsonrpc":"2.0","id":7,"method":"refused too"}
	]`)
	<-started
	s.send(t, `{"jsonrpc":"2.0","method":"cancel","params":{"id":4}}`)
	<-cancelled
	close(release)
	got := normalize(t, s.recv(t))
	want := normalize(t, `[
		{"jsonrpc":"2.0","id":1,"result":"slow"},
		{"jsonrpc":"2.0","id":2,"error":{"code":-32603}},
		{"jsonrpc":"2.0","id":3,"error":{"code":-32603}},
		{"jsonrpc":"2.0","id":5,"result":"ok"},
		{"jsonrpc":"2.0","id":6,"error":{"code":-32005}},
		{"jsonrpc":"2.0","id":7,"error":{"code":-32005}}
	]`)
	if got != want {
		t.Errorf("batch answer\n got %s\nwant %s", got, want)
	}

	// A call cancelled while it runs is left out too.
	started, release = make(chan struct{}), make(chan struct{})
	s.send(t, `[{"jsonrpc":"2.0","id":8,"method":"slow"},{"jsonrpc":"2.0","id":9,"method":"ok"}]`)
	<-started
	s.send(t, `{"jsonrpc":"2.0","method":"cancel","params":{"id":8}}`)
	<-cancelled
	if got := s.recv(t); !jsonEqual(t, got, `[{"jsonrpc":"2.0","id":9,"result":"ok"}]`) {
		t.Errorf("batch answer %s, want 9's response alone", got)
	}
}
