package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// canonical returns data in a form where equal JSON values compare equal:
// object keys sorted, numbers as written, no insignificant space. Members
// whose value is false are dropped: the Go types use omitempty for
// optional booleans, so {"isError":false} legitimately comes back as {}.
func canonical(t *testing.T, data []byte) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("canonical: %v\n%s", err, data)
	}
	b, err := json.Marshal(dropFalse(v))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func dropFalse(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == false {
				delete(v, k)
				continue
			}
			v[k] = dropFalse(x)
		}
	case []any:
		for i, x := range v {
			v[i] = dropFalse(x)
		}
	}
	return v
}

// contentValue holds one content block for the round trip.
type contentValue struct{ c Content }

func (v *contentValue) UnmarshalJSON(b []byte) (err error) {
	v.c, err = UnmarshalContent(b)
	return err
}

func (v *contentValue) MarshalJSON() ([]byte, error) { return json.Marshal(v.c) }

// goTypes maps schema type names to a constructor of the Go type that
// holds them.
var goTypes = map[string]func() any{
	"CallToolParams":                    func() any { return new(CallToolParams) },
	"CallToolResult":                    func() any { return new(CallToolResult) },
	"CancelledParams":                   func() any { return new(CancelledParams) },
	"CancelTaskParams":                  func() any { return new(CancelTaskParams) },
	"ClientCapabilities":                func() any { return new(ClientCapabilities) },
	"CompleteParams":                    func() any { return new(CompleteParams) },
	"CompleteResult":                    func() any { return new(CompleteResult) },
	"Content":                           func() any { return new(contentValue) },
	"CreateMessageParams":               func() any { return new(CreateMessageParams) },
	"CreateMessageResult":               func() any { return new(CreateMessageResult) },
	"CreateTaskResult":                  func() any { return new(CreateTaskResult) },
	"DiscoverParams":                    func() any { return new(DiscoverParams) },
	"DiscoverResult":                    func() any { return new(DiscoverResult) },
	"ElicitationCompleteParams":         func() any { return new(ElicitationCompleteParams) },
	"ElicitParams":                      func() any { return new(ElicitParams) },
	"ElicitResult":                      func() any { return new(ElicitResult) },
	"EmptyResult":                       func() any { return new(EmptyResult) },
	"GetPromptParams":                   func() any { return new(GetPromptParams) },
	"GetPromptResult":                   func() any { return new(GetPromptResult) },
	"GetTaskParams":                     func() any { return new(GetTaskParams) },
	"GetTaskPayloadParams":              func() any { return new(GetTaskPayloadParams) },
	"InitializeParams":                  func() any { return new(InitializeParams) },
	"InitializeResult":                  func() any { return new(InitializeResult) },
	"InputRequests":                     func() any { return new(InputRequests) },
	"InputRequiredResult":               func() any { return new(InputRequiredResult) },
	"InputResponses":                    func() any { return new(InputResponses) },
	"ListPromptsParams":                 func() any { return new(ListPromptsParams) },
	"ListPromptsResult":                 func() any { return new(ListPromptsResult) },
	"ListResourcesParams":               func() any { return new(ListResourcesParams) },
	"ListResourcesResult":               func() any { return new(ListResourcesResult) },
	"ListResourceTemplatesParams":       func() any { return new(ListResourceTemplatesParams) },
	"ListResourceTemplatesResult":       func() any { return new(ListResourceTemplatesResult) },
	"ListRootsResult":                   func() any { return new(ListRootsResult) },
	"ListTasksParams":                   func() any { return new(ListTasksParams) },
	"ListTasksResult":                   func() any { return new(ListTasksResult) },
	"ListToolsParams":                   func() any { return new(ListToolsParams) },
	"ListToolsResult":                   func() any { return new(ListToolsResult) },
	"LoggingMessageParams":              func() any { return new(LoggingMessageParams) },
	"ModelPreferences":                  func() any { return new(ModelPreferences) },
	"NotificationParams":                func() any { return new(NotificationParams) },
	"ProgressParams":                    func() any { return new(ProgressParams) },
	"ReadResourceParams":                func() any { return new(ReadResourceParams) },
	"ReadResourceResult":                func() any { return new(ReadResourceResult) },
	"RequestParams":                     func() any { return new(RequestParams) },
	"Resource":                          func() any { return new(Resource) },
	"ResourceContents":                  func() any { return new(ResourceContents) },
	"ResourceUpdatedNotificationParams": func() any { return new(ResourceUpdatedNotificationParams) },
	"Root":                              func() any { return new(Root) },
	"SamplingMessage":                   func() any { return new(SamplingMessage) },
	"ServerCapabilities":                func() any { return new(ServerCapabilities) },
	"SubscribeParams":                   func() any { return new(SubscribeParams) },
	"SubscriptionsAcknowledgedParams":   func() any { return new(SubscriptionsAcknowledgedParams) },
	"SubscriptionsListenParams":         func() any { return new(SubscriptionsListenParams) },
	"Task":                              func() any { return new(Task) },
	"Tool":                              func() any { return new(Tool) },
}

