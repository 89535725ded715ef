package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// These tests check each fixture's observable behaviour against what the
// conformance checks expect (docs/notes/conformance.md §5–§8), through the
// mcpwire client in both eras; raw_test.go and mrtr_test.go drive the
// server with raw JSON-RPC frames where the suite sends odd things, and
// stdio_test.go runs the binary.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// era is a protocol era a test runs in: the client's Options.Version.
type era struct {
	name    string
	version mcp.Version // "" is the modern era (2026-07-28)
}

var eras = []era{{"modern", ""}, {"legacy", mcp.LatestLegacy}}

// forEachEra runs f as a subtest in each era.
func forEachEra(t *testing.T, f func(t *testing.T, e era)) {
	for _, e := range eras {
		t.Run(e.name, func(t *testing.T) { f(t, e) })
	}
}

// newTestServer returns the everything server.
func newTestServer(t *testing.T) *server.Server {
	t.Helper()
	srv, err := newServer(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// connect serves a new session of srv over the memory transport and
// connects a client with opts (whose Version is set to e's) to it.
func connect(t *testing.T, srv *server.Server, e era, opts *client.Options) *client.Session {
	t.Helper()
	var o client.Options
	if opts != nil {
		o = *opts
	}
	o.Version = e.version
	ct, st := memory.NewPair(&memory.Options{Methods: mcp.KnownMethods()})
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.New(mcp.Implementation{Name: "conformance-test-client", Version: "1.0.0"}, &o).Connect(ctx, ct)
	if err != nil {
		ss.Close()
		ss.Wait()
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close(); ss.Wait() })
	if e.version == "" && !cs.IsModern() {
		t.Fatalf("the client did not agree on the modern era: %s", cs.ProtocolVersion())
	}
	if e.version != "" && cs.ProtocolVersion() != e.version {
		t.Fatalf("the client speaks %s, want %s", cs.ProtocolVersion(), e.version)
	}
	return cs
}

// testCtx returns a context that ends with the test or after 10 s, the
// suite's request timeout.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// callTool calls a tool and fails the test on a protocol error.
func callTool(t *testing.T, ctx context.Context, cs *client.Session, name string, args string) *mcp.CallToolResult {
	t.Helper()
	p := &mcp.CallToolParams{Name: name}
	if args != "" {
		p.Arguments = json.RawMessage(args)
	}
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// onlyText returns the text of a result that must be one text block.
func onlyText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected isError result: %+v", res.Content)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %s, want text", res.Content[0].Type())
	}
	return tc.Text
}

// eventually checks cond once the client and the server have done all
// they can (the test runs in a synctest bubble). Log and list
// notifications reach client callbacks through the client's ordered
// queue, and the server may deliver list changes after the response of
// the call that caused them; synctest.Wait waits for all of it.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	synctest.Wait()
	if !cond() {
		t.Fatalf("no %s, with the client and the server idle", what)
	}
}

// expectedTools lists the tools in the order of tools/list.
var expectedTools = []string{
	"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
	"test_multiple_content_types", "test_tool_with_logging", "test_tool_with_progress",
	"test_error_handling", "test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults",
	"test_elicitation_sep1330_enums", "json_schema_2020_12_tool", "test_reconnection",
	"test_missing_capability", "test_streaming_elicitation", "test_logging_tool",
	"test_trigger_tool_change", "test_trigger_prompt_change", "test_trigger_resource_update",
	"test_param_header",
	"test_input_required_result_elicitation", "test_input_required_result_sampling",
	"test_input_required_result_list_roots", "test_input_required_result_request_state",
	"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
	"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
	"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input",
	"test_tool_with_task", "test_streamed_progress",
}

// listTools returns every tool, page after page.
func listTools(t *testing.T, ctx context.Context, cs *client.Session) []mcp.Tool {
	t.Helper()
	var out []mcp.Tool
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, *tool)
	}
	return out
}

