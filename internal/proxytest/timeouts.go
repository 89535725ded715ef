package proxytest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The clients that hold a proxy's handler by taking their time: one that
// sends its body a byte at a time (CheckBodyTimeout), one that never
// reads its answer (CheckStalledReader). Both proxies (mcpwire tap and
// conformance/proxy) must let go of them within their bounds.

// SlowBackend starts an upstream that reads each request's body, counting
// its bytes, and answers with an SSE stream of three JSON-RPC
// notifications, gap apart: a stream that lasts longer than a body's
// bound of gap. It is closed when the test ends.
func SlowBackend(t testing.TB, gap time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var got atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Add(n)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"i\":%d}}\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(gap) // the pace of the stream is what is tested
		}
	}))
	t.Cleanup(s.Close)
	return s, &got
}

// CheckBodyTimeout checks a proxy at addr, whose bound on the time of a
// request body is bound, in front of a SlowBackend of the same gap: a body
// that comes one byte every 20 ms gets 408 within bound and 2 s, and the
// handler that read it returns; a quick body is answered, and its answer,
// a stream that lasts three times bound, is not cut.
func CheckBodyTimeout(t *testing.T, addr string, bound time.Duration) {
	t.Helper()
	base := runtime.NumGoroutine()
	status, took := dribble(t, addr, 1000, bound+3*time.Second)
	if status != http.StatusRequestTimeout || took > bound+2*time.Second {
		t.Errorf("a body sent one byte every 20 ms: status %d after %v; want 408 within %v", status, took.Round(time.Millisecond), bound+2*time.Second)
	}
	if n := settle(base); n > base {
		t.Errorf("%d goroutines after the client went, %d before: the handler is still reading", n, base)
	}
	resp, err := http.Post("http://"+addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || strings.Count(string(b), "data: ") != 3 {
		t.Errorf("the SSE answer: %q, %v; want its 3 events", b, err)
	}
}

// dribble sends a POST whose body (of size bytes) comes one byte every
// 20 ms, and returns the status of the answer, and how long it took; 0
// when no answer came within wait.
func dribble(t *testing.T, addr string, size int, wait time.Duration) (int, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", addr, size)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for range size - 1 {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	c.SetReadDeadline(start.Add(wait))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, time.Since(start)
	}
	resp.Body.Close()
	return resp.StatusCode, time.Since(start)
}

// settle waits until at most n goroutines run, and returns how many do.
func settle(n int) int {
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}

// EndlessBackend starts an upstream that answers each request with an SSE
// stream of events of 64 KiB, as fast as they are taken, until a write
// fails or 2 GiB have gone. A write that is not taken within held means
// that the proxy holds the answer for a client that does not read it.
// Each answer's end is sent on the channel: nil when the proxy let go of
// it (a write failed, the proxy's connection closed), an error when a
// write was held or the stream ran to its bound. It is closed when the
// test ends.
func EndlessBackend(t testing.TB, held time.Duration) (*httptest.Server, <-chan error) {
	t.Helper()
	ended := make(chan error, 16)
	event := "data: \"" + strings.Repeat("x", 64<<10) + "\"\n\n"
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		start := time.Now()
		for sent := 0; sent < 2<<30; sent += len(event) {
			rc.SetWriteDeadline(time.Now().Add(held))
			_, err := io.WriteString(w, event)
			if err == nil {
				err = rc.Flush()
			}
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				ended <- fmt.Errorf("the upstream's write of its answer was held for %v, after %d MiB in %v", held, sent>>20, time.Since(start).Round(time.Millisecond))
				return
			case err != nil:
				ended <- nil
				return
			}
		}
		ended <- fmt.Errorf("the answer ran to its bound after %v, all of it taken", time.Since(start).Round(time.Millisecond))
	}))
	t.Cleanup(s.Close)
	return s, ended
}

// CheckStalledReader checks a proxy at addr, in front of an
// EndlessBackend whose answers end on ended: a client that sends a POST
// and never reads its answer (a raw socket with a small receive buffer,
// open until the check ends) is let go of within wait, and with it the
// upstream's answer.
func CheckStalledReader(t *testing.T, addr string, ended <-chan error, wait time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(4 << 10)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}`
	start := time.Now()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	select {
	case err := <-ended:
		if err != nil {
			t.Errorf("a client that never reads its answer: %v", err)
		} else {
			t.Logf("a client that never reads its answer: let go of after %v", time.Since(start).Round(time.Millisecond))
		}
	case <-time.After(wait):
		t.Errorf("a client that never reads its answer held the upstream's answer for %v", wait)
	}
}
