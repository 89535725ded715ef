package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// appsServer serves one good App and interfaces that a host must refuse,
// each behind a tool named after what is wrong with it.
func appsServer(t *testing.T) *server.Server {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "apps", Version: "1"}, nil)
	t.Cleanup(func() { s.Close() })
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AddApp(&server.App{URI: "ui://good", Name: "good", HTML: "<p>good</p>",
		UI: mcp.AppResourceMeta{CSP: &mcp.AppCSP{ConnectDomains: []string{"https://api.example.com"}}}}))
	noop := func(context.Context, *server.Request, *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return server.TextResult(""), nil
	}
	must(s.AddAppTool(&mcp.Tool{Name: "good"}, mcp.AppToolMeta{ResourceURI: "ui://good"}, noop))
	must(s.AddTool(&mcp.Tool{Name: "plain"}, noop))
	bad := map[string]mcp.ReadResourceResult{
		"wrong-type": {Contents: []mcp.ResourceContents{{URI: "ui://wrong-type", MimeType: "text/html", Text: "<p>"}}},
		"wrong-uri":  {Contents: []mcp.ResourceContents{{URI: "ui://other", MimeType: mcp.AppMIMEType, Text: "<p>"}}},
		"two": {Contents: []mcp.ResourceContents{{URI: "ui://two", MimeType: mcp.AppMIMEType, Text: "<p>"},
			{URI: "ui://two", MimeType: mcp.AppMIMEType, Text: "<p>"}}},
		"too-big": {Contents: []mcp.ResourceContents{{URI: "ui://too-big", MimeType: mcp.AppMIMEType,
			Text: strings.Repeat("a", client.DefaultMaxAppHTML+1)}}},
		"bad-csp": {Contents: []mcp.ResourceContents{{URI: "ui://bad-csp", MimeType: mcp.AppMIMEType, Text: "<p>",
			Meta: mcp.Meta{"ui": map[string]any{"csp": map[string]any{"connectDomains": []any{"https://a; script-src *"}}}}}}},
		"bad-meta": {Contents: []mcp.ResourceContents{{URI: "ui://bad-meta", MimeType: mcp.AppMIMEType, Text: "<p>",
			Meta: mcp.Meta{"ui": map[string]any{"prefersBorder": "yes"}}}}},
		"blob": {Contents: []mcp.ResourceContents{mcp.NewBlobContents("ui://blob", mcp.AppMIMEType, []byte("<p>blob</p>"))}},
	}
	for name, res := range bad {
		must(s.AddResource(&mcp.Resource{URI: "ui://" + name, Name: name}, func(context.Context, *server.Request, *mcp.ReadResourceParams, map[string]string) (*mcp.ReadResourceResult, error) {
			return &res, nil
		}))
		must(s.AddAppTool(&mcp.Tool{Name: name}, mcp.AppToolMeta{ResourceURI: "ui://" + name}, noop))
	}
	return s
}

func TestReadApp(t *testing.T) {
	for _, v := range []mcp.Version{"2025-11-25", "2026-07-28"} {
		t.Run(string(v), func(t *testing.T) {
			cs := dialTasks(t, appsServer(t), &client.Options{Version: v, Apps: true})
			ctx := context.Background()
			tools := map[string]*mcp.Tool{}
			for tool, err := range cs.Tools(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				tools[tool.Name] = tool
			}
			app, err := cs.ReadApp(ctx, tools["good"])
			if err != nil {
				t.Fatal(err)
			}
			if app.URI != "ui://good" || app.HTML != "<p>good</p>" || app.UI.CSP == nil || app.UI.CSP.ConnectDomains[0] != "https://api.example.com" {
				t.Fatalf("ReadApp = %+v", app)
			}
			if app, err := cs.ReadApp(ctx, tools["blob"]); err != nil || app.HTML != "<p>blob</p>" {
				t.Fatalf("blob: %+v, %v", app, err)
			}
			if _, err := cs.ReadApp(ctx, tools["plain"]); !errors.Is(err, client.ErrNoApp) {
				t.Errorf("plain: err = %v, want ErrNoApp", err)
			}
			for name, want := range map[string]string{
				"wrong-type": `type "text/html"`, "wrong-uri": `"ui://other"`, "two": "2 contents",
				"too-big": "larger than", "bad-csp": "CSP source", "bad-meta": "prefersBorder",
			} {
				_, err := cs.ReadApp(ctx, tools[name])
				if !errors.Is(err, client.ErrAppInterface) || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: err = %v, want ErrAppInterface with %q", name, err, want)
				}
			}
			// A tool whose metadata is malformed, as a client may get
			// from any server.
			odd := &mcp.Tool{Name: "odd", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "https://x"}}}
			if _, err := cs.ReadApp(ctx, odd); !errors.Is(err, client.ErrAppInterface) {
				t.Errorf("odd: err = %v", err)
			}
		})
	}
}

// TestAppsDeclared: Options.Apps declares the extension in both eras, and
// a handler can tell a host that renders Apps from one that does not.
func TestAppsDeclared(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "apps", Version: "1"}, nil)
	t.Cleanup(func() { s.Close() })
	err := server.AddTool(s, &mcp.Tool{Name: "apps"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		if r.ClientCapabilities().SupportsApps() {
			return "apps", nil
		}
		return "text", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []mcp.Version{"2025-11-25", "2026-07-28"} {
		for _, apps := range []bool{false, true} {
			cs := dialTasks(t, s, &client.Options{Version: v, Apps: apps})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "apps"})
			if err != nil {
				t.Fatal(err)
			}
			want := map[bool]string{true: "apps", false: "text"}[apps]
			if got := text(res); got != want {
				t.Errorf("%s, Apps %v: the handler saw %s", v, apps, got)
			}
		}
	}
	// Declaring keeps the caller's other extensions, and the caller's map.
	opts := &client.Options{Apps: true, Capabilities: &mcp.ClientCapabilities{Extensions: nil}}
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, opts)
	caps := c.Capabilities()
	if !caps.SupportsApps() || opts.Capabilities.Extensions != nil {
		t.Errorf("caps %+v, caller's %+v", caps, opts.Capabilities)
	}
}
