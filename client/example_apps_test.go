package client_test

import (
	"context"
	"fmt"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// A server offers a tool with an App; a host finds the tool's interface,
// reads it, and learns which tools the App may call.
func ExampleSession_ReadApp() {
	srv := server.New(mcp.Implementation{Name: "clock", Version: "1.0.0"}, nil)
	srv.AddApp(&server.App{URI: "ui://clock/view", Name: "clock", HTML: "<!doctype html><p id=t></p>"})
	now := func(context.Context, *server.Request, *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return server.TextResult("12:00"), nil
	}
	srv.AddAppTool(&mcp.Tool{Name: "show_time"}, mcp.AppToolMeta{ResourceURI: "ui://clock/view"}, now)
	srv.AddAppTool(&mcp.Tool{Name: "tick"}, mcp.AppToolMeta{
		ResourceURI: "ui://clock/view", Visibility: []mcp.AppVisibility{mcp.AppVisibilityApp},
	}, now)

	ctx := context.Background()
	ct, st := memory.NewPair(nil)
	srv.Connect(ctx, st)
	sess, _ := client.New(mcp.Implementation{Name: "host", Version: "1"}, &client.Options{Apps: true}).Connect(ctx, ct)
	defer sess.Close()

	for tool, err := range sess.Tools(ctx) {
		if err != nil {
			return
		}
		app, err := sess.ReadApp(ctx, tool)
		if err != nil {
			fmt.Println(tool.Name, err)
			continue
		}
		fmt.Printf("%s: %s, %d bytes; model %v, app %v\n", tool.Name, app.URI, len(app.HTML),
			app.Tool.VisibleTo(mcp.AppVisibilityModel), app.Tool.VisibleTo(mcp.AppVisibilityApp))
	}
	// Output:
	// show_time: ui://clock/view, 27 bytes; model true, app true
	// tick: ui://clock/view, 27 bytes; model false, app true
}
