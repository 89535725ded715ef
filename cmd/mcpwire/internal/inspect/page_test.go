package inspect

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A page is a browser tab on an inspection, with the steps of the tests.
type page struct {
	t   *testing.T
	ctx context.Context
	in  *inspection
}

// actionTimeout bounds each step: only a real failure reaches it.
const actionTimeout = 30 * time.Second

// openPage opens the inspection's page in a new tab, and waits until it
// shows the server (which it must do with no request after the page's).
func openPage(t *testing.T, in *inspection) *page {
	t.Helper()
	p := &page{t: t, ctx: browserTab(t), in: in}
	p.do(chromedp.Navigate(in.URL))
	p.wait(`document.querySelector("#server-name").textContent !== "(connecting)"`)
	return p
}

// with returns the page for the (sub)test t.
func (p *page) with(t *testing.T) *page {
	c := *p
	c.t = t
	return &c
}

// do runs actions in the tab.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.fail("%v", err)
	}
}

// js evaluates a JavaScript expression in the page and decodes its value
// into out (nil to ignore it).
func (p *page) js(expr string, out any) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](expr))
	if err != nil {
		p.fail("evaluating %s: %v", expr, err)
	}
	if out != nil {
		if err := json.Unmarshal(v, out); err != nil {
			p.fail("evaluating %s: %v (got %s)", expr, err, v)
		}
	}
}

// str evaluates a JavaScript expression whose value is a string.
func (p *page) str(expr string) string {
	p.t.Helper()
	var s string
	p.js(expr, &s)
	return s
}

// wait waits until a JavaScript expression is truthy.
func (p *page) wait(expr string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(actionTimeout))); err != nil {
		p.fail("waiting for %s: %v", expr, err)
	}
}

// fail ends the test with what the page shows, to see why.
func (p *page) fail(format string, args ...any) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 3000)`))
	p.t.Fatalf(format+"\n--- the page shows ---\n%s\n--- inspect's stderr ---\n%s", append(args, body, p.in.stderr)...)
}

// q quotes a string for JavaScript.
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// click clicks the element of a CSS selector.
func (p *page) click(sel string) {
	p.t.Helper()
	p.do(chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// typeIn types text into the field of a CSS selector.
func (p *page) typeIn(sel, text string) {
	p.t.Helper()
	p.do(chromedp.SendKeys(chromedp.CSS(sel), text, chromedp.NodeVisible))
}

// choose picks the option whose text starts with label in a select, with
// the events a person's choice fires.
func (p *page) choose(sel, label string) {
	p.t.Helper()
	var ok bool
	p.js(`(() => { const s = document.querySelector(`+q(sel)+`); const o = [...s.options].find(o => o.text.startsWith(`+q(label)+`));
		if (!o) return false; s.value = o.value; for (const e of ["input", "change"]) s.dispatchEvent(new Event(e, {bubbles: true})); return true; })()`, &ok)
	if !ok {
		p.fail("%s has no option %q", sel, label)
	}
}

// open shows an item of the lists: kind is the tab (tools, resources,
// prompts), key the item's (tool:NAME, res:URI, tpl:TEMPLATE,
// prompt:NAME).
func (p *page) open(kind, key string) {
	p.t.Helper()
	p.click(`#kinds [data-kind="` + kind + `"]`)
	p.click(`#list li[data-key=` + q(key) + `]`)
	p.wait(`document.querySelector("#detail .head")`)
}

// result waits for the newest result of the item open and returns its
// text: "ok" or "bad", and what its body shows.
func (p *page) result() (status, text string) {
	p.t.Helper()
	// The card's own status is in its head: an App shown in the card has
	// a status of its own ("loading…" until it initializes or is found not to).
	p.wait(`(() => { const s = document.querySelector("#detail .history .result > .result-head > .status"); return s && !s.classList.contains("running"); })()`)
	status = p.str(`document.querySelector("#detail .history .result > .result-head > .status").className.replace("status ", "")`)
	text = p.str(`document.querySelector("#detail .history .result .body").innerText`)
	return status, text
}

// call calls the tool open and returns its result.
func (p *page) call() (status, text string) {
	p.t.Helper()
	n := p.results()
	p.click("#call")
	p.wait(fmt.Sprintf(`document.querySelectorAll("#detail .history .result").length > %d`, n))
	return p.result()
}

// results counts the results shown for the item open.
func (p *page) results() int {
	var n int
	p.js(`document.querySelectorAll("#detail .history .result").length`, &n)
	return n
}

// screenshot writes a PNG of the page to the -screenshots directory, if
// one was given.
func (p *page) screenshot(name string) {
	p.t.Helper()
	if *screenshots == "" {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, actionTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.fail("screenshot: %v", err)
	}
	if err := os.WriteFile(filepath.Join(*screenshots, name), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// contains fails the test unless got contains want.
func contains(t *testing.T, what, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%s: %q does not contain %q", what, got, want)
	}
}

// bool evaluates a JavaScript expression whose value is a boolean.
func (p *page) bool(expr string) bool {
	p.t.Helper()
	var b bool
	p.js(expr, &b)
	return b
}
