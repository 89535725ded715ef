package mcp

import (
	"encoding/json"
	"errors"
)

// Prompts follow schema/2025-11-25, with the 2026-07-28 additions
// (cacheable prompts/list, input responses on prompts/get).

// Prompt is a prompt or prompt template the server offers.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        Meta             `json:"_meta,omitempty"`
}

// PromptArgument is an argument a prompt template accepts.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a prompt. Content is one block of any
// ContentBlock kind (text, image, audio, resource_link, resource).
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// UnmarshalJSON implements json.Unmarshaler, dispatching Content on its
// type.
func (m *PromptMessage) UnmarshalJSON(data []byte) error {
	var w struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if len(w.Content) == 0 || isNull(w.Content) {
		return errors.New("mcp: prompt message has no content")
	}
	c, err := decodeContent(w.Content, blockKinds, "a prompt message")
	if err != nil {
		return err
	}
	*m = PromptMessage{Role: w.Role, Content: c}
	return nil
}

// ListPromptsParams are the params of prompts/list.
type ListPromptsParams struct {
	Cursor Cursor      `json:"cursor,omitempty"`
	Meta   RequestMeta `json:"_meta,omitzero"`
}

// ListPromptsResult answers prompts/list. It is cacheable in the modern
// era (see ListToolsResult).
type ListPromptsResult struct {
	Prompts    []Prompt   `json:"prompts"`
	NextCursor Cursor     `json:"nextCursor,omitempty"`
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing prompts as [] when empty.
func (r ListPromptsResult) MarshalJSON() ([]byte, error) {
	type plain ListPromptsResult
	if r.Prompts == nil {
		r.Prompts = []Prompt{}
	}
	return json.Marshal(plain(r))
}

// GetPromptParams are the params of prompts/get.
type GetPromptParams struct {
	Name string `json:"name"`
	// Arguments fill the prompt template.
	Arguments map[string]string `json:"arguments,omitempty"`
	// InputResponses and RequestState carry the client's answers when it
	// retries after an InputRequiredResult (2026-07-28).
	InputResponses InputResponses `json:"inputResponses,omitempty"`
	RequestState   string         `json:"requestState,omitempty"`
	Meta           RequestMeta    `json:"_meta,omitzero"`
}

// GetPromptResult answers prompts/get.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        Meta            `json:"_meta,omitempty"`
	ResultType  ResultType      `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing messages as [] when
// empty.
func (r GetPromptResult) MarshalJSON() ([]byte, error) {
	type plain GetPromptResult
	if r.Messages == nil {
		r.Messages = []PromptMessage{}
	}
	return json.Marshal(plain(r))
}
