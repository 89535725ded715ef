package mcp_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/mcp"
)

// A server reads the _meta of a request first, to learn its era, then the
// params; it answers with an era-agnostic result and lets the engine add
// what the modern era requires.
func Example() {
	params := []byte(`{"name":"get_weather","arguments":{"location":"Seattle"},
		"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
		"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},
		"progressToken":7}}`)

	meta, err := mcp.DecodeRequestMeta(params)
	if err != nil {
		panic(err)
	}
	v := meta.ProtocolVersion
	fmt.Println("modern:", meta.IsModern(), "supported:", mcp.IsSupported(v), "form elicitation:", meta.ClientCapabilities.ElicitForm())

	var call mcp.CallToolParams
	if err := json.Unmarshal(params, &call); err != nil {
		panic(err)
	}
	progress, _ := json.Marshal(mcp.ProgressParams{ProgressToken: call.Meta.ProgressToken, Progress: 50, Total: new(float64(100))})
	fmt.Println(string(progress))

	result, _ := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Sunny"}}})
	if v.Has(mcp.FeatureResultType) {
		result, _ = mcp.AddDefaultMembers(result, []byte(`{"resultType":"complete"}`))
	}
	fmt.Println(string(result))
	// Output:
	// modern: true supported: true form elicitation: true
	// {"progressToken":7,"progress":50,"total":100}
	// {"resultType":"complete","content":[{"type":"text","text":"Sunny"}]}
}

// Unknown versions are refused by set membership; legacy initialize
// negotiates instead.
func ExampleNegotiateLegacy() {
	fmt.Println(mcp.NegotiateLegacy("2025-06-18"))
	fmt.Println(mcp.NegotiateLegacy("2025-12-01"))
	fmt.Println(mcp.NegotiateLegacy(mcp.Version20260728))
	// Output:
	// 2025-06-18
	// 2025-11-25
	// 2025-11-25
}