// toolNames returns the names of tools.
func toolNames(tools []mcp.Tool) []string {
	names := make([]string, len(tools))
	for i, tool := range tools {
		names[i] = tool.Name
	}
	return names
}

// compactJSON compacts b, failing the test if it is not JSON.
func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return buf.String()
}

// TestToolsList checks tools-list (name, description, object inputSchema;
// the name format of 2025-11-25), the order (test_simple_text first), and
// json-schema-2020-12 (the schema relayed byte for byte).
func TestToolsList(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		cs := connect(t, newTestServer(t), e, nil)
		tools := listTools(t, testCtx(t), cs)
		if got := toolNames(tools); !slices.Equal(got, expectedTools) {
			t.Fatalf("tools:\n got %v\nwant %v", got, expectedTools)
		}
		for _, tool := range tools {
			if tool.Description == "" {
				t.Errorf("%s has no description", tool.Name)
			}
			if len(tool.Name) > 128 || strings.Trim(tool.Name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != "" {
				t.Errorf("%s: not a valid tool name", tool.Name)
			}
			var schema struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.Type != "object" {
				t.Errorf("%s: inputSchema %s is not an object schema", tool.Name, tool.InputSchema)
			}
		}
		i := slices.IndexFunc(tools, func(tool mcp.Tool) bool { return tool.Name == "json_schema_2020_12_tool" })
		if got, want := compactJSON(t, tools[i].InputSchema), compactJSON(t, jsonSchema202012); got != want {
			t.Errorf("json_schema_2020_12_tool inputSchema not relayed verbatim:\n got %s\nwant %s", got, want)
		}
		var s struct {
			Schema string `json:"$schema"`
			Defs   struct {
				Address struct {
					Anchor string `json:"$anchor"`
				} `json:"address"`
			} `json:"$defs"`
			AdditionalProperties *bool             `json:"additionalProperties"`
			AllOf                []json.RawMessage `json:"allOf"`
			If, Then, Else       json.RawMessage
		}
		if err := json.Unmarshal(tools[i].InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		if s.Schema != "https://json-schema.org/draft/2020-12/schema" || s.Defs.Address.Anchor != "addressDef" ||
			s.AdditionalProperties == nil || *s.AdditionalProperties || len(s.AllOf) != 1 || s.If == nil || s.Then == nil || s.Else == nil {
			t.Errorf("json_schema_2020_12_tool: the scenario's checks fail on %s", tools[i].InputSchema)
		}
		j := slices.IndexFunc(tools, func(tool mcp.Tool) bool { return tool.Name == "test_param_header" })
		if !strings.Contains(string(tools[j].InputSchema), `"x-mcp-header":"Region"`) {
			t.Errorf("test_param_header lost its x-mcp-header annotation: %s", tools[j].InputSchema)
		}
	})
}

