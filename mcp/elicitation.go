package mcp

import "encoding/json"

// Elicitation follows schema/2025-11-25 (form mode since 2025-06-18, URL
// mode since 2025-11-25). In 2026-07-28 elicitation/create survives as an
// input request, without elicitationId, task or _meta.

// ElicitMode is how a client gathers what a server asks for.
type ElicitMode string

// The elicitation modes.
const (
	// ElicitModeForm: the client shows a form built from RequestedSchema.
	// Forms must not ask for secrets. An empty Mode means form.
	ElicitModeForm ElicitMode = "form"
	// ElicitModeURL: the client sends the user to URL, out of band.
	ElicitModeURL ElicitMode = "url"
)

// ElicitParams are the params of elicitation/create, in either mode (the
// schema's ElicitRequestFormParams | ElicitRequestURLParams).
type ElicitParams struct {
	// Mode is ElicitModeForm (or empty) or ElicitModeURL.
	Mode ElicitMode `json:"mode,omitempty"`
	// Message tells the user what is asked and why.
	Message string `json:"message"`
	// RequestedSchema is the form's schema (form mode): an object schema
	// whose properties are primitives, kept verbatim.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is where the user goes (URL mode).
	URL string `json:"url,omitempty"`
	// ElicitationID identifies a URL-mode elicitation (2025-11-25 only);
	// notifications/elicitation/complete refers to it.
	ElicitationID string `json:"elicitationId,omitempty"`
	// Task asks for task-augmented execution (2025-11-25 core tasks).
	Task *TaskMetadata `json:"task,omitempty"`
	Meta RequestMeta   `json:"_meta,omitzero"`
}

// ElicitAction is the user's answer to an elicitation.
type ElicitAction string

// The elicitation actions.
const (
	ElicitAccept  ElicitAction = "accept"  // the user submitted or confirmed
	ElicitDecline ElicitAction = "decline" // the user explicitly declined
	ElicitCancel  ElicitAction = "cancel"  // the user dismissed it
)

// ElicitResult answers elicitation/create.
type ElicitResult struct {
	Action ElicitAction `json:"action"`
	// Content holds the submitted form (form mode, action accept): values
	// are strings, numbers (float64), booleans or string lists.
	Content    map[string]any `json:"content,omitempty"`
	Meta       Meta           `json:"_meta,omitempty"`
	ResultType ResultType     `json:"resultType,omitempty"`
}

// ElicitationCompleteParams are the params of
// notifications/elicitation/complete (2025-11-25).
type ElicitationCompleteParams struct {
	ElicitationID string `json:"elicitationId"`
	Meta          Meta   `json:"_meta,omitempty"`
}
