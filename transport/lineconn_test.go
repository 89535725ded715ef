package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// readLines reads c until an error that is not a *jsonrpc.DecodeError and
// describes what it read, one string per Read: the message re-encoded,
// or "error CODE: MESSAGE" for a DecodeError; and the final error.
func readLines(t *testing.T, c Conn) ([]string, error) {
	t.Helper()
	var out []string
	for range 1000 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		m, err := c.Read(ctx)
		cancel()
		var de *jsonrpc.DecodeError
		switch {
		case errors.As(err, &de):
			out = append(out, "error "+de.Err.Code.String()+": "+de.Err.Message)
		case err != nil:
			return out, err
		default:
			b, err := jsonrpc.Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	t.Fatal("too many messages")
	return nil, nil
}

func equalLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d items, want %d:\ngot  %q\nwant %q", len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("item %d:\ngot  %s\nwant %s", i, got[i], want[i])
		}
	}
}

const (
	linePing     = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	linePong     = `{"jsonrpc":"2.0","id":1,"result":{}}`
	lineNotified = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func TestLineConnFraming(t *testing.T) {
	in := linePing + "\n" +
		"\n" + // blank
		linePong + "\r\n" + // CRLF
		"  \t \r\n" + // whitespace only
		"\r\n" +
		"  " + lineNotified + "  \n" + // whitespace around the message
		lineNotified // last line without a line ending
	c := NewLineConn(strings.NewReader(in), io.Discard, nil, nil)
	defer c.Close()
	got, err := readLines(t, c)
	if err != io.EOF {
		t.Fatalf("final error = %v, want io.EOF", err)
	}
	equalLines(t, got, []string{linePing, linePong, lineNotified, lineNotified})
	if _, err := c.Read(context.Background()); err != io.EOF {
		t.Errorf("Read after the end = %v, want io.EOF again", err)
	}
}

func TestLineConnInvalidLinesDoNotEndReading(t *testing.T) {
	in := "{not json\n" +
		`{"jsonrpc":"2.0","id":7,"method":"x","Method":"y"}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"a","id":2}` + "\n" +
		"[]\n" +
		"\xff\n" +
		linePing + "\n"
	c := NewLineConn(strings.NewReader(in), io.Discard, nil, nil)
	defer c.Close()
	got, err := readLines(t, c)
	if err != io.EOF {
		t.Fatalf("final error = %v", err)
	}
	if len(got) != 6 || got[5] != linePing {
		t.Fatalf("got %q", got)
	}
	for i, want := range []string{"Parse error", "Invalid Request", "Invalid Request", "Invalid Request", "Parse error"} {
		if !strings.HasPrefix(got[i], "error "+want) {
			t.Errorf("line %d: got %q, want a %s", i, got[i], want)
		}
	}
}

func TestLineConnOversizedLines(t *testing.T) {
	const max = 64
	msg := func(n int) string { // a valid message of exactly n bytes
		base := `{"jsonrpc":"2.0","method":"m","params":{"p":""}}`
		return base[:len(base)-3] + strings.Repeat("x", n-len(base)) + `"}}`
	}
	if len(msg(max)) != max {
		t.Fatal("bad helper")
	}
	tooLong := "error Invalid Request: Invalid Request: message exceeds 64 bytes"
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"exactly the limit", msg(max) + "\n", []string{msg(max)}},
		{"the limit and CRLF", msg(max) + "\r\n", []string{msg(max)}},
		{"one byte over, in the buffer", msg(max+1) + "\n" + linePing + "\n", []string{tooLong, linePing}},
		{"one byte over and CRLF", msg(max+1) + "\r\n" + linePing + "\n", []string{tooLong, linePing}},
		{"far over", msg(10*max) + "\n" + linePing + "\n", []string{tooLong, linePing}},
		{"far over, CRLF", msg(10*max) + "\r\n" + linePing + "\r\n", []string{tooLong, linePing}},
		{"huge", msg(1<<20) + "\n" + linePing + "\n" + msg(3*max) + "\n" + linePong, []string{tooLong, linePing, tooLong, linePong}},
		{"over at the end", linePing + "\n" + msg(10*max), []string{linePing, tooLong}},
		{"over, blank", strings.Repeat(" ", 3*max) + "\n" + linePing, []string{tooLong, linePing}},
		{"long blank within the limit", strings.Repeat(" ", max) + "\n" + linePing, []string{linePing}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := NewLineConn(strings.NewReader(tc.in), io.Discard, nil, &LineOptions{Limits: jsonrpc.Limits{MaxMessageSize: max}})
			defer c.Close()
			got, err := readLines(t, c)
			if err != io.EOF {
				t.Fatalf("final error = %v", err)
			}
			equalLines(t, got, tc.want)
			if lc := c.(*lineConn); cap(lc.acc) > 4*max {
				t.Errorf("the line buffer grew to %d bytes, limit %d", cap(lc.acc), max)
			}
		})
	}
}

