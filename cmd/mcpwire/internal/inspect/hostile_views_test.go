package inspect

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// hostileHTML is what a hostile server puts in every text it sends.
const hostileHTML = `<img src=x onerror="window.pwned='onerror'"><script>window.pwned='script'</script><b>bold</b>`

// envHostileCounter names the file where hostileViewsServer counts its
// starts.
const envHostileCounter = "MCPWIRE_INSPECT_HOSTILE_COUNTER"

// hostileViewsServer is a server that puts HTML in its name, version,
// instructions, tools and results, and in its stderr, and changes them
// at every start: what the new views (the doctor, the changes of a
// reconnection, a failing check) quote of it.
func hostileViewsServer() {
	f := os.Getenv(envHostileCounter)
	b, _ := os.ReadFile(f)
	n, _ := strconv.Atoi(string(b))
	n++
	os.WriteFile(f, []byte(strconv.Itoa(n)), 0o600)
	v := fmt.Sprint(n)
	fmt.Fprintln(os.Stderr, hostileHTML)
	srv := server.New(mcp.Implementation{Name: "hostile", Title: hostileHTML, Version: hostileHTML + v}, &server.Options{Instructions: hostileHTML + v})
	server.AddTool(srv, &mcp.Tool{Name: "t" + v, Title: hostileHTML, Description: hostileHTML}, func(context.Context, *server.Request, struct{}) (string, error) { return hostileHTML, nil })
	server.AddTool(srv, &mcp.Tool{Name: "same", Description: hostileHTML + v}, func(context.Context, *server.Request, struct{}) (string, error) { return hostileHTML + v, nil })
	srv.Run(context.Background(), stdio.New(nil))
	os.Exit(0)
}

// safeLinks are the links and sources the page may have.
const safeLinks = `[...document.querySelectorAll("a[href], [src]")].map(e => e.tagName + " " + (e.tagName === "A" ? e.getAttribute("href") : e.getAttribute("src")))
	.filter(u => !/^(A (#|\/export\?|\/checks\?|https?:\/\/|data:application\/octet-stream;base64,)|(IMG|AUDIO|VIDEO) data:(image|audio|video)\/[\w.+-]+;base64,[A-Za-z0-9+\/=]*$)/.test(u))`

// noneRan fails the test if the server's HTML ran or made a link.
func noneRan(t *testing.T, p *page) {
	t.Helper()
	var bad []string
	p.js(safeLinks, &bad)
	if len(bad) != 0 {
		t.Errorf("links or sources of the page that are not safe: %q", bad)
	}
	var pwned any
	p.js(`window.pwned === undefined ? null : window.pwned`, &pwned)
	if pwned != nil {
		t.Errorf("the server's content ran in the page: window.pwned = %v", pwned)
	}
	if n := p.str(`String(document.querySelectorAll("#detail b, #wire b, #detail img[src=x], #wire img[src=x]").length)`); n != "0" {
		t.Errorf("%s elements of the server's HTML are in the page", n)
	}
}

// TestHostileViews: what the new views quote of a hostile server (the
// doctor's checklist, what changed at a reconnection, why a check
// failed, the Network view's headers and SSE events) is shown as text,
// never as HTML.
func TestHostileViews(t *testing.T) {
	t.Setenv(envTestServer, "hostile")
	t.Setenv(envHostileCounter, filepath.Join(t.TempDir(), "starts"))
	in := inspect(t, nil, "--checks", filepath.Join(t.TempDir(), "checks.json"), "--", os.Args[0])
	p := openPage(t, in)

	// A check, saved, then failing after the reconnection: why quotes
	// the new result.
	p.open("tools", "tool:same")
	if st, text := p.call(); st != "ok" || !strings.Contains(text, hostileHTML+"1") {
		t.Fatalf("same: %s %s", st, text)
	}
	p.click(`#detail .history .result .body button.small`)
	p.js(`document.querySelector('#detail [name="check-name"]').value = `+q(hostileHTML)+`; true`, nil)
	p.click(`#detail [name="save-check"]`)
	p.wait(`document.querySelector("#detail .save-check").innerText.includes("Saved.")`)

	p.click("#reconnect")
	p.wait(`document.querySelector("#changes") && S.server.info.version.endsWith("2")`)
	changes := p.str(`document.querySelector("#changes").innerText`)
	for _, want := range []string{"t1", "t2", hostileHTML + "1", hostileHTML + "2"} {
		contains(t, "the changes", changes, want)
	}
	noneRan(t, p)

	p.click(`#kinds [data-kind="checks"]`)
	p.js(`[...document.querySelectorAll("#list li")].find(li => li.dataset.key === `+q("check:"+hostileHTML)+`).click(); true`, nil)
	p.click("#run-checks")
	p.wait(`document.querySelector("#detail").innerText.includes("✗")`)
	contains(t, "why the check failed", p.str(`document.querySelector("#detail").innerText`), hostileHTML)
	noneRan(t, p)

	p.click("#doctor")
	p.wait(`document.querySelector("#doctor-steps")`)
	contains(t, "the doctor", p.str(`document.querySelector("#doctor-steps").innerText`), hostileHTML)
	noneRan(t, p)

	// The Network view: an HTTP server whose headers and events carry
	// HTML.
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{Wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Hostile", hostileHTML)
			h.ServeHTTP(w, r)
		})
	}})
	in = inspect(t, nil, "--protocol", "2025-11-25", "--url", s.URL)
	p = openPage(t, in)
	p.open("tools", "tool:echo")
	p.typeIn(`#detail [name="text"]`, hostileHTML)
	p.call()
	p.click(`#wire-tabs [data-pane="network"]`)
	p.wait(`document.querySelectorAll("#network .frame.net").length >= 2`)
	p.js(`[...document.querySelectorAll("#network .frame.net")].filter(r => r.innerText.includes("POST")).pop().click(); document.querySelectorAll("#network .frame-detail details").forEach(d => d.open = true); true`, nil)
	contains(t, "the exchange", p.str(`document.querySelector("#network .frame-detail").innerText`), "X-Hostile: "+hostileHTML)
	noneRan(t, p)
}
