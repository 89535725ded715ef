package inspect

import (
	"context"
	"encoding/base64"
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
	p.click(`#detail .result .block a`)
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
