package inspect

import (
	"os"
	"testing"
)

// TestServerEnds: a server process that dies is reported in the page (its
// exit status and last stderr line), its stderr is in Messages, the page
// stays to look at what happened, and calls are refused.
func TestServerEnds(t *testing.T) {
	t.Setenv(envTestServer, "1")
	in := inspect(t, nil, "--", os.Args[0], "-chatty")
	p := openPage(t, in)
	p.click(`#wire-tabs [data-pane="messages"]`)
	p.wait(`document.querySelector("#messages").innerText.includes("testserver: ready on stdio")`)
	p.open("tools", "tool:crash")
	p.click("#call")
	p.wait(`!document.querySelector("#ended").hidden`)
	contains(t, "the banner", p.str(`document.querySelector("#ended").textContent`), "the server exited with status 7: testserver: crashing on purpose")
	if got := p.str(`document.querySelector("#status").className`); got != "dot ended" {
		t.Errorf("the status dot: %q", got)
	}
	p.wait(`document.querySelector("#messages").innerText.includes("testserver: crashing on purpose")`)
	if status, text := p.result(); status != "bad" {
		t.Errorf("the call that crashed the server: %s %q", status, text)
	}
	p.open("tools", "tool:echo")
	_, text := p.call()
	contains(t, "a call after the end", text, "the session with the server has ended")
	contains(t, "inspect's stderr", in.stderr.String(), "the page stays until you interrupt mcpwire")
}