// TestContentTools checks the tools-call-* content scenarios: content
// kinds, MIME types and texts, and test_simple_text called without an
// arguments member.
func TestContentTools(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		ctx := testCtx(t)
		cs := connect(t, newTestServer(t), e, nil)
		if got := onlyText(t, callTool(t, ctx, cs, "test_simple_text", "")); got != "This is a simple text response for testing." {
			t.Errorf("test_simple_text: %q", got)
		}

		res := callTool(t, ctx, cs, "test_image_content", "{}")
		img, ok := res.Content[0].(*mcp.ImageContent)
		if len(res.Content) != 1 || !ok || img.MimeType != "image/png" {
			t.Fatalf("test_image_content: %+v", res.Content)
		}
		checkPNG(t, img.Data)

		res = callTool(t, ctx, cs, "test_audio_content", "{}")
		audio, ok := res.Content[0].(*mcp.AudioContent)
		if len(res.Content) != 1 || !ok || audio.MimeType != "audio/wav" {
			t.Fatalf("test_audio_content: %+v", res.Content)
		}
		if b, err := base64.StdEncoding.DecodeString(audio.Data); err != nil || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
			t.Errorf("test_audio_content: not a WAV file: %v", err)
		}

		res = callTool(t, ctx, cs, "test_embedded_resource", "{}")
		er, ok := res.Content[0].(*mcp.EmbeddedResource)
		if len(res.Content) != 1 || !ok {
			t.Fatalf("test_embedded_resource: %+v", res.Content)
		}
		if want := (mcp.ResourceContents{URI: "test://embedded-resource", MimeType: "text/plain", Text: "This is an embedded resource content."}); !equalContents(er.Resource, want) {
			t.Errorf("test_embedded_resource: %+v", er.Resource)
		}

		res = callTool(t, ctx, cs, "test_multiple_content_types", "{}")
		var kinds []string
		for _, c := range res.Content {
			kinds = append(kinds, c.Type())
		}
		if !slices.Equal(kinds, []string{"text", "image", "resource"}) {
			t.Fatalf("test_multiple_content_types: kinds %v", kinds)
		}
		if txt := res.Content[0].(*mcp.TextContent).Text; txt != "Multiple content types test:" {
			t.Errorf("test_multiple_content_types: text %q", txt)
		}
		checkPNG(t, res.Content[1].(*mcp.ImageContent).Data)
		if want := (mcp.ResourceContents{URI: "test://mixed-content-resource", MimeType: "application/json", Text: `{"test":"data","value":123}`}); !equalContents(res.Content[2].(*mcp.EmbeddedResource).Resource, want) {
			t.Errorf("test_multiple_content_types: resource %+v", res.Content[2])
		}

		res = callTool(t, ctx, cs, "test_error_handling", "{}")
		if !res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "This tool intentionally returns an error for testing" {
			t.Errorf("test_error_handling: %+v", res)
		}

		if got := onlyText(t, callTool(t, ctx, cs, "test_reconnection", "{}")); got != "Reconnection test completed" {
			t.Errorf("test_reconnection: %q", got)
		}
		if got := onlyText(t, callTool(t, ctx, cs, "test_param_header", `{"region":"eu-west"}`)); got != "Region: eu-west" {
			t.Errorf("test_param_header: %q", got)
		}
		if got := onlyText(t, callTool(t, ctx, cs, "json_schema_2020_12_tool", `{"name":"Ada","contactMethod":"email","email":"ada@example.com"}`)); !strings.HasPrefix(got, "Received valid arguments: ") {
			t.Errorf("json_schema_2020_12_tool: %q", got)
		}
		// The if/then/else of the schema is enforced: phone contact without a phone.
		if res := callTool(t, ctx, cs, "json_schema_2020_12_tool", `{"contactMethod":"phone","email":"ada@example.com"}`); !res.IsError {
			t.Errorf("json_schema_2020_12_tool accepted arguments that break its schema: %+v", res.Content)
		}
	})
}

// checkPNG checks that data is the base64 of the 1×1 PNG fixture.
func checkPNG(t *testing.T, data string) {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || data != pngBase64 {
		t.Errorf("not the PNG fixture: %q (%v)", data, err)
	}
}

// equalContents compares resource contents, ignoring _meta.
func equalContents(a, b mcp.ResourceContents) bool {
	return a.URI == b.URI && a.MimeType == b.MimeType && a.Text == b.Text && a.Blob == b.Blob
}

