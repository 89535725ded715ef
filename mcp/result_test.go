package mcp

import (
	"encoding/json"
	"testing"
)

func TestAddDefaultMembers(t *testing.T) {
	const defaults = `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`
	tests := []struct{ in, want string }{
		{`{}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`},
		{` { } `, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`},
		{`{"content":[]}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"content":[]}`},
		// The result's own resultType wins.
		{`{"resultType":"input_required","requestState":"x"}`,
			`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"resultType":"input_required","requestState":"x"}`},
		// _meta is merged key by key; the result's keys win.
		{`{"a":1,"_meta":{"k":"v"},"b":{"_meta":2}}`,
			`{"resultType":"complete","a":1,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"},"k":"v"},"b":{"_meta":2}}`},
		{`{"_meta":{}}`, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}`},
		{`{"_meta":{"io.modelcontextprotocol/serverInfo":"mine"},"resultType":"complete"}`,
			`{"_meta":{"io.modelcontextprotocol/serverInfo":"mine"},"resultType":"complete"}`},
	}
	for _, tt := range tests {
		got, err := AddDefaultMembers([]byte(tt.in), []byte(defaults))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.in, got, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("%s: invalid JSON %s", tt.in, got)
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `{"a":}`, `{"a":1`, ``} {
		if _, err := AddDefaultMembers([]byte(bad), []byte(defaults)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	// A cacheable result gets ttlMs and cacheScope unless it has them.
	ttl := int64(0)
	res, _ := json.Marshal(ListToolsResult{TTLMs: &ttl})
	got, err := AddDefaultMembers(res, []byte(`{"ttlMs":60000,"cacheScope":"public"}`))
	if err != nil || string(got) != `{"cacheScope":"public","tools":[],"ttlMs":0}` {
		t.Errorf("cacheable: %s, %v", got, err)
	}
}

func TestResultTypeOf(t *testing.T) {
	tests := map[string]ResultType{
		`{}`:                               ResultTypeComplete,
		`{"content":[{"resultType":"x"}]}`: ResultTypeComplete,
		`{"resultType":"input_required"}`:  ResultTypeInputRequired,
		`{"a":1,"resultType":"task"}`:      ResultTypeTask,
		`{"resultType":"custom"}`:          "custom",
	}
	for in, want := range tests {
		if got, err := ResultTypeOf([]byte(in)); err != nil || got != want {
			t.Errorf("ResultTypeOf(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ResultTypeOf([]byte(`{"resultType":1}`)); err == nil {
		t.Error("numeric resultType accepted")
	}
	out, _ := json.Marshal(InputRequiredResult{RequestState: "s"})
	if rt, _ := ResultTypeOf(out); rt != ResultTypeInputRequired || string(out) != `{"resultType":"input_required","requestState":"s"}` {
		t.Errorf("InputRequiredResult = %s", out)
	}
}

// TestRequiredArraysAndObjects checks that every result and params type
// with a required array writes [] for a nil slice, and that empty results
// and present capabilities write {}.
func TestRequiredArraysAndObjects(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{EmptyResult{}, `{}`},
		{CallToolResult{}, `{"content":[]}`},
		{&CallToolResult{}, `{"content":[]}`},
		{ListToolsResult{}, `{"tools":[]}`},
		{ListResourcesResult{}, `{"resources":[]}`},
		{ListResourceTemplatesResult{}, `{"resourceTemplates":[]}`},
		{ReadResourceResult{}, `{"contents":[]}`},
		{ListPromptsResult{}, `{"prompts":[]}`},
		{GetPromptResult{}, `{"messages":[]}`},
		{CompleteResult{}, `{"completion":{"values":[]}}`},
		{ListRootsResult{}, `{"roots":[]}`},
		{ListTasksResult{}, `{"tasks":[]}`},
		{DiscoverResult{}, `{"supportedVersions":[],"capabilities":{}}`},
		{CreateMessageParams{MaxTokens: 10}, `{"messages":[],"maxTokens":10}`},
		{ToolResultContent{ToolUseID: "u"}, `{"type":"tool_result","toolUseId":"u","content":[]}`},
		{UpdateTaskParams{TaskID: "t"}, `{"taskId":"t","inputResponses":{}}`},
		{Tool{Name: "t"}, `{"name":"t","inputSchema":{"type":"object"}}`},
		{InitializeResult{ProtocolVersion: Version20251125, ServerInfo: Implementation{Name: "s", Version: "1"}},
			`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`},
		{ServerCapabilities{Logging: &Supported{}, Tools: &ToolsCapability{}, Resources: &ResourcesCapability{Subscribe: true}},
			`{"logging":{},"resources":{"subscribe":true},"tools":{}}`},
		{ClientCapabilities{Roots: &RootsCapability{}, Sampling: &SamplingCapability{}, Elicitation: &ElicitationCapability{Form: &Supported{}, URL: &Supported{}}},
			`{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}}}`},
		{ClientCapabilities{}, `{}`},
		{CancelledParams{Reason: "r"}, `{"reason":"r"}`},
		{Task{TaskID: "t", Status: TaskWorking, CreatedAt: "c", LastUpdatedAt: "u"},
			`{"taskId":"t","status":"working","createdAt":"c","lastUpdatedAt":"u","ttl":null}`},
	}
	for _, tt := range tests {
		out, err := json.Marshal(tt.v)
		if err != nil {
			t.Errorf("%T: %v", tt.v, err)
			continue
		}
		if string(out) != tt.want {
			t.Errorf("%T:\n got %s\nwant %s", tt.v, out, tt.want)
		}
	}
}
