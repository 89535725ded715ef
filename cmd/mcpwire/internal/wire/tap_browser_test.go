package wire

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpwire/mcpwire/internal/proxytest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// browser starts Debian's chromium, headless, for one test, and returns a
// tab; it is stopped when the test ends. Without chromium the test is
// skipped, unless the peers are required (CI).
func browser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatal("no chromium on PATH (apt-get install chromium)")
		}
		t.Skip("no chromium on PATH")
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// hiddenCall is a complete 2026-07-28 request that calls the tool probe.
var hiddenCall = struct {
	hdr  []string
	body string
}{
	[]string{"Content-Type: application/json", "Accept: application/json, text/event-stream", "Mcp-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "Mcp-Name: probe"},
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"probe","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
}

// TestHTTPTapRunsNoToolForAForeignPage: a page of another loopback origin
// POSTs, with no-cors fetch, text/plain bodies made of complete requests
// that call a tool. The upstream refuses each POST at once (415: not
// JSON); none of the requests in the bodies may reach it. The tap read
// the rest of such a body as requests and forwarded them.
func TestHTTPTapRunsNoToolForAForeignPage(t *testing.T) {
	ctx := browser(t)
	var calls atomic.Int32
	srv := server.New(mcp.Implementation{Name: "probe", Version: "1"}, nil)
	server.AddTool(srv, &mcp.Tool{Name: "probe"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		return fmt.Sprintf("call %d", calls.Add(1)), nil
	})
	h := streamable.NewHandler(srv, nil)
	up := httptest.NewServer(h)
	defer func() { up.Close(); h.Close(); srv.Close() }()
	u, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}

	// A check that the hidden request is one the upstream answers.
	if res := rawCall(t, up.URL); res != http.StatusOK || calls.Load() != 1 {
		t.Fatalf("the hidden request, sent alone: %d, %d calls", res, calls.Load())
	}
	calls.Store(0)

	tap := httptest.NewServer(&HTTPTap{Upstream: u})
	tapClosed := false
	defer func() {
		if !tapClosed {
			tap.Close()
		}
	}()
	const page = `<!doctype html><title>another origin</title><script>
window.results = [];
(async () => {
  for (const offset of [0, 0, 0, 0]) {
    const body = await (await fetch("/body?offset=" + offset)).text();
    try {
      const r = await fetch("TAP/mcp", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body});
      results.push(r.type);
    } catch (e) {
      results.push("failed: " + e.name);
    }
  }
  window.done = true;
})();
</script>`
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
			w.Header().Set("Content-Type", "text/plain")
			w.Write(proxytest.HiddenRequests(proxytest.SmuggleSize, offset, "/mcp", hiddenCall.hdr, hiddenCall.body))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, strings.ReplaceAll(page, "TAP", tap.URL))
	}))
	defer foreign.Close()

	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(tctx,
		chromedp.Navigate(foreign.URL+"/"),
		chromedp.Poll[chromedp.Void](`window.done === true`, chromedp.WithPollingTimeout(time.Minute)),
	); err != nil {
		t.Fatal(err)
	}
	results, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`window.results`))
	if err != nil {
		t.Fatal(err)
	}
	// Whatever the tap still does with the page's connections ends
	// before the calls are counted.
	tap.CloseClientConnections()
	tap.Close()
	tapClosed = true
	if n := calls.Load(); n != 0 {
		t.Errorf("a page of another origin ran the tool %d times through the tap (fetch results %v)", n, results)
	}
	t.Logf("fetch results: %v", results)
}

// rawCall sends hiddenCall alone to url and returns the status.
func rawCall(t *testing.T, url string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(hiddenCall.body))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hiddenCall.hdr {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
