package mcp

import (
	"encoding/json"
	"fmt"
)

// Tools follow schema/2025-11-25, with the 2026-07-28 additions (cacheable
// tools/list, input responses on tools/call).

// Tool describes a tool the client can call.
type Tool struct {
	// Name identifies the tool (1-128 characters of A-Z a-z 0-9 _ - .);
	// Title is its display name (before Annotations.Title, then Name).
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the arguments, an object schema
	// (2020-12 unless it says otherwise). It is kept as raw bytes so that
	// schemas are relayed exactly ($schema, $defs, additionalProperties,
	// x-mcp-header and all). A nil InputSchema is written as
	// {"type":"object"}, since the member is required.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of StructuredContent in results,
	// raw like InputSchema (2025-06-18 on).
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	// Execution holds execution properties (2025-11-25 core tasks only).
	Execution *ToolExecution `json:"execution,omitempty"`
	Icons     []Icon         `json:"icons,omitempty"`
	Meta      Meta           `json:"_meta,omitempty"`
}

// emptyObjectSchema is the input schema of a tool that takes no arguments.
var emptyObjectSchema = json.RawMessage(`{"type":"object"}`)

// MarshalJSON implements json.Marshaler, writing a nil InputSchema as
// {"type":"object"}.
func (t Tool) MarshalJSON() ([]byte, error) {
	type plain Tool
	if len(t.InputSchema) == 0 {
		t.InputSchema = emptyObjectSchema
	}
	return json.Marshal(plain(t))
}

// ToolAnnotations are hints about a tool's behaviour (2025-03-26 on). They
// are hints only: clients never trust them from untrusted servers. A nil
// hint takes its default, given per field.
type ToolAnnotations struct {
	Title string `json:"title,omitempty"`
	// ReadOnlyHint: the tool does not modify its environment (default
	// false).
	ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint: the tool may destroy, not only add (default true;
	// meaningful when not read-only).
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint: repeating a call with the same arguments has no
	// further effect (default false; meaningful when not read-only).
	IdempotentHint *bool `json:"idempotentHint,omitempty"`
	// OpenWorldHint: the tool reaches an open world of external entities
	// (default true).
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// ToolExecution holds execution properties of a tool (2025-11-25).
type ToolExecution struct {
	// TaskSupport says whether the tool runs as a task; "" means
	// TaskSupportForbidden.
	TaskSupport TaskSupport `json:"taskSupport,omitempty"`
}

// TaskSupport says whether a tool may or must be called as a task
// (2025-11-25 core tasks).
type TaskSupport string

// The task support levels.
const (
	TaskSupportForbidden TaskSupport = "forbidden"
	TaskSupportOptional  TaskSupport = "optional"
	TaskSupportRequired  TaskSupport = "required"
)

// ListToolsParams are the params of tools/list.
type ListToolsParams struct {
	Cursor Cursor      `json:"cursor,omitempty"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// ListToolsResult answers tools/list.
//
// In the modern era list results are cacheable: TTLMs (milliseconds the
// client may reuse the result; 0 means stale at once) and CacheScope are
// both required. They are absent in the legacy era, hence the pointer and
// omitempty.
type ListToolsResult struct {
	Tools      []Tool     `json:"tools"`
	NextCursor Cursor     `json:"nextCursor,omitempty"`
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing tools as [] when empty.
func (r ListToolsResult) MarshalJSON() ([]byte, error) {
	type plain ListToolsResult
	if r.Tools == nil {
		r.Tools = []Tool{}
	}
	return json.Marshal(plain(r))
}

// CallToolParams are the params of tools/call.
type CallToolParams struct {
	Name string `json:"name"`
	// Arguments is the JSON object of arguments, kept verbatim; absent
	// (nil) when the client sent none.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Task asks for task-augmented execution (2025-11-25 core tasks).
	Task *TaskMetadata `json:"task,omitempty"`
	// InputResponses and RequestState carry the client's answers when it
	// retries after an InputRequiredResult (2026-07-28).
	InputResponses InputResponses `json:"inputResponses,omitempty"`
	RequestState   string         `json:"requestState,omitempty"`
	Meta           RequestMeta    `json:"_meta,omitzero"`
}

// NewCallToolParams returns the params of a call of the tool name with
// args: none when args is nil, a json.RawMessage as it is, anything else
// encoded with encoding/json.
func NewCallToolParams(name string, args any) (*CallToolParams, error) {
	p := &CallToolParams{Name: name}
	switch a := args.(type) {
	case nil:
	case json.RawMessage:
		p.Arguments = a
	default:
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("encoding the arguments of tool %q: %w", name, err)
		}
		p.Arguments = raw
	}
	return p, nil
}

// CallToolResult answers tools/call. A failure of the tool itself (bad
// input, an API error) is a result with IsError set, so that the model
// sees it; only protocol failures (unknown tool, malformed request) are
// JSON-RPC errors.
type CallToolResult struct {
	// Content is the unstructured result; written [] when empty.
	Content ContentList `json:"content"`
	// StructuredContent is the structured result, any JSON value kept
	// verbatim (an object before 2026-07-28); it conforms to the tool's
	// OutputSchema when there is one (2025-06-18 on).
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              Meta            `json:"_meta,omitempty"`
	ResultType        ResultType      `json:"resultType,omitempty"`
}
