package wire

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
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
// clients use at once (up to DefaultMaxIdleUpstream).
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
	if n := dialed.Load(); n > clients {
		t.Errorf("%d clients, each on one connection, made the tap dial %d connections to the upstream for %d calls; want at most %d", clients, n, clients*calls, clients)
	}
}
