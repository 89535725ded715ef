package stdio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a bytes.Buffer safe for the engine's writes and the
// test's reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestServeOverSubstitutedStdio(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, stdin := io.Pipe()
		out := &syncBuffer{}
		conn, err := New(&Options{Stdin: in, Stdout: out}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "ping" {
				return struct{}{}, nil
			}
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "")
		})
		c := jsonrpc.NewConn(conn, &jsonrpc.Options{Handler: h})
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+
			"not json\n"+
			`{"jsonrpc":"2.0","id":2,"method":"nope"}`+"\r\n")
		want := map[string]bool{
			`{"jsonrpc":"2.0","id":1,"result":{}}`: true,
			`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: invalid literal at offset 0"}}`: true,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`:                  true,
		}
		synctest.Wait() // every line is read and answered
		stdin.Close()   // the client's first step of shutdown
		select {
		case <-c.Done(): // the end of stdin ends the connection
		case <-time.After(5 * time.Second):
			t.Fatal("the connection did not end at the end of stdin")
		}
		if err := c.Wait(); err != nil {
			t.Errorf("Wait = %v", err)
		}
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(got) != len(want) {
			t.Fatalf("stdout holds %q", got)
		}
		for _, line := range got {
			if !want[line] {
				t.Errorf("unexpected line on stdout: %s", line)
			}
		}
	})
}

func TestConnectOnce(t *testing.T) {
	tr := New(&Options{Stdin: strings.NewReader(""), Stdout: io.Discard})
	c, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := tr.Connect(context.Background()); err == nil {
		t.Error("second Connect succeeded")
	}
}

func TestDefaultsAreTheProcessStdio(t *testing.T) {
	tr := New(nil)
	if tr.opts.Stdin == nil || tr.opts.Stdout == nil {
		t.Fatal("no default stdin or stdout")
	}
}

// TestCloseDoesNotCloseStdio: the process's stdin and stdout are not the
// connection's to close, and Close must not wait for a read of stdin.
func TestCloseDoesNotCloseStdio(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		out := &closeRecorder{}
		c, err := New(&Options{Stdin: pr, Stdout: out}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			_, err := c.Read(context.Background())
			errc <- err
		}()
		synctest.Wait() // Read is blocked
		c.Close()
		if err := <-errc; !errors.Is(err, jsonrpc.ErrClosed) {
			t.Errorf("Read = %v", err)
		}
		if out.closed {
			t.Error("Close closed stdout")
		}
		if _, err := pw.Write([]byte("\n")); err != nil { // stdin is still open
			t.Errorf("stdin was closed: %v", err)
		}
		pw.Close()
	})
}

type closeRecorder struct{ closed bool }

func (w *closeRecorder) Write(p []byte) (int, error) { return len(p), nil }
func (w *closeRecorder) Close() error                { w.closed = true; return nil }

// countingWriter counts the writes it gets and the lines in them.
type countingWriter struct {
	mu            sync.Mutex
	writes, lines int
	buf           bytes.Buffer
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	w.lines += bytes.Count(p, []byte("\n"))
	return w.buf.Write(p)
}

func (w *countingWriter) counts() (writes, lines int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes, w.lines
}

// TestPipelinedResponsesShareWrites: when a client pipelines calls, the
// answers to the calls already read are written together, as a buffered
// hand-written loop would, not in one write (one system call) each; and
// the last of them is written before the server waits for more input.
func TestPipelinedResponsesShareWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 64
		in, stdin := io.Pipe()
		out := &countingWriter{}
		conn, err := New(&Options{Stdin: in, Stdout: out}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return struct{}{}, nil
		})
		c := jsonrpc.NewConn(conn, &jsonrpc.Options{Handler: h})
		var burst strings.Builder
		for i := range n {
			fmt.Fprintf(&burst, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i+1)
		}
		io.WriteString(stdin, burst.String()) // one read of stdin holds every call
		synctest.Wait()                       // every call read and answered; the server waits for input
		writes, lines := out.counts()
		if lines != n {
			t.Fatalf("%d of %d answers written before the server waits for input", lines, n)
		}
		if writes != 1 {
			t.Errorf("%d pipelined answers took %d writes to stdout, want 1", n, writes)
		}
		stdin.Close()
		<-c.Done()
	})
}

// TestHeldAnswersAreNotKeptWaiting: answers held while more input is
// buffered are written when what remains buffered is only part of a line
// (the server would wait for its end), and when a call that is slow to
// answer follows them.
func TestHeldAnswersAreNotKeptWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, stdin := io.Pipe()
		out := &countingWriter{}
		conn, err := New(&Options{Stdin: in, Stdout: out}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			if req.Method == "slow" {
				<-release
			}
			return struct{}{}, nil
		})
		c := jsonrpc.NewConn(conn, &jsonrpc.Options{Handler: h})
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+
			`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n"+
			`{"jsonrpc":"2.0","id":3,"meth`)
		synctest.Wait()
		if _, lines := out.counts(); lines != 2 {
			t.Fatalf("%d answers written while the rest of a line is awaited, want 2", lines)
		}
		io.WriteString(stdin, `od":"ping"}`+"\n"+
			`{"jsonrpc":"2.0","id":4,"method":"slow"}`+"\n"+
			`{"jsonrpc":"2.0","id":5,"method":"ping"}`+"\n")
		time.Sleep(time.Millisecond) // the bubble's clock: the slow call has run long
		synctest.Wait()
		if _, lines := out.counts(); lines != 4 {
			t.Errorf("%d answers written while a slow call runs, want 4", lines)
		}
		close(release)
		synctest.Wait()
		if _, lines := out.counts(); lines != 5 {
			t.Errorf("%d answers written in the end, want 5", lines)
		}
		stdin.Close()
		<-c.Done()
	})
}