func TestLineConnOversizedLineReportedBeforeItEnds(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	c := NewLineConn(pr, io.Discard, pr, &LineOptions{Limits: jsonrpc.Limits{MaxMessageSize: 100}})
	defer c.Close()
	go func() {
		pw.Write([]byte(`{"jsonrpc":"2.0","method":"` + strings.Repeat("a", 1000)))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := c.Read(ctx)
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) || de.Err.Code != jsonrpc.CodeInvalidRequest {
		t.Fatalf("Read = %v, want a DecodeError while the line is still being written", err)
	}
	go func() {
		pw.Write([]byte(strings.Repeat("a", 1000) + "\"}\n" + linePing + "\n"))
	}()
	m, err := c.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); err != nil || !ok || r.Method != "ping" {
		t.Fatalf("Read after the long line = %v, %v", m, err)
	}
}

func TestLineConnLongLines(t *testing.T) {
	// Lines longer than the read buffer are assembled from pieces.
	params := `{"text":"` + strings.Repeat("é", 3*lineBufferSize/2) + `"}`
	long := `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":` + params + `}`
	in := long + "\n" + linePing + "\n" + long + "\r\n" + strings.Repeat(" ", 2*lineBufferSize) + "\n" + long
	c := NewLineConn(strings.NewReader(in), io.Discard, nil, nil)
	defer c.Close()
	got, err := readLines(t, c)
	if err != io.EOF {
		t.Fatalf("final error = %v", err)
	}
	equalLines(t, got, []string{long, linePing, long, long})
}

func TestLineConnFramesAreNotShared(t *testing.T) {
	// A decoded message refers to its frame: frames must not be reused.
	in := `{"jsonrpc":"2.0","method":"a","params":{"n":1}}` + "\n" + `{"jsonrpc":"2.0","method":"b","params":{"n":2}}` + "\n"
	c := NewLineConn(strings.NewReader(in), io.Discard, nil, nil)
	defer c.Close()
	m1, err1 := c.Read(context.Background())
	m2, err2 := c.Read(context.Background())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if p := string(m1.(*jsonrpc.Request).Params); p != `{"n":1}` {
		t.Errorf("first message's params changed to %s", p)
	}
	if p := string(m2.(*jsonrpc.Request).Params); p != `{"n":2}` {
		t.Errorf("second message's params = %s", p)
	}
}

func TestLineConnReadUnblocksOnClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		c := NewLineConn(pr, io.Discard, pr, nil)
		startReader(c)
		errc := make(chan error, 1)
		go func() {
			_, err := c.Read(context.Background())
			errc <- err
		}()
		synctest.Wait() // Read is blocked
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-errc:
			if err != jsonrpc.ErrClosed {
				t.Errorf("Read = %v, want jsonrpc.ErrClosed", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Read did not return after Close")
		}
		select {
		case <-c.(*lineConn).readerDone:
		default:
			t.Error("the reader goroutine outlived Close")
		}
		if _, err := c.Read(context.Background()); err != jsonrpc.ErrClosed {
			t.Errorf("Read after Close = %v", err)
		}
		if err := c.Write(context.Background(), &jsonrpc.Request{Method: "x"}); err != jsonrpc.ErrClosed {
			t.Errorf("Write after Close = %v", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close = %v", err)
		}
	})
}

// TestLineConnCloseWithoutCloser covers os.Stdin: nothing can interrupt
// the read, so Read returns at once and the reader goroutine ends with the
// next input.
func TestLineConnCloseWithoutCloser(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		c := NewLineConn(pr, io.Discard, nil, nil)
		startReader(c)
		errc := make(chan error, 1)
		go func() {
			_, err := c.Read(context.Background())
			errc <- err
		}()
		synctest.Wait() // Read is blocked
		start := time.Now()
		c.Close()
		if d := time.Since(start); d != 0 {
			t.Errorf("Close waited %v (fake time)", d)
		}
		if err := <-errc; err != jsonrpc.ErrClosed {
			t.Errorf("Read = %v", err)
		}
		go pw.Write([]byte(linePing + "\n")) // the next input
		select {
		case <-c.(*lineConn).readerDone:
		case <-time.After(5 * time.Second):
			t.Fatal("the reader goroutine did not end on the next input")
		}
		pw.Close()
	})
}

// startReader makes c start its reader goroutine, as a first Read does.
func startReader(c Conn) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.Read(ctx)
}

func TestLineConnCloseBeforeRead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	c := NewLineConn(pr, io.Discard, pr, nil)
	c.Close()
	if c.(*lineConn).started {
		t.Error("Close started the reader")
	}
	if _, err := c.Read(context.Background()); err != jsonrpc.ErrClosed {
		t.Errorf("Read = %v", err)
	}
}

func TestLineConnReadContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	c := NewLineConn(pr, io.Discard, pr, nil)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Read(ctx); err != context.DeadlineExceeded {
		t.Fatalf("Read = %v, want context.DeadlineExceeded", err)
	}
	// The cancelled Read lost nothing.
	go pw.Write([]byte(linePing + "\n"))
	m, err := c.Read(context.Background())
	if r, ok := m.(*jsonrpc.Request); err != nil || !ok || r.Method != "ping" {
		t.Fatalf("Read = %v, %v", m, err)
	}
}

func TestLineConnReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader(linePing+"\n"), &lineFailingReader{boom})
	c := NewLineConn(r, io.Discard, nil, nil)
	defer c.Close()
	got, err := readLines(t, c)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("got %q, %v; want the message then the read error", got, err)
	}
}

type lineFailingReader struct{ err error }

func (r *lineFailingReader) Read([]byte) (int, error) { return 0, r.err }

// lineCountingWriter records each call to Write.
type lineCountingWriter struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (w *lineCountingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

func TestLineConnWrite(t *testing.T) {
	w := &lineCountingWriter{}
	c := NewLineConn(strings.NewReader(""), w, nil, nil)
	defer c.Close()
	ctx := context.Background()
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"},
		&jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage("{\n  \"text\": \"a\\nb\"\n}")},
		&jsonrpc.Response{Error: jsonrpc.NewError(jsonrpc.CodeParseError, "")},
		&jsonrpc.Response{ID: jsonrpc.StringID("s"), Result: json.RawMessage(`{}`)},
	}
	for _, m := range msgs {
		if err := c.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		linePing + "\n",
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"a\nb"}}` + "\n",
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}` + "\n", // no "id": null
		`{"jsonrpc":"2.0","id":"s","result":{}}` + "\n",
	}
	equalLines(t, w.calls, want)

	if err := c.Write(ctx, &jsonrpc.Request{}); err == nil {
		t.Error("writing a request without a method succeeded")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Write(cctx, msgs[0]); err != context.Canceled {
		t.Errorf("Write with a cancelled context = %v", err)
	}
	if len(w.calls) != len(want) {
		t.Errorf("failed writes reached the writer: %q", w.calls[len(want):])
	}
}

func TestLineConnWriteFlushes(t *testing.T) {
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	c := NewLineConn(strings.NewReader(""), bw, nil, nil)
	defer c.Close()
	if err := c.Write(context.Background(), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != linePing+"\n" {
		t.Errorf("after Write the underlying writer holds %q", got)
	}
}

func TestLineConnWriteErrorIsSticky(t *testing.T) {
	boom := errors.New("disk on fire")
	w := &lineCountingWriter{err: boom}
	c := NewLineConn(strings.NewReader(""), w, nil, nil)
	defer c.Close()
	req := &jsonrpc.Request{Method: "x"}
	err1 := c.Write(context.Background(), req)
	w.err = nil
	err2 := c.Write(context.Background(), req)
	if !errors.Is(err1, boom) || !errors.Is(err2, boom) {
		t.Fatalf("writes returned %v, %v; want %v twice", err1, err2, boom)
	}
	if len(w.calls) != 0 {
		t.Errorf("a write after a failed one reached the writer")
	}
}

// linePipeConns returns two line connections joined by pipes.
func linePipeConns() (a, b Conn) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	a = NewLineConn(ar, aw, lineClosers{ar, aw}, nil)
	b = NewLineConn(br, bw, lineClosers{br, bw}, nil)
	return a, b
}

type lineClosers []io.Closer

func (cs lineClosers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

func TestLineConnUnderJSONRPCConn(t *testing.T) {
	sa, sb := linePipeConns()
	echo := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return req.Params, nil
	})
	a := jsonrpc.NewConn(sa, &jsonrpc.Options{Handler: echo})
	b := jsonrpc.NewConn(sb, &jsonrpc.Options{Handler: echo})
	ctx := context.Background()
	var got []string
	if err := a.Call(ctx, "echo", []string{"a→b"}, &got); err != nil || got[0] != "a→b" {
		t.Fatalf("a→b: %v, %v", got, err)
	}
	if err := b.Call(ctx, "echo", []string{"b→a"}, &got); err != nil || got[0] != "b→a" {
		t.Fatalf("b→a: %v, %v", got, err)
	}
	a.Close()
	select {
	case <-b.Done(): // b read the end of the input
	case <-time.After(5 * time.Second):
		t.Fatal("b did not end after a closed")
	}
	if err := b.Wait(); err != nil {
		t.Errorf("b.Wait() = %v", err)
	}
}

func TestLineConnWithoutSizeLimit(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"m","params":{"p":"` + strings.Repeat("x", 3*lineBufferSize) + `"}}`
	c := NewLineConn(strings.NewReader(long+"\n"+linePing), io.Discard, nil, &LineOptions{Limits: jsonrpc.Limits{MaxMessageSize: -1}})
	defer c.Close()
	got, err := readLines(t, c)
	if err != io.EOF {
		t.Fatalf("final error = %v", err)
	}
	equalLines(t, got, []string{long, linePing})
}
