package inspect

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// probeServer is a server whose one tool, probe, counts its calls: a
// request that must be refused must not reach it.
func probeServer(t *testing.T) (*server.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := server.New(mcp.Implementation{Name: "probe-server", Version: "1.0.0"}, nil)
	if err := server.AddTool(srv, &mcp.Tool{Name: "probe", Description: "Counts its calls"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		return fmt.Sprintf("call %d", calls.Add(1)), nil
	}); err != nil {
		t.Fatal(err)
	}
	return srv, &calls
}

// inspectServer runs mcpwire inspect on srv, in process.
func inspectServer(t *testing.T, srv *server.Server, args ...string) *inspection {
	t.Helper()
	return inspect(t, func(a *app.App) { a.Connect = clitest.MemoryTarget(t, srv) }, append(args, "--", "testserver")...)
}

// send makes one request to the inspector, with the headers h (Host sets
// the Host), and returns the status and body.
func send(t *testing.T, method, url, body string, h map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := quick.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, string(b)
}

// quick is the client of send: an answer that streams (an event stream
// served where it should be refused) ends in time, and the test fails.
var quick = &http.Client{Timeout: 10 * time.Second}

func init() {
	quick.Transport = &http.Transport{} // its own connections, closed by the tests that use it

}

// TestRequestsRefused checks every request the inspector must refuse:
// without the access token or with a wrong one, with a foreign Host (DNS
// rebinding), Origin or Sec-Fetch-Site (another site's page), a POST
// without Origin or not JSON; and that none of them reached the server.
func TestRequestsRefused(t *testing.T) {
	srv, calls := probeServer(t)
	in := inspectServer(t, srv)
	host := strings.TrimPrefix(in.Base, "http://")
	_, port, _ := net.SplitHostPort(host)
	tok := "?token=" + in.Token
	origin := map[string]string{"Origin": in.Base, "Content-Type": "application/json"}
	call := `{"id":"x","name":"probe"}`
	with := func(base map[string]string, k, v string) map[string]string {
		h := map[string]string{k: v}
		for bk, bv := range base {
			if bk != k {
				h[bk] = bv
			}
		}
		return h
	}
	for _, c := range []struct {
		name, method, path, body string
		h                        map[string]string
		want                     int
	}{
		{"page without token", "GET", "/", "", nil, http.StatusUnauthorized},
		{"page with a wrong token", "GET", "/?token=" + strings.ToLower(in.Token), "", nil, http.StatusUnauthorized},
		{"page with the token elsewhere", "GET", "/?t=" + in.Token, "", nil, http.StatusUnauthorized},
		{"events without token", "GET", "/events", "", nil, http.StatusUnauthorized},
		{"export without token", "GET", "/export", "", nil, http.StatusUnauthorized},
		{"call without token", "POST", "/api/call", call, origin, http.StatusUnauthorized},
		{"answer without token", "POST", "/api/answer", `{"id":"x","answer":{}}`, origin, http.StatusUnauthorized},
		{"page for a rebound name", "GET", "/" + tok, "", map[string]string{"Host": "attacker.example:" + port}, http.StatusForbidden},
		{"page for a name that resolves to 127.0.0.1", "GET", "/" + tok, "", map[string]string{"Host": "127.0.0.1.nip.io:" + port}, http.StatusForbidden},
		{"page for another port", "GET", "/" + tok, "", map[string]string{"Host": "127.0.0.1:1"}, http.StatusForbidden},
		{"call for a rebound name", "POST", "/api/call" + tok, call, with(origin, "Host", "attacker.example:"+port), http.StatusForbidden},
		{"page from another site", "GET", "/" + tok, "", map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
		{"events from another site", "GET", "/events" + tok, "", map[string]string{"Origin": "http://attacker.example"}, http.StatusForbidden},
		{"export from another site", "GET", "/export" + tok, "", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"call from another site", "POST", "/api/call" + tok, call, with(origin, "Origin", "http://attacker.example"), http.StatusForbidden},
		{"call from another port", "POST", "/api/call" + tok, call, with(origin, "Origin", "http://127.0.0.1:1"), http.StatusForbidden},
		{"call from localhost's origin to 127.0.0.1", "POST", "/api/call" + tok, call, with(origin, "Origin", "http://localhost:"+port), http.StatusForbidden},
		{"call from a null origin", "POST", "/api/call" + tok, call, with(origin, "Origin", "null"), http.StatusForbidden},
		{"call from the same site, another origin", "POST", "/api/call" + tok, call, with(origin, "Sec-Fetch-Site", "same-site"), http.StatusForbidden},
		{"call without Origin", "POST", "/api/call" + tok, call, map[string]string{"Content-Type": "application/json"}, http.StatusForbidden},
		{"call as a form", "POST", "/api/call" + tok, call, with(origin, "Content-Type", "text/plain"), http.StatusUnsupportedMediaType},
		{"call as a URL-encoded form", "POST", "/api/call" + tok, "id=x&name=probe", with(origin, "Content-Type", "application/x-www-form-urlencoded"), http.StatusUnsupportedMediaType},
		{"call by GET", "GET", "/api/call" + tok, "", nil, http.StatusMethodNotAllowed},
		{"an unknown path", "GET", "/api/secrets" + tok, "", nil, http.StatusNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, body := send(t, c.method, in.Base+c.path, c.body, c.h)
			if status != c.want {
				t.Errorf("%s %s: status %d, want %d; body %.200q", c.method, c.path, status, c.want, body)
			}
			if strings.Contains(body, in.Token) {
				t.Errorf("the refusal gives the token away: %q", body)
			}
		})
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the tool was called %d times by refused requests", n)
	}

	// The same requests, done right, are served.
	status, body := send(t, "POST", in.Base+"/api/call"+tok, call, origin)
	if status != http.StatusOK || !strings.Contains(body, "call 1") {
		t.Errorf("a call from the page: %d %s", status, body)
	}
	for _, h := range []string{host, "localhost:" + port} {
		req, _ := http.NewRequest("GET", in.Base+"/"+tok, nil)
		req.Host = h
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		csp := res.Header.Get("Content-Security-Policy")
		if res.StatusCode != http.StatusOK || !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("the page for Host %s: %d, CSP %q", h, res.StatusCode, csp)
		}
		if res.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("the page's Referrer-Policy: %q", res.Header.Get("Referrer-Policy"))
		}
	}
}