// roundTrip decodes data into a new value of the named type, encodes it
// again and compares.
func roundTrip(t *testing.T, typeName string, data []byte) {
	t.Helper()
	newValue, ok := goTypes[typeName]
	if !ok {
		t.Fatalf("no Go type for %s", typeName)
	}
	v := newValue()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v\n%s", typeName, err, data)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode %s: %v", typeName, err)
	}
	if got, want := canonical(t, out), canonical(t, data); got != want {
		t.Errorf("%s round trip:\n got %s\nwant %s", typeName, got, want)
	}
}

// example2026 says what an example directory of the 2026-07-28 schema
// holds: a value of a Go type, the params or result of a JSON-RPC message
// (or of an input request), or an error.
type example2026 struct {
	part string // "value", "params", "result", "error", "skip"
	typ  string
}

var examples2026 = map[string]example2026{
	"AudioContent":                          {"value", "Content"},
	"BlobResourceContents":                  {"value", "ResourceContents"},
	"BooleanSchema":                         {"skip", "requestedSchema is kept raw"},
	"CallToolRequest":                       {"params", "CallToolParams"},
	"CallToolRequestParams":                 {"value", "CallToolParams"},
	"CallToolResult":                        {"value", "CallToolResult"},
	"CallToolResultResponse":                {"result", "CallToolResult"},
	"CancelledNotification":                 {"params", "CancelledParams"},
	"CancelledNotificationParams":           {"value", "CancelledParams"},
	"ClientCapabilities":                    {"value", "ClientCapabilities"},
	"CompleteRequest":                       {"params", "CompleteParams"},
	"CompleteRequestParams":                 {"value", "CompleteParams"},
	"CompleteResult":                        {"value", "CompleteResult"},
	"CompleteResultResponse":                {"result", "CompleteResult"},
	"CreateMessageRequest":                  {"params", "CreateMessageParams"},
	"CreateMessageRequestParams":            {"value", "CreateMessageParams"},
	"CreateMessageResult":                   {"value", "CreateMessageResult"},
	"DiscoverRequest":                       {"params", "DiscoverParams"},
	"DiscoverResult":                        {"value", "DiscoverResult"},
	"DiscoverResultResponse":                {"result", "DiscoverResult"},
	"ElicitRequest":                         {"params", "ElicitParams"},
	"ElicitRequestFormParams":               {"value", "ElicitParams"},
	"ElicitRequestURLParams":                {"value", "ElicitParams"},
	"ElicitResult":                          {"value", "ElicitResult"},
	"EmbeddedResource":                      {"value", "Content"},
	"GetPromptRequest":                      {"params", "GetPromptParams"},
	"GetPromptRequestParams":                {"value", "GetPromptParams"},
	"GetPromptResult":                       {"value", "GetPromptResult"},
	"GetPromptResultResponse":               {"result", "GetPromptResult"},
	"HeaderMismatchError":                   {"error", ""},
	"ImageContent":                          {"value", "Content"},
	"InputRequests":                         {"value", "InputRequests"},
	"InputRequiredResult":                   {"value", "InputRequiredResult"},
	"InputResponses":                        {"value", "InputResponses"},
	"InternalError":                         {"error", ""},
	"InvalidParamsError":                    {"error", ""},
	"ListPromptsRequest":                    {"params", "ListPromptsParams"},
	"ListPromptsResult":                     {"value", "ListPromptsResult"},
	"ListPromptsResultResponse":             {"result", "ListPromptsResult"},
	"ListResourceTemplatesRequest":          {"params", "ListResourceTemplatesParams"},
	"ListResourceTemplatesResult":           {"value", "ListResourceTemplatesResult"},
	"ListResourceTemplatesResultResponse":   {"result", "ListResourceTemplatesResult"},
	"ListResourcesRequest":                  {"params", "ListResourcesParams"},
	"ListResourcesResult":                   {"value", "ListResourcesResult"},
	"ListResourcesResultResponse":           {"result", "ListResourcesResult"},
	"ListRootsRequest":                      {"params", "RequestParams"},
	"ListRootsResult":                       {"value", "ListRootsResult"},
	"ListToolsRequest":                      {"params", "ListToolsParams"},
	"ListToolsResult":                       {"value", "ListToolsResult"},
	"ListToolsResultResponse":               {"result", "ListToolsResult"},
	"LoggingMessageNotification":            {"params", "LoggingMessageParams"},
	"LoggingMessageNotificationParams":      {"value", "LoggingMessageParams"},
	"MethodNotFoundError":                   {"error", ""},
	"MissingRequiredClientCapabilityError":  {"error", ""},
	"ModelPreferences":                      {"value", "ModelPreferences"},
	"NumberSchema":                          {"skip", "requestedSchema is kept raw"},
	"PaginatedRequestParams":                {"value", "ListToolsParams"},
	"ParseError":                            {"error", ""},
	"ProgressNotification":                  {"params", "ProgressParams"},
	"ProgressNotificationParams":            {"value", "ProgressParams"},
	"PromptListChangedNotification":         {"params", "NotificationParams"},
	"ReadResourceRequest":                   {"params", "ReadResourceParams"},
	"ReadResourceResult":                    {"value", "ReadResourceResult"},
	"ReadResourceResultResponse":            {"result", "ReadResourceResult"},
	"Resource":                              {"value", "Resource"},
	"ResourceLink":                          {"value", "Content"},
	"ResourceListChangedNotification":       {"params", "NotificationParams"},
	"ResourceUpdatedNotification":           {"params", "ResourceUpdatedNotificationParams"},
	"ResourceUpdatedNotificationParams":     {"value", "ResourceUpdatedNotificationParams"},
	"Root":                                  {"value", "Root"},
	"SamplingMessage":                       {"value", "SamplingMessage"},
	"ServerCapabilities":                    {"value", "ServerCapabilities"},
	"StringSchema":                          {"skip", "requestedSchema is kept raw"},
	"SubscriptionsAcknowledgedNotification": {"params", "SubscriptionsAcknowledgedParams"},
	"SubscriptionsListenRequest":            {"params", "SubscriptionsListenParams"},
	"SubscriptionsListenResult":             {"value", "EmptyResult"},
	"SubscriptionsListenResultResponse":     {"result", "EmptyResult"},
	"TextContent":                           {"value", "Content"},
	"TextResourceContents":                  {"value", "ResourceContents"},
	"TitledMultiSelectEnumSchema":           {"skip", "requestedSchema is kept raw"},
	"TitledSingleSelectEnumSchema":          {"skip", "requestedSchema is kept raw"},
	"Tool":                                  {"value", "Tool"},
	"ToolListChangedNotification":           {"params", "NotificationParams"},
	"ToolResultContent":                     {"value", "Content"},
	"ToolUseContent":                        {"value", "Content"},
	"UnsupportedProtocolVersionError":       {"error", ""},
	"UntitledMultiSelectEnumSchema":         {"skip", "requestedSchema is kept raw"},
	"UntitledSingleSelectEnumSchema":        {"skip", "requestedSchema is kept raw"},
}

