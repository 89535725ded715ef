package mcp

import "encoding/json"

// Sampling follows schema/2025-11-25. In 2026-07-28 sampling is deprecated
// and sampling/createMessage survives only as an input request (where its
// params carry no _meta and no task).

// CreateMessageParams are the params of sampling/createMessage.
type CreateMessageParams struct {
	// Messages is the conversation so far; written [] when empty.
	Messages []SamplingMessage `json:"messages"`
	// ModelPreferences are advisory; the client may ignore them.
	ModelPreferences *ModelPreferences `json:"modelPreferences,omitempty"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	// IncludeContext asks for context from MCP servers; values other than
	// IncludeContextNone need the sampling.context capability (and are
	// deprecated).
	IncludeContext IncludeContext `json:"includeContext,omitempty"`
	Temperature    *float64       `json:"temperature,omitempty"`
	// MaxTokens bounds the tokens to sample.
	MaxTokens     int      `json:"maxTokens"`
	StopSequences []string `json:"stopSequences,omitempty"`
	// Metadata is passed through to the LLM provider, verbatim.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// Tools and ToolChoice need the sampling.tools capability (2025-11-25
	// on).
	Tools      []Tool      `json:"tools,omitempty"`
	ToolChoice *ToolChoice `json:"toolChoice,omitempty"`
	// Task asks for task-augmented execution (2025-11-25 core tasks).
	Task *TaskMetadata `json:"task,omitempty"`
	Meta RequestMeta   `json:"_meta,omitzero"`
}

// MarshalJSON implements json.Marshaler, writing messages as [] when
// empty.
func (p CreateMessageParams) MarshalJSON() ([]byte, error) {
	type plain CreateMessageParams
	if p.Messages == nil {
		p.Messages = []SamplingMessage{}
	}
	return json.Marshal(plain(p))
}

// IncludeContext selects the MCP context a client attaches to a sampling
// prompt.
type IncludeContext string

// The context inclusion choices.
const (
	IncludeContextNone       IncludeContext = "none"
	IncludeContextThisServer IncludeContext = "thisServer" // deprecated
	IncludeContextAllServers IncludeContext = "allServers" // deprecated
)

// ToolChoice controls tool use in sampling (2025-11-25 on).
type ToolChoice struct {
	// Mode defaults to ToolChoiceAuto.
	Mode ToolChoiceMode `json:"mode,omitempty"`
}

// ToolChoiceMode is how a model may use tools.
type ToolChoiceMode string

// The tool choice modes.
const (
	ToolChoiceAuto     ToolChoiceMode = "auto"     // the model decides
	ToolChoiceRequired ToolChoiceMode = "required" // at least one tool use
	ToolChoiceNone     ToolChoiceMode = "none"     // no tool use
)

// SamplingMessage is a message to or from an LLM.
type SamplingMessage struct {
	Role Role `json:"role"`
	// Content is one block or several; see SamplingContent.
	Content SamplingContent `json:"content"`
	Meta    Meta            `json:"_meta,omitempty"`
}

// CreateMessageResult answers sampling/createMessage.
type CreateMessageResult struct {
	Role    Role            `json:"role"`
	Content SamplingContent `json:"content"`
	// Model names the model that produced the message.
	Model string `json:"model"`
	// StopReason says why sampling stopped, if known; one of the
	// StopReason constants or a provider-specific value.
	StopReason string     `json:"stopReason,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// The standard stop reasons.
const (
	StopReasonEndTurn      = "endTurn"
	StopReasonStopSequence = "stopSequence"
	StopReasonMaxTokens    = "maxTokens"
	StopReasonToolUse      = "toolUse"
)

// ModelPreferences weigh model choice; every field is advisory.
type ModelPreferences struct {
	// Hints are evaluated in order; the first match wins.
	Hints []ModelHint `json:"hints,omitempty"`
	// CostPriority, SpeedPriority and IntelligencePriority range from 0
	// (unimportant) to 1 (most important).
	CostPriority         *float64 `json:"costPriority,omitempty"`
	SpeedPriority        *float64 `json:"speedPriority,omitempty"`
	IntelligencePriority *float64 `json:"intelligencePriority,omitempty"`
}

// ModelHint suggests a model.
type ModelHint struct {
	// Name is matched as a substring of model names ("sonnet").
	Name string `json:"name,omitempty"`
}
