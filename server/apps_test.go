package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

func newAppServer(t *testing.T) *server.Server {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "apps", Version: "1"}, nil)
	t.Cleanup(func() { s.Close() })
	border := true
	err := s.AddApp(&server.App{
		URI: "ui://demo/view", Name: "view", Description: "the demo view",
		HTML: "<!doctype html><p>hi</p>",
		UI: mcp.AppResourceMeta{
			CSP:           &mcp.AppCSP{ConnectDomains: []string{"https://api.example.com"}},
			Permissions:   &mcp.AppPermissions{ClipboardWrite: &mcp.Supported{}},
			PrefersBorder: &border,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return server.TextResult("ok"), nil
	}
	if err := s.AddAppTool(&mcp.Tool{Name: "show"}, mcp.AppToolMeta{ResourceURI: "ui://demo/view"}, h); err != nil {
		t.Fatal(err)
	}
	if err := s.AddAppTool(&mcp.Tool{Name: "refresh"}, mcp.AppToolMeta{
		ResourceURI: "ui://demo/view", Visibility: []mcp.AppVisibility{mcp.AppVisibilityApp},
	}, h); err != nil {
		t.Fatal(err)
	}
	return s
}

// sameJSON compares two JSON texts after decoding them.
func sameJSON(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: the golden: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// TestAppsWire: tools/list and resources/list/read carry the Apps
// metadata as the extension writes it, in both eras; app-only tools are
// listed too (the host, not the server, keeps them from the model).
func TestAppsWire(t *testing.T) {
	const tools = `[
	 {"name":"show","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://demo/view"},"ui/resourceUri":"ui://demo/view"}},
	 {"name":"refresh","inputSchema":{"type":"object"},"_meta":{"ui":{"resourceUri":"ui://demo/view","visibility":["app"]},"ui/resourceUri":"ui://demo/view"}}]`
	const ui = `{"ui":{"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"clipboardWrite":{}},"prefersBorder":true}}`
	const resources = `[{"uri":"ui://demo/view","name":"view","description":"the demo view","mimeType":"text/html;profile=mcp-app","_meta":` + ui + `}]`
	const contents = `[{"uri":"ui://demo/view","mimeType":"text/html;profile=mcp-app","text":"<!doctype html><p>hi</p>","_meta":` + ui + `}]`
	for _, v := range []mcp.Version{"2025-11-25", "2026-07-28"} {
		t.Run(string(v), func(t *testing.T) {
			cs := connect(t, newAppServer(t), &client.Options{Version: v})
			ctx := context.Background()
			var lt struct{ Tools json.RawMessage }
			if err := cs.Call(ctx, mcp.MethodListTools, nil, &lt); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "tools/list", lt.Tools, tools)
			var lr struct{ Resources json.RawMessage }
			if err := cs.Call(ctx, mcp.MethodListResources, nil, &lr); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "resources/list", lr.Resources, resources)
			var rr struct{ Contents json.RawMessage }
			if err := cs.Call(ctx, mcp.MethodReadResource, &mcp.ReadResourceParams{URI: "ui://demo/view"}, &rr); err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "resources/read", rr.Contents, contents)
		})
	}
}

func TestAddAppToolRefusals(t *testing.T) {
	s := newAppServer(t)
	h := func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return nil, nil
	}
	for _, tc := range []struct {
		name string
		ui   mcp.AppToolMeta
		want string
	}{
		{"not ui://", mcp.AppToolMeta{ResourceURI: "https://example.com/view"}, "not a ui:// URI"},
		{"no such resource", mcp.AppToolMeta{ResourceURI: "ui://demo/missing"}, "not a resource of this server"},
		{"empty visibility", mcp.AppToolMeta{ResourceURI: "ui://demo/view", Visibility: []mcp.AppVisibility{}}, "lets nobody"},
	} {
		err := s.AddAppTool(&mcp.Tool{Name: "x"}, tc.ui, h)
		if !errors.Is(err, server.ErrApp) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrApp with %q", tc.name, err, tc.want)
		}
	}
	// The generic AddTool checks _meta.ui too, whoever wrote it.
	tool := &mcp.Tool{Name: "typed", Meta: mcp.Meta{"ui/resourceUri": "ui://nowhere"}}
	err := server.AddTool(s, tool, func(ctx context.Context, r *server.Request, in struct{}) (string, error) { return "", nil })
	if !errors.Is(err, server.ErrApp) {
		t.Errorf("generic AddTool: err = %v, want ErrApp", err)
	}
	tool = &mcp.Tool{Name: "typed", Meta: mcp.Meta{"ui": map[string]any{"visibility": []any{"everyone"}}}}
	if err := s.AddTool(tool, h); !errors.Is(err, server.ErrApp) || !errors.Is(err, mcp.ErrAppMeta) {
		t.Errorf("bad visibility: err = %v", err)
	}
	for _, name := range []string{"x", "typed"} {
		for _, got := range s.Tools() {
			if got.Name == name {
				t.Errorf("the refused tool %q was added", name)
			}
		}
	}
}

func TestAddAppRefusals(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "apps", Version: "1"}, nil)
	t.Cleanup(func() { s.Close() })
	for _, tc := range []struct {
		app  server.App
		want string
	}{
		{server.App{URI: "https://x/view", Name: "v"}, "not a ui:// URI"},
		{server.App{URI: "ui://x", Name: ""}, "needs a name"},
		{server.App{URI: "ui://x", Name: "v", HTML: strings.Repeat("a", server.DefaultMaxAppHTML+1)}, "more than"},
		{server.App{URI: "ui://x", Name: "v", UI: mcp.AppResourceMeta{CSP: &mcp.AppCSP{ResourceDomains: []string{"https://a; script-src *"}}}}, "CSP source"},
	} {
		err := s.AddApp(&tc.app)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.app.URI, err, tc.want)
		}
	}
}
