package main

import (
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/bodytest"
	"github.com/mcpwire/mcpwire/internal/proxytest"
)

// proxyServer serves the proxy, with its server, in front of backend
// until the test ends, and returns its address.
func proxyServer(t *testing.T, backend string, errLog *proxytest.LogBuffer, lim limits) string {
	t.Helper()
	u, _ := url.Parse(backend)
	srv := newServer(newProxy([]*url.URL{u}, log.New(errLog, "proxy: ", 0), lim))
	if srv.ReadHeaderTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Errorf("the proxy's server: ReadHeaderTimeout %v, IdleTimeout %v; want both bounded", srv.ReadHeaderTimeout, srv.IdleTimeout)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = srv
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.Listener.Addr().String()
}

// TestProxyBoundsBodies: the proxy passed on a request body of any size,
// and took any time to read it (only the headers had a timeout). A body
// over its limit now gets 413, without reaching past the limit to the
// backend; a body slower than its timeout gets 408 within it, and the
// handler returns; an answer that streams for longer is not cut.
func TestProxyBoundsBodies(t *testing.T) {
	const maxBody, bound = 1 << 20, 300 * time.Millisecond
	up, got := proxytest.SlowBackend(t, bound)
	u, _ := url.Parse(up.URL)
	var errLog proxytest.LogBuffer

	// The size, with time enough.
	s := bodytest.NewServer(t, newProxy([]*url.URL{u}, log.New(&errLog, "proxy: ", 0), limits{maxBody: maxBody}))
	for _, chunked := range []bool{false, true} {
		got.Store(0)
		res := s.Post(t, "POST", "/mcp", http.Header{"Content-Type": {"application/json"}}, bodytest.Body{}, chunked)
		if res.Status != http.StatusRequestEntityTooLarge || res.Read > maxBody+bodytest.Slack || got.Load() > maxBody {
			t.Errorf("a body of %d MiB (chunked %v): %v; the backend got %d bytes; want 413, at most %d bytes read", bodytest.Huge>>20, chunked, res, got.Load(), maxBody)
		}
	}

	// The time.
	proxytest.CheckBodyTimeout(t, proxyServer(t, up.URL, &errLog, limits{maxBody: maxBody, bodyTimeout: bound}), bound)
	if t.Failed() {
		t.Logf("proxy log: %s", errLog.String())
	}
}

// TestProxyLetsGoOfAClientThatNeverReads: the answers had no time bound,
// so that a client that sent a request and never read its answer held
// the proxy's handler, and the backend's answer with it, for as long as
// it kept its connection open. Each write of an answer now has
// -write-timeout: past it the proxy closes the client's connection and
// the backend's answer, and says so in its log.
func TestProxyLetsGoOfAClientThatNeverReads(t *testing.T) {
	const bound = 300 * time.Millisecond
	up, ended := proxytest.EndlessBackend(t, 10*time.Second)
	var errLog proxytest.LogBuffer
	proxytest.CheckStalledReader(t, proxyServer(t, up.URL, &errLog, limits{writeTimeout: bound}), ended, 15*time.Second)
	if !errLog.WaitFor("did not take its answer within 300ms", 5*time.Second) {
		t.Errorf("the proxy's log says nothing of the client it let go of:\n%s", errLog.String())
	}
}
