package wire

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestHTTPTapKeepsUpstreamConnections: the tap sent its upstream
// requests through http.DefaultTransport, which keeps two idle
// connections per host (and 100 in all), so that under more clients
// than that every answer closed a connection to the upstream and the
// next request dialed a new one: 200 sessions in a closed loop went
// through the tap at a quarter of the upstream's own rate, and the
// connections being torn down and dialed took the tap's peak RSS to
// 67 MB. The tap now keeps as many idle upstream connections as its
// clients use at once (up to DefaultMaxIdleUpstream). (The bound leaves
// room for one more per client, which a run under the race detector was
// once seen to need.)
func TestHTTPTapKeepsUpstreamConnections(t *testing.T) {
	var dialed atomic.Int64
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialed.Add(1)
		}
	}
	up.Start()
	defer up.Close()
	u, _ := url.Parse(up.URL)
	addr := tapServer(t, &HTTPTap{Upstream: u})

	const clients, calls = 24, 20
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{MaxIdleConnsPerHost: 1}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr}
			for range calls {
				resp, err := c.Post("http://"+addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := dialed.Load(); n > 2*clients {
		t.Errorf("%d clients, each on one connection, made the tap dial %d connections to the upstream for %d calls; want at most %d", clients, n, clients*calls, 2*clients)
	}
}

// TestHTTPTapPoolsItsCopyBuffers: httputil.ReverseProxy made a buffer of
// 32 KiB for every answer it copied, so that each request through the
// tap cost 32 KiB of garbage, and each one in flight 32 KiB of heap
// (11 MB of the tap's live heap under 200 sessions). The tap now copies
// through pooled buffers of 8 KiB.
func TestHTTPTapPoolsItsCopyBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates, and drops pooled buffers at random")
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	addr := tapServer(t, &HTTPTap{Upstream: u})
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	call := func() {
		resp, err := c.Post("http://"+addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	for range 50 {
		call() // connections and pools warm
	}
	const calls = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		call()
	}
	runtime.ReadMemStats(&after)
	// The client, the tap and the upstream together: about 17 KiB per
	// call with pooled buffers, about 50 KiB with one of 32 KiB each.
	per := (after.TotalAlloc - before.TotalAlloc) / calls
	t.Logf("%d bytes allocated per call through the tap", per)
	if per > 24<<10 {
		t.Errorf("a call through the tap allocated %d bytes (client, tap and upstream in one process), want at most %d", per, 24<<10)
	}
}
