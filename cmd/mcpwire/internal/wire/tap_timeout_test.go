package wire

import (
	"bufio"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proxytest"
)

// tapServer serves tap as mcpwire tap --listen does, until the test
// ends, and returns its address.
func tapServer(t *testing.T, tap *HTTPTap) string {
	t.Helper()
	srv := newTapServer(tap)
	if srv.ReadHeaderTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Errorf("the tap's server: ReadHeaderTimeout %v, IdleTimeout %v; want both bounded", srv.ReadHeaderTimeout, srv.IdleTimeout)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = srv
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.Listener.Addr().String()
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
	up, _ := proxytest.SlowBackend(t, bound)
	u, _ := url.Parse(up.URL)
	proxytest.CheckBodyTimeout(t, tapServer(t, &HTTPTap{Upstream: u, BodyTimeout: bound}), bound)
}

// TestHTTPTapLetsGoOfAClientThatNeverReads: the answers had no time
// bound, so that a client that sent a request and never read its answer
// held the tap's handler, and the upstream's answer with it, for as long
// as it kept its connection open. Each write of an answer now has
// WriteTimeout: past it the tap closes the client's connection and the
// upstream's answer, and says so in its log.
func TestHTTPTapLetsGoOfAClientThatNeverReads(t *testing.T) {
	const bound = 300 * time.Millisecond
	up, ended := proxytest.EndlessBackend(t, 10*time.Second)
	u, _ := url.Parse(up.URL)
	var log proxytest.LogBuffer
	addr := tapServer(t, &HTTPTap{Upstream: u, WriteTimeout: bound, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	proxytest.CheckStalledReader(t, addr, ended, 15*time.Second)
	if !log.WaitFor("did not take its answer within 300ms", 5*time.Second) {
		t.Errorf("the tap's log says nothing of the client it let go of:\n%s", log.String())
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
