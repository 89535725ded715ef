package server_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// A tool with an App: the interface is a ui:// resource added first; the
// tool names it in _meta.ui, and a second tool is for the App only.
func ExampleServer_AddAppTool() {
	srv := server.New(mcp.Implementation{Name: "clock", Version: "1.0.0"}, nil)
	err := srv.AddApp(&server.App{
		URI: "ui://clock/view", Name: "clock",
		HTML: "<!doctype html><p id=t></p>", // the App SDK and the page's script inline
		UI:   mcp.AppResourceMeta{CSP: &mcp.AppCSP{ConnectDomains: []string{"https://time.example.com"}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	now := func(context.Context, *server.Request, *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return server.TextResult("12:00"), nil
	}
	srv.AddAppTool(&mcp.Tool{Name: "show_time"}, mcp.AppToolMeta{ResourceURI: "ui://clock/view"}, now)
	srv.AddAppTool(&mcp.Tool{Name: "tick"}, mcp.AppToolMeta{
		ResourceURI: "ui://clock/view", Visibility: []mcp.AppVisibility{mcp.AppVisibilityApp},
	}, now)
	for _, t := range srv.Tools() {
		b, _ := json.Marshal(t.Meta)
		fmt.Println(t.Name, string(b))
	}
	// An interface the server does not serve is refused.
	err = srv.AddAppTool(&mcp.Tool{Name: "lost"}, mcp.AppToolMeta{ResourceURI: "ui://clock/missing"}, now)
	fmt.Println(err)
	// Output:
	// show_time {"ui":{"resourceUri":"ui://clock/view"},"ui/resourceUri":"ui://clock/view"}
	// tick {"ui":{"resourceUri":"ui://clock/view","visibility":["app"]},"ui/resourceUri":"ui://clock/view"}
	// mcp server: invalid App: tool "lost": its interface ui://clock/missing is not a resource of this server (add it first, with AddApp)
}
