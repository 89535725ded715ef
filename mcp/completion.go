package mcp

import "encoding/json"

// Completion follows schema/2025-11-25 (unchanged in 2026-07-28).

// RefType is the kind of a CompleteReference.
type RefType string

// The reference kinds.
const (
	RefTypePrompt   RefType = "ref/prompt"
	RefTypeResource RefType = "ref/resource"
)

// CompleteReference names what an argument belongs to: a prompt (Type
// RefTypePrompt with Name, and optionally Title) or a resource template
// (Type RefTypeResource with URI, the URI or URI template). The schema's
// PromptReference | ResourceTemplateReference, as one tagged struct.
type CompleteReference struct {
	Type  RefType `json:"type"`
	Name  string  `json:"name,omitempty"`
	Title string  `json:"title,omitempty"`
	URI   string  `json:"uri,omitempty"`
}

// PromptRef returns a reference to the prompt name.
func PromptRef(name string) CompleteReference {
	return CompleteReference{Type: RefTypePrompt, Name: name}
}

// ResourceRef returns a reference to the resource template uri.
func ResourceRef(uri string) CompleteReference {
	return CompleteReference{Type: RefTypeResource, URI: uri}
}

// CompleteArgument is the argument being completed.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext holds arguments already resolved (2025-06-18 on).
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteParams are the params of completion/complete.
type CompleteParams struct {
	Ref      CompleteReference `json:"ref"`
	Argument CompleteArgument  `json:"argument"`
	Context  *CompleteContext  `json:"context,omitempty"`
	Meta     RequestMeta       `json:"_meta,omitzero"`
}

// CompleteResult answers completion/complete.
type CompleteResult struct {
	Completion Completion `json:"completion"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// Completion holds completion values.
type Completion struct {
	// Values holds at most 100 values; written [] when empty.
	Values []string `json:"values"`
	// Total is the number of values available, if known (0: unknown).
	Total int `json:"total,omitempty"`
	// HasMore: more values exist than Values holds.
	HasMore bool `json:"hasMore,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing values as [] when empty.
func (c Completion) MarshalJSON() ([]byte, error) {
	type plain Completion
	if c.Values == nil {
		c.Values = []string{}
	}
	return json.Marshal(plain(c))
}
