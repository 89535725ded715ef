package inspect

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
)

// TestEverythingServer uses the page, in a browser, on the project's
// everything-server over stdio, in both protocol eras: what a person
// does with an inspector, step by step.
func TestEverythingServer(t *testing.T) {
	bin := everythingServer(t)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH")) // the command reads as a person types it
	for _, c := range []struct{ protocol, era string }{{"2026-07-28", "stateless"}, {"2025-11-25", "stateful"}} {
		t.Run(c.protocol, func(t *testing.T) {
			in := inspect(t, nil, "--protocol", c.protocol, "--", "everything-server", "-stdio")
			p := openPage(t, in)

			t.Run("server", func(t *testing.T) {
				p := p.with(t)
				// Shown on load, from the state inline in the page.
				if got := p.str(`document.querySelector("#server-name").textContent`); got != "mcpwire everything server" {
					t.Errorf("server name %q", got)
				}
				for sel, want := range map[string]string{"#server-protocol": c.protocol, "#server-era": c.era, "#server-transport": "stdio"} {
					if got := p.str(`document.querySelector(` + q(sel) + `).textContent`); got != want {
						t.Errorf("%s: %q, want %q", sel, got, want)
					}
				}
				for _, tool := range []string{"test_simple_text", "test_elicitation", "json_schema_2020_12_tool"} {
					p.wait(`document.querySelector('#list li[data-key="tool:` + tool + `"]')`)
				}
				var n int
				p.js(`+document.querySelector('#kinds [data-kind=tools] .count').textContent`, &n)
				if n < 20 {
					t.Errorf("%d tools counted", n)
				}
				// The overview: instructions and capabilities.
				contains(t, "overview", p.str(`document.querySelector("#detail").innerText`), "Test fixtures for the MCP conformance suite")
				var shown float64
				p.js(`performance.getEntriesByName("mcpwire:shown")[0].startTime`, &shown)
				t.Logf("the tools shown %.0f ms after the navigation started", shown)
			})

			t.Run("form", func(t *testing.T) {
				p := p.with(t)
				// A nested object through $ref, an enum, strings.
				p.open("tools", "tool:json_schema_2020_12_tool")
				p.typeIn(`#detail [name="name"]`, "Ada")
				p.typeIn(`#detail [name="address.street"]`, "12 Rue de la Paix")
				p.typeIn(`#detail [name="address.city"]`, "Paris")
				p.choose(`#detail select[name="contactMethod"]`, "email")
				p.typeIn(`#detail [name="email"]`, "ada@example.com")
				status, text := p.call()
				if status != "ok" {
					t.Fatalf("call: %s %s", status, text)
				}
				contains(t, "result", text, `Received valid arguments: {"name":"Ada","address":{"street":"12 Rue de la Paix","city":"Paris"},"contactMethod":"email","email":"ada@example.com"}`)

				// Both frames of the call in the log; the response shows its
				// request when clicked.
				row := `[...document.querySelectorAll("#frames .frame.%s")].filter(r => r.querySelector(".method").textContent === "tools/call").pop()`
				p.wait(fmt.Sprintf(row, "client.request") + ` && ` + fmt.Sprintf(row, "server.response"))
				p.js(fmt.Sprintf(row, "server.response")+`.click()`, nil)
				p.wait(`document.querySelector("#frames .frame.partner.client.request")`)
				reqID := p.str(`document.querySelector("#frames .frame.partner .id").textContent`)
				respID := p.str(`document.querySelector("#frames .frame.open .id").textContent`)
				if reqID != respID || reqID == "" {
					t.Errorf("the response %s is paired with the request %s", respID, reqID)
				}
				contains(t, "the response's detail", p.str(`document.querySelector("#frames .frame-detail").innerText`), "Received valid arguments")
				if lat := p.str(`document.querySelector("#frames .frame.open .lat").textContent`); !strings.HasSuffix(lat, "ms") && !strings.HasSuffix(lat, " s") {
					t.Errorf("the response's latency: %q", lat)
				}
				if c.era == "stateless" {
					p.screenshot("inspect.png")
				}

				// The raw JSON editor holds what the form holds.
				p.click(`#detail .buttons button:not(.primary)`)
				var args map[string]any
				p.js(`JSON.parse(document.querySelector('#detail [name="$raw"]').value)`, &args)
				if args["name"] != "Ada" || args["contactMethod"] != "email" {
					t.Errorf("raw JSON: %v", args)
				}
			})

			t.Run("filters", func(t *testing.T) {
				p := p.with(t)
				shown := `[...document.querySelectorAll("#frames .frame:not([hidden])")]`
				p.typeIn("#frame-filter", "tools/call")
				var methods []string
				p.js(shown+`.map(r => r.querySelector(".method").textContent)`, &methods)
				if len(methods) < 2 || slices.ContainsFunc(methods, func(m string) bool { return m != "tools/call" }) {
					t.Errorf("filtered by the method tools/call, the log shows %q", methods)
				}
				p.choose("#frame-dir", "← received")
				var kinds []string
				p.js(shown+`.map(r => r.className)`, &kinds)
				if len(kinds) < 1 || slices.ContainsFunc(kinds, func(k string) bool { return !strings.Contains(k, "server response") }) {
					t.Errorf("filtered by tools/call received, the log shows rows of classes %q", kinds)
				}
				p.js(`document.querySelector("#frame-filter").value = ""; document.querySelector("#frame-dir").value = "";
					document.querySelector("#frame-filter").dispatchEvent(new Event("input", {bubbles: true})); true`, nil)
				p.wait(`!document.querySelector("#frames .frame[hidden]")`)
			})

			t.Run("elicitation", func(t *testing.T) {
				p := p.with(t)
				p.open("tools", "tool:test_elicitation")
				p.typeIn(`#detail [name="message"]`, "Who are you?")
				n := p.results()
				p.click("#call")
				p.wait(`document.querySelector('#questions:not([hidden]) .question[data-kind="elicit"]')`)
				if got := p.str(`document.querySelector("#questions .ask").textContent`); got != "Who are you?" {
					t.Errorf("the question asks %q", got)
				}
				p.typeIn(`#questions [name="username"]`, "ada")
				p.typeIn(`#questions [name="email"]`, "ada@example.com")
				p.click(`#questions button[name="accept"]`)
				p.wait(`document.querySelector("#questions").hidden`)
				p.wait(fmt.Sprintf(`document.querySelectorAll("#detail .history .result").length > %d`, n))
				status, text := p.result()
				if status != "ok" {
					t.Fatalf("call: %s %s", status, text)
				}
				contains(t, "result", text, "ada@example.com")
			})

			t.Run("progress", func(t *testing.T) {
				p := p.with(t)
				p.open("tools", "tool:test_tool_with_progress")
				// Every value the bar takes, as it takes it.
				p.js(`window.seen = []; new MutationObserver(ms => { for (const m of ms) if (m.target.dataset && m.target.dataset.progress) window.seen.push(m.target.dataset.progress + "/" + m.target.max); })
					.observe(document.querySelector("#detail"), {subtree: true, attributes: true, attributeFilter: ["data-progress"]}); true`, nil)
				status, text := p.call()
				if status != "ok" {
					t.Fatalf("call: %s %s", status, text)
				}
				// The last notification may come after the answer.
				p.wait(`(document.querySelector("#detail .progress progress") || {}).dataset?.progress === "100"`)
				var seen []string
				p.js(`window.seen`, &seen)
				if strings.Join(seen, " ") != "0/100 50/100 100/100" {
					t.Errorf("the progress bar went through %v, want 0, 50 and 100 of 100", seen)
				}
				contains(t, "progress label", p.str(`document.querySelector("#detail .progress").textContent`), "100 / 100 · Completed step 3 of 3")
			})

			t.Run("content", func(t *testing.T) {
				p := p.with(t)
				p.open("tools", "tool:test_multiple_content_types")
				status, text := p.call()
				if status != "ok" {
					t.Fatalf("call: %s %s", status, text)
				}
				contains(t, "result", text, "Multiple content types test:")
				contains(t, "result", text, "test://mixed-content-resource")
				p.wait(`(() => { const i = document.querySelector("#detail .result img"); return i && i.complete && i.naturalWidth === 1; })()`)

				p.open("tools", "tool:test_audio_content")
				p.call()
				p.wait(`document.querySelector('#detail .result audio[src^="data:audio/wav;base64,"]')`)

				p.open("tools", "tool:test_error_handling")
				status, text = p.call()
				if status != "bad" {
					t.Errorf("an isError result is shown as %s", status)
				}
				contains(t, "isError result", text, "The tool reported an error")
			})

			t.Run("sampling", func(t *testing.T) {
				p := p.with(t)
				p.open("tools", "tool:test_sampling")
				p.typeIn(`#detail [name="prompt"]`, "What is the capital of France?")
				p.click("#call")
				p.wait(`document.querySelector('#questions:not([hidden]) .question[data-kind="sample"]')`)
				contains(t, "the conversation", p.str(`document.querySelector("#questions .conversation").innerText`), "What is the capital of France?")
				p.typeIn(`#questions [name="reply"]`, "Paris")
				p.click(`#questions button[name="send"]`)
				status, text := p.result()
				if status != "ok" {
					t.Fatalf("call: %s %s", status, text)
				}
				contains(t, "result", text, "LLM response: Paris")
			})

			t.Run("logging", func(t *testing.T) {
				p := p.with(t)
				p.click(`#wire-tabs [data-pane="messages"]`)
				p.choose("#log-level", "debug")
				p.wait(`document.querySelector("#log-level").value === "debug" && !document.querySelector("#log-hint").textContent`)
				p.open("tools", "tool:test_tool_with_logging")
				p.call()
				p.wait(`document.querySelector("#messages").innerText.includes("Tool execution completed")`)
				p.click(`#wire-tabs [data-pane="frames"]`)
			})

			t.Run("list_changed", func(t *testing.T) {
				p := p.with(t)
				p.open("tools", "tool:test_trigger_tool_change")
				p.call()
				p.wait(`document.querySelector('#list li[data-key="tool:test_dynamic_tool"]')`)
				p.open("tools", "tool:test_trigger_tool_change")
				p.call()
				p.wait(`!document.querySelector('#list li[data-key="tool:test_dynamic_tool"]')`)
			})

			t.Run("resources", func(t *testing.T) {
				p := p.with(t)
				p.open("resources", "res:test://static-text")
				p.click("#read")
				_, text := p.result()
				contains(t, "resource", text, "This is the content of the static text resource.")

				p.open("resources", "tpl:test://template/{id}/data")
				p.typeIn(`#detail [name="id"]`, "42")
				if got := p.str(`document.querySelector("#detail .preview").textContent`); got != "test://template/42/data" {
					t.Errorf("the template expands to %q", got)
				}
				p.click("#read")
				_, text = p.result()
				contains(t, "template", text, `"id":"42"`)

				// A subscription: an update reads the resource again.
				p.open("resources", "res:test://watched-resource")
				p.click("#subscribe")
				p.wait(`document.querySelector("#subscribe").checked`)
				before := p.results()
				p.open("tools", "tool:test_trigger_resource_update")
				p.call()
				p.open("resources", "res:test://watched-resource")
				p.wait(fmt.Sprintf(`document.querySelectorAll("#detail .history .result").length > %d`, before))
			})

			t.Run("prompts", func(t *testing.T) {
				p := p.with(t)
				p.open("prompts", "prompt:test_prompt_with_arguments")
				// The server's completions, as one types.
				p.typeIn(`#detail [name="arg1"]`, "test")
				p.wait(`[...document.querySelector('#detail [name="arg1"]').list.options].map(o => o.value).join() === "testValue1,testValue2"`)
				p.js(`document.querySelector('#detail [name="arg1"]').value = ""; true`, nil)
				p.typeIn(`#detail [name="arg1"]`, "a")
				p.typeIn(`#detail [name="arg2"]`, "b")
				p.click("#get")
				_, text := p.result()
				contains(t, "prompt", text, "arg1='a', arg2='b'")
			})

			t.Run("roots", func(t *testing.T) {
				p := p.with(t)
				p.click(`#kinds [data-kind="server"]`)
				p.click(`#detail .roots + .buttons button.small`)
				p.typeIn(`#detail [name="root-uri"]`, "file:///tmp/project")
				p.typeIn(`#detail [name="root-name"]`, "Project")
				p.click("#save-roots")
				p.wait(`document.querySelector("#detail").innerText.includes("Saved.")`)
				p.open("tools", "tool:test_input_required_result_list_roots")
				_, text := p.call()
				contains(t, "roots", text, "file:///tmp/project")
			})

			t.Run("export", func(t *testing.T) {
				res, err := http.Get(in.Base + "/export?token=" + in.Token)
				if err != nil {
					t.Fatal(err)
				}
				recs, err := frames.Read(res.Body)
				res.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				var calls, answers int
				for _, r := range recs {
					if r.Method == "tools/call" && r.From == frames.FromClient {
						calls++
					}
					if r.Method == "tools/call" && r.From == frames.FromServer && r.LatencyMS > 0 {
						answers++
					}
				}
				if calls < 10 || answers < 10 {
					t.Errorf("the export holds %d tools/call requests and %d responses with their latency", calls, answers)
				}

				// Loaded into the page, the recording shows its frames,
				// paired; a file that is not a recording says why.
				dir := t.TempDir()
				file := filepath.Join(dir, "session.jsonl")
				var b []byte
				for i := range recs {
					b = append(recs[i].AppendJSON(b), '\n')
				}
				if err := os.WriteFile(file, b, 0o644); err != nil {
					t.Fatal(err)
				}
				p.do(chromedp.SetUploadFiles(chromedp.CSS("#load"), []string{file}))
				p.wait(`!document.querySelector("#recording-banner").hidden`)
				contains(t, "the recording's banner", p.str(`document.querySelector("#recording-banner").textContent`), fmt.Sprintf("session.jsonl · %d frames", len(recs)))
				var rows, paired int
				p.js(`document.querySelectorAll("#recording .frame").length`, &rows)
				p.js(`document.querySelectorAll("#recording .frame.response").length`, &paired)
				if rows != len(recs) || paired < answers {
					t.Errorf("the recording shows %d frames (%d responses), want %d (%d tools/call responses at least)", rows, paired, len(recs), answers)
				}
				p.js(`[...document.querySelectorAll("#recording .frame.response")].pop().click()`, nil)
				p.wait(`document.querySelector("#recording .frame.partner.request")`)
				p.click(`#recording-banner button`)
				p.wait(`document.querySelector("#recording-banner").hidden && !document.querySelector("#frames").hidden`)

				bad := filepath.Join(dir, "bad.jsonl")
				os.WriteFile(bad, []byte("{\"from\":\"nobody\",\"message\":{}}\n"), 0o644)
				p.do(chromedp.SetUploadFiles(chromedp.CSS("#load"), []string{bad}))
				p.wait(`document.querySelector("#messages").innerText.includes("bad.jsonl: ")`)
				contains(t, "a bad recording", p.str(`document.querySelector("#messages").innerText`), `line 1: "from" is "nobody"`)
			})
		})
	}
}
