package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a bytes.Buffer safe for the proxy's concurrent ErrorLog.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// sseBackend answers a POST as a Streamable HTTP server answers a
// request: it reads the whole body, sends a priming event at once, then
// the response a moment later, and ends the stream.
func sseBackend(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "id: 1\ndata:\n\n")
		http.NewResponseController(w).Flush()
		time.Sleep(2 * time.Millisecond) // the request being served
		fmt.Fprintf(w, "id: 2\ndata: %s\n\n", body)
	}))
	t.Cleanup(s.Close)
	return s
}

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
		u, err := url.Parse(sseBackend(t).URL)
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, u)
	}
	var errLog syncBuffer
	front := httptest.NewServer(newProxy(backends, log.New(&errLog, "proxy: ", 0)))
	defer front.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: time.Minute}

	const rounds = 500
	var (
		mu    sync.Mutex
		fails []string
	)
	for round := range rounds {
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				id := 1000*round + i
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{}}`, id)
				resp, err := c.Post(front.URL+"/mcp", "application/json", strings.NewReader(body))
				if err != nil {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("request %d: %v", id, err))
					mu.Unlock()
					return
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				want := "id: 1\ndata:\n\nid: 2\ndata: " + body + "\n\n"
				if err != nil || string(got) != want {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("request %d: read %q, %v", id, got, err))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	if len(fails) > 0 {
		t.Errorf("%d of %d streams cut:\n%s\nproxy log:\n%s", len(fails), 3*rounds, strings.Join(fails, "\n"), errLog.String())
	}
}