// TestProgressTool checks tools-call-with-progress: three notifications,
// 0, 50 and 100 of 100, in order, before the result, and none without a
// progress token.
func TestProgressTool(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		cs := connect(t, newTestServer(t), e, nil)
		var mu sync.Mutex
		var got []mcp.ProgressParams
		ctx := client.WithProgress(testCtx(t), func(p mcp.ProgressParams) {
			mu.Lock()
			got = append(got, p)
			mu.Unlock()
		})
		start := time.Now()
		text := onlyText(t, callTool(t, ctx, cs, "test_tool_with_progress", "{}"))
		if text != "Tool with progress executed successfully" {
			t.Errorf("text %q", text)
		}
		if d := time.Since(start); d < 2*stepDelay {
			t.Errorf("the steps took %v, want at least %v", d, 2*stepDelay)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 3 {
			t.Fatalf("%d progress notifications before the result, want 3: %+v", len(got), got)
		}
		for i, want := range []float64{0, 50, 100} {
			if got[i].Progress != want || got[i].Total == nil || *got[i].Total != 100 || got[i].Message == "" {
				t.Errorf("notification %d: %+v, want progress %v of 100 with a message", i, got[i], want)
			}
		}
		// No token, no notifications: the call still succeeds.
		if text := onlyText(t, callTool(t, testCtx(t), cs, "test_tool_with_progress", "{}")); text == "" {
			t.Error("empty text without a progress token")
		}
	})
}

// TestLoggingToolLegacy checks tools-call-with-logging: after
// logging/setLevel debug, three info messages in order.
func TestLoggingToolLegacy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var logs []mcp.LoggingMessageParams
		cs := connect(t, newTestServer(t), eras[1], &client.Options{OnLog: func(ctx context.Context, p *mcp.LoggingMessageParams) {
			mu.Lock()
			logs = append(logs, *p)
			mu.Unlock()
		}})
		ctx := testCtx(t)
		if err := cs.SetLogLevel(ctx, mcp.LevelDebug); err != nil {
			t.Fatal(err)
		}
		if text := onlyText(t, callTool(t, ctx, cs, "test_tool_with_logging", "{}")); text != "Tool with logging executed successfully" {
			t.Errorf("text %q", text)
		}
		eventually(t, "3 log messages", func() bool { mu.Lock(); defer mu.Unlock(); return len(logs) >= 3 })
		mu.Lock()
		defer mu.Unlock()
		want := []string{`"Tool execution started"`, `"Tool processing data"`, `"Tool execution completed"`}
		for i, l := range logs {
			if i >= len(want) || l.Level != mcp.LevelInfo || string(l.Data) != want[i] {
				t.Errorf("log %d: %s %s, want info %s", i, l.Level, l.Data, want[min(i, 2)])
			}
		}
		// At a level above info the messages are filtered out (checked in
		// raw_test.go, where arrival order is observable).
	})
}

// TestLoggingToolModern checks that a stateless request receives the log
// messages of test_tool_with_logging and test_logging_tool when it sets
// a log level in _meta.
func TestLoggingToolModern(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var logs []string
		cs := connect(t, newTestServer(t), eras[0], &client.Options{OnLog: func(ctx context.Context, p *mcp.LoggingMessageParams) {
			mu.Lock()
			logs = append(logs, string(p.Data))
			mu.Unlock()
		}})
		ctx := testCtx(t)
		params := map[string]any{"arguments": map[string]any{}, "_meta": map[string]any{"io.modelcontextprotocol/logLevel": "debug"}}
		for _, tool := range []string{"test_tool_with_logging", "test_logging_tool"} {
			params["name"] = tool
			var res mcp.CallToolResult
			if err := cs.Call(ctx, mcp.MethodCallTool, params, &res); err != nil || res.IsError {
				t.Fatalf("%s: %+v %v", tool, res, err)
			}
		}
		eventually(t, "5 log messages", func() bool { mu.Lock(); defer mu.Unlock(); return len(logs) >= 5 })
		mu.Lock()
		defer mu.Unlock()
		want := []string{`"Tool execution started"`, `"Tool processing data"`, `"Tool execution completed"`, `"Logging tool started"`, `"Logging tool finished"`}
		if !slices.Equal(logs, want) {
			t.Errorf("logs %v, want %v", logs, want)
		}
	})
}

// answers fills elicitation forms by property name, as the suite's mocks
// do.
var answers = map[string]any{
	"name": "Alice", "color": "blue", "ok": true, "context": "test context", "confirmed": true,
	"username": "testuser", "email": "test@example.com",
}

