package transport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// pushPeer is the far end of a line connection that a jsonrpc.Conn reads
// by push: the test writes raw lines and reads what the Conn answers.
type pushPeer struct {
	in   *io.PipeWriter // what the Conn reads
	out  chan map[string]any
	done chan struct{}
}

func newPushConn(t *testing.T, opts *jsonrpc.Options) (*jsonrpc.Conn, *pushPeer) {
	t.Helper()
	cr, pw := io.Pipe()
	pr, cw := io.Pipe()
	lc := NewLineConn(cr, cw, lineClosers{cr, cw}, nil)
	if _, ok := lc.(jsonrpc.PushStream); !ok {
		t.Fatal("a line connection is not a jsonrpc.PushStream")
	}
	p := &pushPeer{in: pw, out: make(chan map[string]any, 16), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		dec := json.NewDecoder(pr)
		for {
			var m map[string]any
			if dec.Decode(&m) != nil {
				return
			}
			p.out <- m
		}
	}()
	c := jsonrpc.NewConn(lc, opts)
	t.Cleanup(func() {
		c.Close()
		pw.Close()
		<-p.done
	})
	return c, p
}

func (p *pushPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatalf("writing %s: %v", line, err)
	}
}

func (p *pushPeer) recv(t *testing.T) map[string]any {
	t.Helper()
	select {
	case m := <-p.out:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no message from the connection within 5s")
		return nil
	}
}

// A call that runs long does not stop reading: a second call is answered
// while the first still runs, and the first can be cancelled.
func TestPushLongCallDoesNotBlockReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		var c *jsonrpc.Conn
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			switch req.Method {
			case "block":
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			default:
				return "quick", nil
			}
		})
		cancel := jsonrpc.PreempterFunc(func(ctx context.Context, req *jsonrpc.Request) bool {
			if req.Method != "cancel" {
				return false
			}
			c.CancelIncoming(jsonrpc.Int64ID(1))
			return true
		})
		c, p := newPushConn(t, &jsonrpc.Options{Handler: h, Preempter: cancel})
		p.send(t, `{"jsonrpc":"2.0","id":1,"method":"block"}`)
		<-started
		p.send(t, `{"jsonrpc":"2.0","id":2,"method":"quick"}`)
		if m := p.recv(t); m["id"] != 2.0 || m["result"] != "quick" {
			t.Fatalf("got %v, want the answer to call 2 while call 1 runs", m)
		}
		p.send(t, `{"jsonrpc":"2.0","method":"cancel"}`)
		synctest.Wait() // the cancellation has been read and the call has ended
		if in, _ := c.InFlight(); in != 0 {
			t.Fatalf("%d calls in flight after the cancellation, want 0", in)
		}
		// The cancelled call gets no response; the connection still answers.
		p.send(t, `{"jsonrpc":"2.0","id":3,"method":"quick"}`)
		if m := p.recv(t); m["id"] != 3.0 {
			t.Fatalf("got %v, want the answer to call 3", m)
		}
	})
}

// A call that asks the peer a question is answered: reading moves to
// another goroutine before the question goes out.
func TestPushCallThatCallsThePeer(t *testing.T) {
	var c *jsonrpc.Conn
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var answer string
		if err := c.Call(ctx, "question", nil, &answer); err != nil {
			return nil, err
		}
		return "got " + answer, nil
	})
	c, p := newPushConn(t, &jsonrpc.Options{Handler: h})
	for i := range 3 { // several rounds: each reading goroutine hands off in turn
		p.send(t, `{"jsonrpc":"2.0","id":"ask","method":"ask"}`)
		q := p.recv(t)
		if q["method"] != "question" {
			t.Fatalf("round %d: got %v, want the question", i, q)
		}
		id, _ := json.Marshal(q["id"])
		p.send(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":"yes"}`)
		if m := p.recv(t); m["id"] != "ask" || m["result"] != "got yes" {
			t.Fatalf("round %d: got %v, want the answer to ask", i, m)
		}
	}
}

// Notifications keep their order, and calls that follow a notification
// see it handled first, when deliveries are pushed.
func TestPushNotificationsInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var seen []string
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if !req.IsCall() {
				seen = append(seen, req.Method)
				return nil, nil
			}
			return strings.Join(seen, ","), nil
		})
		_, p := newPushConn(t, &jsonrpc.Options{Handler: h})
		p.send(t, `{"jsonrpc":"2.0","method":"a"}`)
		p.send(t, `{"jsonrpc":"2.0","method":"b"}`)
		p.send(t, `{"jsonrpc":"2.0","method":"c"}`)
		synctest.Wait() // the notifications have been read and handled
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n != 3 {
			t.Fatalf("%d notifications handled, want 3", n)
		}
		p.send(t, `{"jsonrpc":"2.0","id":1,"method":"seen"}`)
		if m := p.recv(t); m["result"] != "a,b,c" {
			t.Fatalf("got %v, want a,b,c", m)
		}
	})
}

