package inspect

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// TestHostileServer shows what a hostile server sends (HTML and script in
// names, descriptions, results, media, links) and checks that none of it
// runs: the page shows it as text.
func TestHostileServer(t *testing.T) {
	const html = `</script><script>window.pwned = "script"</script><img src=x onerror="window.pwned = 'onerror'">`
	svg := base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="window.pwned = 'svg'"><script>window.pwned = 'svg script'</script></svg>`))
	srv := server.New(mcp.Implementation{Name: "hostile", Title: html, Version: html}, &server.Options{Instructions: html})
	err := server.AddTool(srv, &mcp.Tool{Name: "hostile", Title: html, Description: html}, func(ctx context.Context, r *server.Request, _ struct{}) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: mcp.ContentList{
			&mcp.TextContent{Text: html},
			&mcp.ImageContent{Data: svg, MimeType: "image/svg+xml"},
			&mcp.ImageContent{Data: base64.StdEncoding.EncodeToString([]byte(html)), MimeType: "text/html"},
			&mcp.ImageContent{Data: "AAAA", MimeType: "image/png;base64,AAAA\"><script>window.pwned='mime'</script>"},
			&mcp.AudioContent{Data: base64.StdEncoding.EncodeToString([]byte(html)), MimeType: "text/html"},
			&mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: "javascript:window.pwned='embedded'", MimeType: "text/html", Blob: base64.StdEncoding.EncodeToString([]byte(html))}},
			&mcp.ResourceLink{Resource: mcp.Resource{URI: "javascript:window.pwned='link'", Name: html}},
		}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = server.AddTool(srv, &mcp.Tool{Name: "hostile_url", Description: "Sends the person to a javascript: URL"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Mode: mcp.ElicitModeURL, Message: html, URL: "javascript:window.pwned='url'", ElicitationID: "e1"})
		if err != nil {
			return "", err
		}
		return string(res.Action), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	in := inspectServer(t, srv)
	p := openPage(t, in)
	if got := p.str(`document.querySelector("#server-name").textContent`); got != html {
		t.Errorf("the server's title is shown as %q", got)
	}
	p.open("tools", "tool:hostile")
	contains(t, "the tool's description", p.str(`document.querySelector("#detail .head .desc").textContent`), html)
	p.call()
	// Every link of the page is the page's own (#, /export), an http(s)
	// URL, or a download; every media source is data: of a media type:
	// never javascript:, never a document (text/html, image/svg+xml) that
	// the browser would open.
	var bad []string
	p.js(`[...document.querySelectorAll("a[href], [src]")].map(e => e.tagName + " " + (e.tagName === "A" ? e.getAttribute("href") : e.getAttribute("src")))
		.filter(u => !/^(A (#|\/export\?|\/checks\?|https?:\/\/|data:application\/octet-stream;base64,)|(IMG|AUDIO|VIDEO) data:(image|audio|video)\/[\w.+-]+;base64,[A-Za-z0-9+\/=]*$)/.test(u))`, &bad)
	if len(bad) != 0 {
		t.Errorf("links or sources of the page that are not safe: %q", bad)
	}
	var saves []string
	p.js(`[...document.querySelectorAll("#detail .result a[download]")].map(a => a.getAttribute("href").slice(0, 30))`, &saves)
	if len(saves) < 2 {
		t.Errorf("the result's blobs of type text/html are not offered for download: %q", saves)
	}
	for _, u := range saves {
		if !strings.HasPrefix(u, "data:application/octet-stream;") {
			t.Errorf("a blob is saved from %q, want data:application/octet-stream", u)
		}
	}
	p.click(`#detail .result .block.link a`)
	p.open("tools", "tool:hostile_url")
	p.click("#call")
	p.wait(`document.querySelector('#questions:not([hidden]) .question')`)
	var links int
	p.js(`document.querySelectorAll('#questions a[href^="javascript:"]').length`, &links)
	if links != 0 {
		t.Errorf("the javascript: URL of an elicitation is a link")
	}
	contains(t, "the question", p.str(`document.querySelector("#questions .ask").textContent`), html)
	p.click(`#questions button:nth-of-type(2)`) // Decline
	_, text := p.result()
	contains(t, "the answer", text, "decline")
	p.click(`#kinds [data-kind="server"]`)
	contains(t, "the instructions", p.str(`document.querySelector("#detail").innerText`), html)
	var pwned any
	p.js(`window.pwned === undefined ? null : window.pwned`, &pwned)
	if pwned != nil {
		t.Errorf("the server's content ran in the page: window.pwned = %v", pwned)
	}
}