// handlers are client handlers that record what the server asked.
type handlers struct {
	mu      sync.Mutex
	elicits []*mcp.ElicitParams
	samples []*mcp.CreateMessageParams
	roots   int
}

func (h *handlers) elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	h.mu.Lock()
	h.elicits = append(h.elicits, p)
	h.mu.Unlock()
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(p.RequestedSchema, &schema); err != nil {
		return nil, err
	}
	content := map[string]any{}
	for name := range schema.Properties {
		if v, ok := answers[name]; ok {
			content[name] = v
		}
	}
	return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: content}, nil
}

func (h *handlers) sample(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	h.mu.Lock()
	h.samples = append(h.samples, p)
	h.mu.Unlock()
	return &mcp.CreateMessageResult{
		Role:       mcp.RoleAssistant,
		Content:    mcp.SamplingContent{&mcp.TextContent{Text: "This is a test response from the client"}},
		Model:      "test-model",
		StopReason: mcp.StopReasonEndTurn,
	}, nil
}

func (h *handlers) listRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	h.mu.Lock()
	h.roots++
	h.mu.Unlock()
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///test/root", Name: "Test Root"}}}, nil
}

// options returns client options using every handler.
func (h *handlers) options() *client.Options {
	return &client.Options{Elicit: h.elicit, Sample: h.sample, Roots: h.listRoots}
}

// TestSamplingTool checks tools-call-sampling: the request's shape, and
// "LLM response: <text>".
func TestSamplingTool(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		h := &handlers{}
		cs := connect(t, newTestServer(t), e, h.options())
		text := onlyText(t, callTool(t, testCtx(t), cs, "test_sampling", `{"prompt":"Test prompt for sampling"}`))
		if text != "LLM response: This is a test response from the client" {
			t.Errorf("text %q", text)
		}
		if len(h.samples) != 1 {
			t.Fatalf("%d sampling requests", len(h.samples))
		}
		p := h.samples[0]
		if p.MaxTokens != 100 || len(p.Messages) != 1 || p.Messages[0].Role != mcp.RoleUser || len(p.Messages[0].Content) != 1 ||
			p.Messages[0].Content[0].(*mcp.TextContent).Text != "Test prompt for sampling" {
			t.Errorf("sampling params %+v", p)
		}
		// The prompt argument is required.
		if res := callTool(t, testCtx(t), cs, "test_sampling", "{}"); !res.IsError {
			t.Errorf("test_sampling without a prompt: %+v", res)
		}
	})
}

// TestSamplingWithoutCapability checks a client that cannot sample: -32021
// requiring sampling in the modern era, an isError result in a session.
func TestSamplingWithoutCapability(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		cs := connect(t, newTestServer(t), e, nil)
		for tool, args := range map[string]string{"test_sampling": `{"prompt":"p"}`, "test_missing_capability": `{}`} {
			res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
			if e.version != "" {
				if err != nil || !res.IsError {
					t.Errorf("%s: %+v %v, want an isError result", tool, res, err)
				}
				continue
			}
			var data mcp.MissingCapabilityData
			if !mcp.DecodeErrorData(err, mcp.CodeMissingRequiredClientCapability, &data) || data.RequiredCapabilities.Sampling == nil {
				t.Errorf("%s: %v, want -32021 requiring sampling", tool, err)
			}
		}
	})
}

// TestMissingCapabilityWithSampling checks that test_missing_capability
// works for a client that can sample.
func TestMissingCapabilityWithSampling(t *testing.T) {
	forEachEra(t, func(t *testing.T, e era) {
		h := &handlers{}
		cs := connect(t, newTestServer(t), e, h.options())
		if text := onlyText(t, callTool(t, testCtx(t), cs, "test_missing_capability", "{}")); text != "LLM response: This is a test response from the client" {
			t.Errorf("text %q", text)
		}
	})
}

// errorsAs is errors.As for tests.
func errorsAs[E error](err error) (E, bool) {
	var e E
	ok := errors.As(err, &e)
	return e, ok
}
