package mcp_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/mcp"
)

// A host reads a listed tool's App: the interface it names and who may
// call it.
func ExampleAppOfTool() {
	var tool mcp.Tool
	json.Unmarshal([]byte(`{"name":"reroll","inputSchema":{"type":"object"},
		"_meta":{"ui":{"resourceUri":"ui://dice/view","visibility":["app"]}}}`), &tool)
	ui, ok, err := mcp.AppOfTool(&tool)
	fmt.Println(ok, err, ui.ResourceURI)
	fmt.Println("model:", ui.VisibleTo(mcp.AppVisibilityModel), "app:", ui.VisibleTo(mcp.AppVisibilityApp))
	// Output:
	// true <nil> ui://dice/view
	// model: false app: true
}
