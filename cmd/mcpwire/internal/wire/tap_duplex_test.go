package wire

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHTTPTapStreamsEndWhole: SSE answers to concurrent POSTs pass the
// tap whole. Without full duplex, net/http closed a request body that the
// upstream transport had still to read to its end when the server
// answered at once; the transport then closed the upstream connection in
// the middle of the response (the same cut as conformance/proxy's).
func TestHTTPTapStreamsEndWhole(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	defer up.Close()
	u, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	var rec records
	tap := httptest.NewServer(&HTTPTap{Upstream: u, Record: rec.add})
	defer tap.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: time.Minute}
	const rounds = 300
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
				resp, err := c.Post(tap.URL+"/mcp", "application/json", strings.NewReader(body))
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
	if len(fails) > 0 {
		t.Errorf("%d of %d streams cut:\n%s", len(fails), 3*rounds, strings.Join(fails[:min(len(fails), 10)], "\n"))
	}
}