// TestSpecExamples2026 round-trips every example file of the 2026-07-28
// schema through its Go type.
func TestSpecExamples2026(t *testing.T) {
	root := filepath.Join("testdata", "examples-2026-07-28")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no examples")
	}
	for _, dir := range dirs {
		ex, ok := examples2026[dir.Name()]
		if !ok {
			t.Errorf("example directory %s is not mapped to a Go type", dir.Name())
			continue
		}
		files, err := filepath.Glob(filepath.Join(root, dir.Name(), "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			t.Run(dir.Name()+"/"+strings.TrimSuffix(filepath.Base(file), ".json"), func(t *testing.T) {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				checkExample2026(t, ex, data)
			})
		}
	}
}

func checkExample2026(t *testing.T, ex example2026, data []byte) {
	var msg struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	switch ex.part {
	case "skip":
		t.Skip(ex.typ)
	case "value":
		roundTrip(t, ex.typ, data)
	case "params":
		if err := json.Unmarshal(data, &msg); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(knownMethods, msg.Method) {
			t.Errorf("method %q is not a known method", msg.Method)
		}
		if msg.Params == nil {
			msg.Params = json.RawMessage("{}")
		}
		roundTrip(t, ex.typ, msg.Params)
	case "result":
		if err := json.Unmarshal(data, &msg); err != nil {
			t.Fatal(err)
		}
		roundTrip(t, ex.typ, msg.Result)
		if rt, err := ResultTypeOf(msg.Result); err != nil || rt != ResultTypeComplete {
			t.Errorf("ResultTypeOf = %q, %v; want complete", rt, err)
		}
	case "error":
		if err := json.Unmarshal(data, &msg); err == nil && msg.Error != nil {
			data = msg.Error
		}
		checkErrorExample(t, data)
	}
}

