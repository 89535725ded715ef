package inspect

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
)

// The page is one HTML document: page.html with the style sheet and the
// scripts of assets/ inlined, and the state of the inspection as JSON, so
// that the server and its lists show at once, with no request after the
// page's own. The assets are plain CSS and JavaScript, embedded in the
// binary: no build step, no remote asset.

//go:embed assets
var assets embed.FS

// The scripts, in the order the page runs them.
var scripts = []string{"assets/json.js", "assets/form.js", "assets/render.js", "assets/views.js", "assets/apps.js", "assets/app.js"}

// pageParts are page.html cut around its placeholders, and the assets,
// read once, when the first page is served (at start-up, it cost every
// run of mcpwire 285 KB and a few milliseconds).
var pageParts = sync.OnceValue(func() (p struct{ head, mid, tail, css, js string }) {
	read := func(name string) string {
		b, err := assets.ReadFile(name)
		if err != nil {
			panic(err) // the assets are embedded: a missing one is a build mistake
		}
		return string(b)
	}
	html := read("assets/page.html")
	var ok1, ok2 bool
	p.head, html, ok1 = strings.Cut(html, "{{STYLE}}")
	p.mid, p.tail, ok2 = strings.Cut(html, "{{SCRIPT}}")
	if !ok1 || !ok2 {
		panic("inspect: assets/page.html lacks {{STYLE}} or {{SCRIPT}}")
	}
	p.css = read("assets/app.css") + read("assets/apps.css")
	var js strings.Builder
	for _, s := range scripts {
		js.WriteString(withoutComments(read(s)))
		js.WriteString("\n")
	}
	p.js = js.String()
	return p
})

// withoutComments returns the script js without its comment lines (a
// line that is only a // comment) and without the indentation of the
// others: the page is lighter by a sixth, and shows sooner. It is safe
// as long as no string spans lines (no template literal does:
// TestScriptsStripSafely).
func withoutComments(js string) string {
	var b strings.Builder
	b.Grow(len(js))
	for line := range strings.Lines(js) {
		line = strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(line, "//") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// boot is what the page starts from: the access token and the state.
type boot struct {
	Token string          `json:"token"`
	State json.RawMessage `json:"state"`
}

// page serves the page, with the state as it is now.
func (h *handler) page(w http.ResponseWriter, r *http.Request) {
	state, _ := h.in.hub.snapshot()
	data, err := json.Marshal(boot{Token: h.token, State: state})
	if err != nil {
		refuse(w, http.StatusInternalServerError, err.Error())
		return
	}
	var safe bytes.Buffer
	json.HTMLEscape(&safe, data) // no "</script>" can end the element early
	nonce := rand.Text()
	p := pageParts()
	var b strings.Builder
	b.Grow(len(p.head) + len(p.mid) + len(p.tail) + len(p.css) + len(p.js) + safe.Len() + 256)
	b.WriteString(p.head)
	b.WriteString(`<style nonce="` + nonce + `">`)
	b.WriteString(p.css)
	b.WriteString("</style>")
	b.WriteString(p.mid)
	b.WriteString(`<script type="application/json" id="boot">`)
	b.Write(safe.Bytes())
	b.WriteString("</script>\n")
	b.WriteString(`<script nonce="` + nonce + `">`)
	b.WriteString(p.js)
	b.WriteString("</script>")
	b.WriteString(p.tail)
	frames := "frame-src 'none'"
	if h.apps != nil {
		frames = "frame-src " + h.apps.origin // the Apps' sandbox (apps.go)
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'nonce-"+nonce+"'; "+
		"img-src data: blob:; media-src data: blob:; connect-src 'self'; "+frames+"; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.Write([]byte(b.String()))
}