// TestListenLoopbackOnly checks that --listen takes loopback addresses
// only.
func TestListenLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "[::]:0", "example.com:80", "127.0.0.1"} {
		var stderr bytes.Buffer
		a := app.New(strings.NewReader(""), io.Discard, &stderr)
		a.Connect = func(context.Context, *app.Target, *slog.Logger) (*app.Link, error) {
			t.Errorf("--listen %s: the server was connected", addr)
			return nil, app.ConnectErrorf("no")
		}
		code := a.Execute(context.Background(), a.NewRoot(Family()), []string{"inspect", "--no-browser", "--listen", addr, "--", "testserver"})
		if code != app.ExitUsage || !strings.Contains(stderr.String(), "--listen") {
			t.Errorf("--listen %s: exit %d, stderr %q", addr, code, stderr.String())
		}
	}
}

// TestLimits checks the bounds of the page's requests: a body larger
// than MaxBody, more event streams than MaxStreams.
func TestLimits(t *testing.T) {
	in := New("test", &Options{MaxBody: 1024, MaxStreams: 2})
	defer in.Close()
	ln, err := listen("")
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHandler(in, ln.Addr().String(), "secret")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	origin := map[string]string{"Origin": srv.URL, "Content-Type": "application/json"}
	big := `{"id":"x","name":"probe","arguments":{"s":"` + strings.Repeat("x", 2000) + `"}}`
	if status, body := send(t, "POST", srv.URL+"/api/call?token=secret", big, origin); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body of %d bytes: %d %s", len(big), status, body)
	}
	if status, body := send(t, "POST", srv.URL+"/api/call?token=secret", `{"id":"x","name":"probe","unknown":1}`, origin); status != http.StatusBadRequest {
		t.Errorf("an unknown member: %d %s", status, body)
	}
	if status, body := send(t, "POST", srv.URL+"/api/call?token=secret", `{"id":"x","name":"probe"}`, origin); status != http.StatusServiceUnavailable {
		t.Errorf("a call without a session: %d %s", status, body)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var open []*http.Response
	for i := range 3 {
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events?token=secret", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, res)
		want := http.StatusOK
		if i == 2 {
			want = http.StatusTooManyRequests
		}
		if res.StatusCode != want {
			t.Errorf("event stream %d: status %d, want %d", i+1, res.StatusCode, want)
		}
	}
	cancel()
	for _, res := range open {
		res.Body.Close()
	}
}

