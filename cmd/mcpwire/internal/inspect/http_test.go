package inspect

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestHTTPServer inspects a server over Streamable HTTP (--url), in both
// eras: the transport and the session are shown, content of every kind
// is rendered, a resource link opens the resource, and a call that runs
// too long is cancelled from the page.
func TestHTTPServer(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{})
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			in := inspect(t, nil, "--protocol", protocol, "--url", s.URL)
			p := openPage(t, in)
			if got := p.str(`document.querySelector("#server-transport").textContent`); got != "Streamable HTTP" {
				t.Errorf("transport %q", got)
			}
			p.open("tools", "tool:media")
			status, text := p.call()
			if status != "ok" {
				t.Fatalf("media: %s %s", status, text)
			}
			contains(t, "media", text, "Hello from the test server.")
			p.wait(`document.querySelectorAll("#detail .result img").length === 2 && document.querySelector("#detail .result audio")`)
			p.click(`#detail .result .block.link a`)
			p.wait(`document.querySelector("#detail .head .mono") && document.querySelector("#detail .head .mono").textContent.includes("test://logo")`)
			p.wait(`(() => { const i = document.querySelector("#detail .result img"); return i && i.complete && i.naturalWidth > 0; })()`)

			p.open("tools", "tool:slow")
			n := p.results()
			p.click("#call")
			p.wait(`document.querySelector("#detail .result button")`)
			p.click(`#detail .result button`) // Cancel
			p.wait(`document.querySelectorAll("#detail .history .result").length > ` + itoa(n))
			status, text = p.result()
			if status != "bad" || !strings.Contains(text, "cancelled") {
				t.Errorf("a cancelled call shows %s %q", status, text)
			}
			if protocol == "2025-11-25" {
				p.js(`[...document.querySelectorAll("#frames .frame.server.response")].pop().click()`, nil)
				contains(t, "a frame of the session", p.str(`document.querySelector("#frames .frame-detail").innerText`), "session ")
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestNeedsLogin checks that a server that requires OAuth, for which no
// token is stored, makes inspect fail as the other verbs do: exit 4, and
// the mcpwire login command line that helps.
func TestNeedsLogin(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{OAuth: true})
	var stdout, stderr bytes.Buffer
	a := app.New(strings.NewReader(""), &stdout, &stderr)
	store := t.TempDir() + "/tokens.json"
	a.Getenv = func(k string) string {
		if k == app.EnvTokens {
			return store
		}
		return ""
	}
	code := a.Execute(context.Background(), a.NewRoot(Family()), []string{"inspect", "--no-browser", "--url", s.URL})
	if code != app.ExitConnect || !strings.Contains(stderr.String(), "mcpwire login --url "+s.URL) || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