// answerWriter counts writes and signals when the answers to a burst of
// calls are all written.
type answerWriter struct {
	writes, lines, want int
	done                chan struct{}
}

func (w *answerWriter) Write(p []byte) (int, error) {
	w.writes++ // the connection serializes its writes
	w.lines += bytes.Count(p, []byte("\n"))
	if w.lines == w.want {
		w.done <- struct{}{}
	}
	return len(p), nil
}

// BenchmarkPipelinedCalls: bursts of 64 pings, each burst in one read of
// stdin; it reports the writes to stdout per call (a system call each on
// a real stdout).
func BenchmarkPipelinedCalls(b *testing.B) {
	const depth = 64
	in, stdin := io.Pipe()
	out := &answerWriter{done: make(chan struct{}, 1)}
	conn, err := New(&Options{Stdin: in, Stdout: out}).Connect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return struct{}{}, nil
	})
	c := jsonrpc.NewConn(conn, &jsonrpc.Options{Handler: h})
	defer func() {
		stdin.Close()
		<-c.Done()
	}()
	var burst []byte
	id := 0
	b.ReportAllocs()
	for b.Loop() {
		burst = burst[:0]
		for range depth {
			id++
			burst = fmt.Appendf(burst, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", id)
		}
		out.want += depth
		if _, err := stdin.Write(burst); err != nil {
			b.Fatal(err)
		}
		<-out.done
	}
	b.ReportMetric(float64(out.writes)/float64(id), "writes/call")
	b.ReportMetric(float64(depth), "calls/op")
}

// TestHeldAnswersWaitAtMostAMillisecond: answers were held for as long
// as more calls were buffered, bounded only at 64 KiB of output, so that
// a burst of calls that each take a little under the hand-off's 100 µs
// kept the first answer for 64 KiB of answers (about 130 ms of small
// ones). An answer is now held for at most a millisecond.
func TestHeldAnswersWaitAtMostAMillisecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 100 // 90 µs each: 9 ms in all
		in, stdin := io.Pipe()
		out := &countingWriter{}
		conn, err := New(&Options{Stdin: in, Stdout: out}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			time.Sleep(90 * time.Microsecond)
			return struct{}{}, nil
		})
		c := jsonrpc.NewConn(conn, &jsonrpc.Options{Handler: h})
		var burst strings.Builder
		for i := range n {
			fmt.Fprintf(&burst, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i+1)
		}
		io.WriteString(stdin, burst.String())
		time.Sleep(time.Second) // virtual time: every call made and answered
		synctest.Wait()
		writes, lines := out.counts()
		if lines != n {
			t.Fatalf("%d of %d answers written", lines, n)
		}
		if writes < 8 {
			t.Errorf("%d answers over 9 ms took %d writes, want one at least every millisecond", n, writes)
		}
		stdin.Close()
		<-c.Done()
	})
}