// TestForeignPagesAreRefused loads pages of other origins in the browser
// (another port of 127.0.0.1, localhost, and a name that resolves to
// 127.0.0.1, as DNS rebinding makes it) that try to use the inspector
// with its token: to call a tool, read the frames, open the event stream,
// post a form. None reaches the server; the inspector's own page, loaded
// without its token, is refused too.
func TestForeignPagesAreRefused(t *testing.T) {
	srv, calls := probeServer(t)
	in := inspectServer(t, srv)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(in.Base, "http://"))
	attack := `<!doctype html><title>attacker</title><form id=f method=post enctype=text/plain target=sink action="INSPECTOR/api/call?token=TOKEN">
<input name='{"id":"f","name":"probe","x":"' value='"}'></form><iframe name=sink></iframe><script>
const base = "INSPECTOR", tok = "TOKEN";
window.results = {};
async function attempt(name, f) { try { results[name] = await f(); } catch (e) { results[name] = "refused: " + e.name; } }
(async () => {
  await attempt("cors", async () => (await fetch(base + "/api/call?token=" + tok, {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"id":"a","name":"probe"}'})).status);
  await attempt("nocors", async () => (await fetch(base + "/api/call?token=" + tok, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: '{"id":"b","name":"probe"}'})).type);
  await attempt("read", async () => (await fetch(base + "/export?token=" + tok)).text());
  await attempt("events", () => new Promise(done => { const es = new EventSource(base + "/events?token=" + tok); es.onopen = () => { es.close(); done("open"); }; es.onerror = () => { es.close(); done("refused"); }; }));
  document.getElementById("f").submit();
  results.done = true;
})();
</script>`
	var served atomic.Int32
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, strings.NewReplacer("INSPECTOR", r.URL.Query().Get("target"), "TOKEN", in.Token).Replace(attack))
	}))
	defer foreign.Close()
	_, fport, _ := net.SplitHostPort(strings.TrimPrefix(foreign.URL, "http://"))

	for _, c := range []struct{ name, page, target string }{
		{"another port", "http://127.0.0.1:" + fport, in.Base},
		{"localhost", "http://localhost:" + fport, in.Base},
		{"a rebound name", "http://rebind.test:" + fport, "http://rebind.test:" + port},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &page{t: t, ctx: browserTab(t), in: in}
			p.do(chromedp.Navigate(c.page + "/?target=" + c.target))
			p.wait(`window.results && window.results.done`)
			var res map[string]any
			p.js(`window.results`, &res)
			if res["cors"] != "refused: TypeError" || res["read"] != "refused: TypeError" || res["events"] != "refused" {
				t.Errorf("the foreign page got through: %v", res)
			}
		})
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("foreign pages called the tool %d times", n)
	}
	if served.Load() < 3 {
		t.Errorf("the foreign pages were loaded %d times", served.Load())
	}

	// The inspector's own page at a rebound name, and without its token.
	p := &page{t: t, ctx: browserTab(t), in: in}
	p.do(chromedp.Navigate("http://rebind.test:" + port + "/?token=" + in.Token))
	contains(t, "the page at a rebound name", p.str(`document.body.innerText`), "answers to the Host 127.0.0.1 or localhost")
	p.do(chromedp.Navigate(in.Base + "/"))
	contains(t, "the page without its token", p.str(`document.body.innerText`), "the access token is missing or wrong")
	if n := calls.Load(); n != 0 {
		t.Errorf("the tool was called %d times", n)
	}
}