// The end of the input ends the connection; Close ends it at once even
// when the reader cannot be interrupted (a nil closer, as for os.Stdin).
func TestPushEndAndClose(t *testing.T) {
	t.Run("end of input", func(t *testing.T) {
		c, p := newPushConn(t, nil)
		p.in.Close()
		select {
		case <-c.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("the connection did not end with its input")
		}
		if err := c.Wait(); err != nil {
			t.Errorf("Wait() = %v, want nil after the end of the input", err)
		}
	})
	t.Run("close with a reader that cannot be interrupted", func(t *testing.T) {
		r, w := io.Pipe()
		lc := NewLineConn(r, io.Discard, nil, nil)
		c := jsonrpc.NewConn(lc, nil)
		start := time.Now()
		if err := c.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("Close took %v with a blocked reader", d)
		}
		if err := c.Wait(); err != nil {
			t.Errorf("Wait() = %v", err)
		}
		w.Close() // now the reader goroutine ends too (for the leak check)
		r.Close()
	})
}

// A line connection pushes each message once, in order, then the end once;
// after Push, Read fails.
func TestLineConnPush(t *testing.T) {
	r, w := io.Pipe()
	lc := NewLineConn(r, io.Discard, r, nil).(jsonrpc.PushStream)
	type got struct {
		m   jsonrpc.Message
		err error
	}
	ch := make(chan got, 8)
	lc.Push(func(m jsonrpc.Message, err error) { ch <- got{m, err} })
	go func() {
		io.WriteString(w, `{"jsonrpc":"2.0","method":"a"}`+"\n"+`not json`+"\n"+`{"jsonrpc":"2.0","method":"b"}`+"\n")
		w.Close()
	}()
	want := []string{"a", "decode error", "b", "EOF"}
	for i, wnt := range want {
		var g got
		select {
		case g = <-ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("delivery %d missing", i)
		}
		var s string
		var de *jsonrpc.DecodeError
		switch {
		case g.err == io.EOF:
			s = "EOF"
		case errors.As(g.err, &de):
			s = "decode error"
		case g.m != nil:
			s = g.m.(*jsonrpc.Request).Method
		}
		if s != wnt {
			t.Errorf("delivery %d: %v %v, want %s", i, g.m, g.err, wnt)
		}
	}
	if _, err := lc.Read(context.Background()); err == nil {
		t.Error("Read after Push succeeded")
	}
	lc.Close()
	select {
	case g := <-ch:
		t.Errorf("a delivery after the end: %v %v", g.m, g.err)
	case <-time.After(50 * time.Millisecond):
	}
}

// handOff may come from another goroutine (the engine's timer) at any
// moment of a delivery: the reader it replaces must not look at the
// input buffer once the next reader can read it. Under -race, a reader
// that checked for a buffered line after handing over its turn was
// reported racing with the next reader's fill of the buffer.
func TestHandOffWhileHoldingRacesNoRead(t *testing.T) {
	var in strings.Builder
	const n = 2000
	for i := range n {
		in.WriteString(`{"jsonrpc":"2.0","method":"n","params":{"i":` + strings.Repeat("1", 1+i%5) + "}}\n")
	}
	pr, pw := io.Pipe()
	go func() {
		// A few lines per write, so that lines are buffered behind the
		// one delivered, and reading goes on while handOff is called.
		s := in.String()
		for len(s) > 0 {
			k := min(len(s), 300)
			if _, err := io.WriteString(pw, s[:k]); err != nil {
				return
			}
			s = s[k:]
		}
		pw.Close()
	}()
	lc := NewLineConn(pr, io.Discard, lineClosers{pr}, nil).(*lineConn)
	var handOff func()
	var once sync.Once
	ready := make(chan struct{})
	done := make(chan struct{})
	var got atomic.Int64 // deliveries run at once after a hand-off
	handOff = lc.Push(func(m jsonrpc.Message, err error) {
		once.Do(func() { close(ready) })
		if m == nil {
			close(done)
			return
		}
		got.Add(1)
	})
	<-ready
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				handOff()
			}
		}
	})
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the input was not read to its end within 20s")
	}
	close(stop)
	wg.Wait()
	lc.Close()
	if got.Load() != n {
		t.Errorf("%d messages delivered, want %d", got.Load(), n)
	}
}
