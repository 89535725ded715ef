package main

import (
	"log"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/internal/proxytest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestResponseStreamsEndCleanlyUnderConcurrentPosts sends rounds of three
// concurrent POSTs (as the conformance scenario
// server-sse-multiple-streams does) through the proxy to three backends
// and checks that every SSE response arrives whole. It failed when the
// server closed a request body that the proxy's transport still read
// (after a backend's early answer): the transport then closed the backend
// connection in the middle of the response, and the client saw its
// stream cut ("terminated" in Node, unexpected EOF in Go).
func TestResponseStreamsEndCleanlyUnderConcurrentPosts(t *testing.T) {
	var backends []*url.URL
	for range 3 {
		u, err := url.Parse(proxytest.SSEBackend(t).URL)
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, u)
	}
	var errLog proxytest.LogBuffer
	front := httptest.NewServer(newProxy(backends, log.New(&errLog, "proxy: ", 0), limits{}))
	defer front.Close()
	const rounds = 500
	fails := proxytest.StreamsCut(t, front.URL+"/mcp", rounds)
	if len(fails) > 0 {
		t.Errorf("%d of %d streams cut:\n%s\nproxy log:\n%s", len(fails), 3*rounds, strings.Join(fails, "\n"), errLog.String())
	}
}

// TestProxySmugglesNoRequest: a request that a backend refuses at once,
// whose body is more than 256 KiB of complete HTTP requests, is one
// request: the proxy neither reads the rest of its body as requests nor
// forwards them.
func TestProxySmugglesNoRequest(t *testing.T) {
	up, hidden := proxytest.RefusingBackend(t)
	u, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	var errLog proxytest.LogBuffer
	front := httptest.NewServer(newProxy([]*url.URL{u}, log.New(&errLog, "proxy: ", 0), limits{}))
	defer front.Close()
	fails := proxytest.Smuggle(t, strings.TrimPrefix(front.URL, "http://"), 2)
	if len(fails) > 0 || hidden.Load() != 0 {
		t.Errorf("%d hidden requests reached the backend; %d connections failed:\n%s\nproxy log:\n%s", hidden.Load(), len(fails), strings.Join(fails, "\n"), errLog.String())
	}
}
