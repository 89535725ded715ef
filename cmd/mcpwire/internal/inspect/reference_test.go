package inspect

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestReferenceServer inspects the official TypeScript reference server
// (@modelcontextprotocol/server-everything, installed by
// scripts/install-peers.sh), as in
//
//	mcpwire inspect --no-browser -- node server-everything stdio
//
// The page, loaded with no click, lists the server's tools; then a
// person calls one with the form, watches a long operation's progress,
// and answers the server's elicitation and sampling requests.
func TestReferenceServer(t *testing.T) {
	node, everything := os.Getenv("NODE22"), os.Getenv("SERVER_EVERYTHING")
	if node == "" || everything == "" {
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatal("NODE22 and SERVER_EVERYTHING are not set: run eval \"$(scripts/install-peers.sh)\"")
		}
		t.Skip("NODE22 and SERVER_EVERYTHING are not set; run eval \"$(scripts/install-peers.sh)\" to test against the reference server")
	}
	in := inspect(t, nil, "--", node, everything, "stdio")
	p := openPage(t, in)

	// No click: the tools are listed.
	for _, tool := range []string{"echo", "get-sum", "trigger-long-running-operation", "trigger-elicitation-request"} {
		p.wait(`document.querySelector('#list li[data-key="tool:` + tool + `"]')`)
	}
	if got := p.str(`document.querySelector("#server-name").textContent`); got != "Everything Reference Server" { // its title
		t.Errorf("server name %q", got)
	}
	var shown float64
	p.js(`performance.getEntriesByName("mcpwire:shown")[0].startTime`, &shown)
	res, err := http.Get(in.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	t.Logf("the page: %d bytes (one document, the state inline); the tools shown %.0f ms after the navigation started", len(body), shown)

	t.Run("echo", func(t *testing.T) {
		p := p.with(t)
		p.open("tools", "tool:echo")
		p.typeIn(`#detail [name="message"]`, "hello from the page")
		status, text := p.call()
		if status != "ok" {
			t.Fatalf("echo: %s %s", status, text)
		}
		contains(t, "echo", text, "Echo: hello from the page")
	})

	t.Run("progress", func(t *testing.T) {
		p := p.with(t)
		p.open("tools", "tool:trigger-long-running-operation")
		p.js(`(() => { const d = document.querySelector('#detail [name="duration"]'); d.value = "1"; const s = document.querySelector('#detail [name="steps"]'); s.value = "4"; return true; })()`, nil)
		p.js(`window.seen = []; new MutationObserver(ms => { for (const m of ms) if (m.target.dataset && m.target.dataset.progress) window.seen.push(m.target.dataset.progress + "/" + m.target.max); })
			.observe(document.querySelector("#detail"), {subtree: true, attributes: true, attributeFilter: ["data-progress"]}); true`, nil)
		n := p.results()
		p.click("#call")
		p.wait(`document.querySelector("#detail .result progress")`)
		p.screenshot("inspect-progress.png")
		p.wait(fmt.Sprintf(`document.querySelectorAll("#detail .history .result").length > %d`, n))
		status, text := p.result()
		if status != "ok" {
			t.Fatalf("long running operation: %s %s", status, text)
		}
		var seen []string
		p.js(`window.seen`, &seen)
		if strings.Join(seen, " ") != "1/4 2/4 3/4 4/4" {
			t.Errorf("the progress bar went through %v, want 1, 2, 3 and 4 of 4", seen)
		}
	})

	t.Run("elicitation", func(t *testing.T) {
		p := p.with(t)
		p.open("tools", "tool:trigger-elicitation-request")
		p.click("#call")
		p.wait(`document.querySelector('#questions:not([hidden]) .question[data-kind="elicit"]')`)
		p.typeIn(`#questions [name="name"]`, "Ada Lovelace")
		p.choose(`#questions [name="check"]`, "true")
		p.typeIn(`#questions [name="email"]`, "ada@example.com")
		p.screenshot("inspect-elicitation.png")
		p.click(`#questions button[name="accept"]`)
		status, text := p.result()
		if status != "ok" {
			t.Fatalf("elicitation: %s %s", status, text)
		}
		contains(t, "elicitation result", text, "Ada Lovelace")
		contains(t, "elicitation result", text, "It was a dark and stormy night.") // a default, sent as shown
		contains(t, "elicitation result", text, `"check": true`)
	})

	t.Run("sampling", func(t *testing.T) {
		p := p.with(t)
		p.open("tools", "tool:trigger-sampling-request")
		p.typeIn(`#detail [name="prompt"]`, "Say hello")
		p.click("#call")
		p.wait(`document.querySelector('#questions:not([hidden]) .question[data-kind="sample"]')`)
		contains(t, "the conversation", p.str(`document.querySelector("#questions .conversation").innerText`), "Say hello")
		p.typeIn(`#questions [name="reply"]`, "Hello!")
		p.click(`#questions button[name="send"]`)
		status, text := p.result()
		if status != "ok" {
			t.Fatalf("sampling: %s %s", status, text)
		}
		contains(t, "sampling result", text, "Hello!")
	})

	t.Run("structured", func(t *testing.T) {
		p := p.with(t)
		p.open("tools", "tool:get-structured-content")
		p.choose(`#detail select[name="location"]`, "Chicago")
		status, text := p.call()
		if status != "ok" {
			t.Fatalf("structured content: %s %s", status, text)
		}
		contains(t, "structured result", text, "structuredContent")
		contains(t, "structured result", text, "outputSchema")
		p.click(`#wire-tabs [data-pane="frames"]`)
		p.js(`[...document.querySelectorAll("#frames .frame.server.response")].pop().click()`, nil)
		p.screenshot("inspect-structured.png")
	})
}
