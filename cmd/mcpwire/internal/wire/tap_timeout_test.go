package wire

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"
)

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

// TestHTTPTapBoundsTheTimeOfABody: the tap's server (mcpwire tap
// --listen) bounded the time of a request's headers only, so that a
// client sending its body one byte at a time held a handler, and the
// buffer of up to 16 MiB its Content-Length made, for as long as it
// went on. The body now has BodyTimeout: past it the client gets 408,
// the connection is closed and the handler returns; an answer that
// lasts longer (an SSE stream) is not cut.
func TestHTTPTapBoundsTheTimeOfABody(t *testing.T) {
	const bound = 300 * time.Millisecond
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{\"i\":%d}}\n\n", i)
			w.(http.Flusher).Flush()
			time.Sleep(bound) // the stream lasts three times the body's bound
		}
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	srv := newTapServer(&HTTPTap{Upstream: u, BodyTimeout: bound})
	if srv.ReadHeaderTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Errorf("the tap's server: ReadHeaderTimeout %v, IdleTimeout %v; want both bounded", srv.ReadHeaderTimeout, srv.IdleTimeout)
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

	// A quick body, and an answer that streams for longer than the bound.
	resp, err := http.Post(ts.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || strings.Count(string(b), "data: ") != 3 {
		t.Errorf("the SSE answer: %q, %v; want its 3 events", b, err)
	}
}

// TestHTTPTapCommitsMemoryAsTheBodyComes: the tap made the buffer of a
// body as large as its Content-Length said (up to MaxBody, 16 MiB) before
// a byte of it came, so that a client opening connections that each
// declare 16 MiB and send nothing more held 16 MiB per connection, for
// BodyTimeout now (before, for ever). The buffer now grows with what
// arrives.
func TestHTTPTapCommitsMemoryAsTheBodyComes(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	ts := httptest.NewServer(&HTTPTap{Upstream: u})
	defer ts.Close()
	addr := ts.Listener.Addr().String()
	const conns = 8
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", addr, DefaultMaxBody)
		c.(*net.TCPConn).CloseWrite() // the body ends there: the tap answers 400
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		c.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("a body cut short: %s, want 400", resp.Status)
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > conns<<20 {
		t.Errorf("%d bodies that declared %d MiB and sent 1 byte made the tap allocate %d MiB", conns, DefaultMaxBody>>20, grew>>20)
	}
}
