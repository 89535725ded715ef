package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/bodytest"
)

// countingBackend counts the body bytes it receives, and answers with an
// SSE stream of three events, bound apart.
func countingBackend(t *testing.T, bound time.Duration) (*url.URL, *atomic.Int64) {
	var got atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Add(n)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(bound)
		}
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	return u, &got
}

// TestProxyBoundsBodies: the proxy passed on a request body of any size,
// and took any time to read it (only the headers had a timeout). A body
// over its limit now gets 413, without reaching past the limit to the
// backend; a body slower than its timeout gets 408 within it, and the
// handler returns; an answer that streams for longer is not cut.
func TestProxyBoundsBodies(t *testing.T) {
	const maxBody, bound = 1 << 20, 300 * time.Millisecond
	u, got := countingBackend(t, bound)
	var errLog syncBuffer
	srv := newServer(newProxy([]*url.URL{u}, log.New(&errLog, "proxy: ", 0), limits{maxBody: maxBody, bodyTimeout: bound}))
	if srv.ReadHeaderTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Errorf("the proxy's server: ReadHeaderTimeout %v, IdleTimeout %v; want both bounded", srv.ReadHeaderTimeout, srv.IdleTimeout)
	}

	// The size, with time enough.
	s := bodytest.NewServer(t, newProxy([]*url.URL{u}, log.New(&errLog, "proxy: ", 0), limits{maxBody: maxBody}))
	for _, chunked := range []bool{false, true} {
		got.Store(0)
		res := s.Post(t, "POST", "/mcp", http.Header{"Content-Type": {"application/json"}}, bodytest.Body{}, chunked)
		if res.Status != http.StatusRequestEntityTooLarge || res.Read > maxBody+bodytest.Slack || got.Load() > maxBody {
			t.Errorf("a body of %d MiB (chunked %v): %v; the backend got %d bytes; want 413, at most %d bytes read", bodytest.Huge>>20, chunked, res, got.Load(), maxBody)
		}
	}

	ts := httptest.NewUnstartedServer(nil)
	ts.Config = srv
	ts.Start()
	defer ts.Close()
	addr := ts.Listener.Addr().String()
	base := runtime.NumGoroutine()
	status, took := dribble(t, addr, 1000, bound+3*time.Second)
	if status != http.StatusRequestTimeout || took > bound+2*time.Second {
		t.Errorf("a body sent one byte every 20 ms: status %d after %v; want 408 within %v", status, took.Round(time.Millisecond), bound+2*time.Second)
	}
	if n := settle(base); n > base {
		t.Errorf("%d goroutines after the client went, %d before: the handler is still reading", n, base)
	}

	resp, err := http.Post(ts.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || strings.Count(string(b), "data: ") != 3 {
		t.Errorf("the SSE answer: %q, %v; want its 3 events (proxy log: %s)", b, err, errLog.String())
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