// checkErrorExample rebuilds MCP errors with this package's constructors
// and compares them with the example.
func checkErrorExample(t *testing.T, data []byte) {
	var w wireError
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	e := &jsonrpc.Error{Code: w.Code, Message: w.Message, Data: w.Data}
	var rebuilt *jsonrpc.Error
	switch w.Code {
	case CodeUnsupportedProtocolVersion:
		var d UnsupportedVersionData
		if !DecodeErrorData(e, w.Code, &d) {
			t.Fatalf("cannot decode data %s", w.Data)
		}
		rebuilt = UnsupportedVersionError(d.Requested, d.Supported)
	case CodeMissingRequiredClientCapability:
		var d MissingCapabilityData
		if !DecodeErrorData(e, w.Code, &d) {
			t.Fatalf("cannot decode data %s", w.Data)
		}
		rebuilt = MissingCapabilityError(d.RequiredCapabilities)
		rebuilt.Message = w.Message
	case CodeHeaderMismatch:
		rebuilt = HeaderMismatchError(strings.TrimPrefix(w.Message, "Header mismatch: "))
	default:
		if w.Code > -32600 || w.Code < -32700 {
			t.Errorf("unexpected code %d", w.Code)
		}
		return
	}
	if rebuilt.Message != w.Message {
		t.Errorf("message %q, want %q", rebuilt.Message, w.Message)
	}
	if len(w.Data) > 0 && canonical(t, rebuilt.Data) != canonical(t, w.Data) {
		t.Errorf("data %s, want %s", rebuilt.Data, w.Data)
	}
}

// TestSpecExamples2025 round-trips the JSON examples of the 2025-11-25
// specification pages.
func TestSpecExamples2025(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "examples-2025-11-25.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var ex struct {
			Source string          `json:"source"`
			Block  int             `json:"block"`
			Type   string          `json:"type"`
			JSON   json.RawMessage `json:"json"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatal(err)
		}
		n++
		name := strings.TrimSuffix(filepath.Base(ex.Source), ".mdx") + "/" + ex.Type
		t.Run(name, func(t *testing.T) { roundTrip(t, ex.Type, ex.JSON) })
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 60 {
		t.Errorf("read %d examples, want at least 60", n)
	}
}
