// Package proxytest checks what a reverse proxy in front of an MCP server
// must get right: test support for conformance/proxy and mcpwire tap,
// imported by tests only. StreamsCut checks that Streamable HTTP answers
// pass whole; Smuggle, that a body the upstream did not read is never
// read as requests of its own; CheckBodyTimeout and CheckStalledReader,
// that a client slow to send its body, or that never reads its answer,
// is let go of.
//
// The case StreamsCut reproduces: a server that answers a POST as soon as it has
// read the body, with an SSE stream whose first event goes out at once and
// the rest a moment later. Behind net/http, an httputil.ReverseProxy that
// is not served full duplex cuts such a stream now and then (the server
// closes the request body when the response headers are written, the
// proxy's transport fails its last read of it and closes the upstream
// connection mid-response).
package proxytest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// SSEBackend starts a server that answers each POST as a Streamable HTTP
// server answers a request: it reads the whole body, sends a priming
// event at once, then, a moment later, an event carrying the body, and
// ends the stream. It is closed when the test ends.
func SSEBackend(t testing.TB) *httptest.Server {
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
		time.Sleep(2 * time.Millisecond) // the request being served; no verdict depends on its length
		fmt.Fprintf(w, "id: 2\ndata: %s\n\n", body)
	}))
	t.Cleanup(s.Close)
	return s
}

// StreamsCut sends rounds of three concurrent POSTs to url (as the
// conformance scenario server-sse-multiple-streams does), where each must
// reach an SSEBackend, and returns what went wrong with each answer that
// did not arrive whole: nothing when every stream ended cleanly.
func StreamsCut(t testing.TB, url string, rounds int) []string {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: time.Minute}
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
				resp, err := c.Post(url, "application/json", strings.NewReader(body))
				if err != nil {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("request %d: %v", id, err))
					mu.Unlock()
					return
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if want := "id: 1\ndata:\n\nid: 2\ndata: " + body + "\n\n"; err != nil || string(got) != want {
					mu.Lock()
					fails = append(fails, fmt.Sprintf("request %d: read %q, %v", id, got, err))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	return fails
}
