package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Capabilities follow schema/2025-11-25 and schema/2026-07-28 (the union of
// both; older revisions have subsets). A capability is present when its
// pointer is non-nil and absent when nil; a present capability without
// settings marshals as {}.

// Supported marks a capability that has no settings of its own: present
// when a *Supported field is non-nil, written as {}. Any members a peer
// sends inside such an object are ignored.
type Supported struct{}

// ExtensionTasks names the 2026-07-28 tasks extension, declared in the
// extensions capability of both sides.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// ClientCapabilities are the optional features a client supports. In the
// legacy era it sends them once in InitializeParams; in the modern era it
// sends them with every request (RequestMeta.ClientCapabilities), and they
// apply to that request only.
type ClientCapabilities struct {
	// Experimental holds non-standard capabilities, verbatim.
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Roots: the client can list roots (deprecated in 2026-07-28).
	Roots *RootsCapability `json:"roots,omitempty"`
	// Sampling: the client can sample an LLM (deprecated in 2026-07-28).
	Sampling *SamplingCapability `json:"sampling,omitempty"`
	// Elicitation: the client can ask its user (2025-06-18 on).
	Elicitation *ElicitationCapability `json:"elicitation,omitempty"`
	// Tasks: the client accepts task-augmented requests (2025-11-25 core
	// tasks). The modern tasks extension is declared in Extensions.
	Tasks *ClientTasksCapability `json:"tasks,omitempty"`
	// Extensions maps extension identifiers (keys follow the _meta prefix
	// rules, e.g. ExtensionTasks) to their settings, verbatim (2026-07-28).
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// RootsCapability describes roots support. ListChanged exists only in the
// legacy era; in the modern era the capability is always {}.
type RootsCapability struct {
	// ListChanged: the client sends notifications/roots/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability describes sampling support.
type SamplingCapability struct {
	// Context: the client honours includeContext other than "none".
	Context *Supported `json:"context,omitempty"`
	// Tools: the client accepts tools and toolChoice (2025-11-25 on).
	Tools *Supported `json:"tools,omitempty"`
}

// ElicitationCapability describes elicitation support. An empty object
// means form mode only.
type ElicitationCapability struct {
	Form *Supported `json:"form,omitempty"`
	URL  *Supported `json:"url,omitempty"`
}

// ClientTasksCapability describes the client side of 2025-11-25 tasks.
type ClientTasksCapability struct {
	// List: the client answers tasks/list.
	List *Supported `json:"list,omitempty"`
	// Cancel: the client answers tasks/cancel.
	Cancel *Supported `json:"cancel,omitempty"`
	// Requests lists the requests the client accepts as tasks.
	Requests *ClientTaskRequests `json:"requests,omitempty"`
}

// ClientTaskRequests lists the server-to-client requests a client accepts
// with task augmentation.
type ClientTaskRequests struct {
	Sampling    *SamplingTaskRequests    `json:"sampling,omitempty"`
	Elicitation *ElicitationTaskRequests `json:"elicitation,omitempty"`
}

// SamplingTaskRequests: task support for sampling requests.
type SamplingTaskRequests struct {
	CreateMessage *Supported `json:"createMessage,omitempty"`
}

// ElicitationTaskRequests: task support for elicitation requests.
type ElicitationTaskRequests struct {
	Create *Supported `json:"create,omitempty"`
}

// ElicitForm reports whether the client accepts form-mode elicitation: it
// declared elicitation with form, or with neither mode (an empty object
// means form only). It is false for a nil c.
func (c *ClientCapabilities) ElicitForm() bool {
	return c != nil && c.Elicitation != nil &&
		(c.Elicitation.Form != nil || c.Elicitation.URL == nil)
}

// ElicitURL reports whether the client accepts URL-mode elicitation.
func (c *ClientCapabilities) ElicitURL() bool {
	return c != nil && c.Elicitation != nil && c.Elicitation.URL != nil
}

// SamplingTools reports whether the client accepts tools in sampling.
func (c *ClientCapabilities) SamplingTools() bool {
	return c != nil && c.Sampling != nil && c.Sampling.Tools != nil
}

// HasExtension reports whether the client declared the extension id.
func (c *ClientCapabilities) HasExtension(id string) bool {
	if c == nil {
		return false
	}
	_, ok := c.Extensions[id]
	return ok
}

// Clone returns a deep copy of c: its maps and their values, and every
// capability it points to, are its own, so that changing the copy (even
// through its pointers) leaves c as it was. Only the *Supported markers,
// which hold nothing that can change, are shared. A nil map stays nil and
// an empty one empty.
func (c *ClientCapabilities) Clone() ClientCapabilities {
	out := *c
	out.Experimental = cloneRawMap(c.Experimental)
	out.Roots = clonePtr(c.Roots)
	out.Sampling = clonePtr(c.Sampling)
	out.Elicitation = clonePtr(c.Elicitation)
	if c.Tasks != nil {
		t := *c.Tasks
		if r := t.Requests; r != nil {
			t.Requests = &ClientTaskRequests{Sampling: clonePtr(r.Sampling), Elicitation: clonePtr(r.Elicitation)}
		}
		out.Tasks = &t
	}
	out.Extensions = cloneRawMap(c.Extensions)
	return out
}

// clonePtr returns a pointer to a copy of *p, or nil for a nil p: a deep
// copy for the capabilities that hold only values and *Supported markers.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneRawMap returns a copy of m whose values are copies too; nil for a
// nil m.
func cloneRawMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = bytes.Clone(v)
	}
	return out
}

// ServerCapabilities are the optional features a server supports, sent in
// InitializeResult (legacy) or DiscoverResult (modern).
type ServerCapabilities struct {
	// Experimental holds non-standard capabilities, verbatim.
	Experimental map[string]json.RawMessage `json:"experimental,omitempty"`
	// Logging: the server sends notifications/message (deprecated in
	// 2026-07-28).
	Logging *Supported `json:"logging,omitempty"`
	// Completions: the server answers completion/complete (2025-03-26 on).
	Completions *Supported `json:"completions,omitempty"`
	// Prompts: the server offers prompts.
	Prompts *PromptsCapability `json:"prompts,omitempty"`
	// Resources: the server offers resources.
	Resources *ResourcesCapability `json:"resources,omitempty"`
	// Tools: the server offers tools.
	Tools *ToolsCapability `json:"tools,omitempty"`
	// Tasks: the server accepts task-augmented requests (2025-11-25 core
	// tasks). The modern tasks extension is declared in Extensions.
	Tasks *ServerTasksCapability `json:"tasks,omitempty"`
	// Extensions maps extension identifiers to their settings, verbatim
	// (2026-07-28).
	Extensions map[string]json.RawMessage `json:"extensions,omitempty"`
}

// PromptsCapability describes prompt support.
type PromptsCapability struct {
	// ListChanged: the server sends notifications/prompts/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability describes resource support.
type ResourcesCapability struct {
	// Subscribe: the server honours resources/subscribe (legacy) or
	// resourceSubscriptions in subscriptions/listen (modern).
	Subscribe bool `json:"subscribe,omitempty"`
	// ListChanged: the server sends notifications/resources/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ToolsCapability describes tool support.
type ToolsCapability struct {
	// ListChanged: the server sends notifications/tools/list_changed.
	ListChanged bool `json:"listChanged,omitempty"`
}

// ServerTasksCapability describes the server side of 2025-11-25 tasks.
type ServerTasksCapability struct {
	// List: the server answers tasks/list.
	List *Supported `json:"list,omitempty"`
	// Cancel: the server answers tasks/cancel.
	Cancel *Supported `json:"cancel,omitempty"`
	// Requests lists the requests the server accepts as tasks.
	Requests *ServerTaskRequests `json:"requests,omitempty"`
}

// ServerTaskRequests lists the client-to-server requests a server accepts
// with task augmentation.
type ServerTaskRequests struct {
	Tools *ToolsTaskRequests `json:"tools,omitempty"`
}

// ToolsTaskRequests: task support for tool requests.
type ToolsTaskRequests struct {
	Call *Supported `json:"call,omitempty"`
}

// HasExtension reports whether the server declared the extension id.
func (c *ServerCapabilities) HasExtension(id string) bool {
	if c == nil {
		return false
	}
	_, ok := c.Extensions[id]
	return ok
}

// Implementation describes a client or a server (clientInfo, serverInfo).
type Implementation struct {
	// Name identifies the implementation; Title is its display name.
	Name  string `json:"name"`
	Title string `json:"title,omitempty"`
	// Version is the implementation's own version, not the protocol's.
	Version string `json:"version"`
	// Description says what the implementation does (2025-11-25 on).
	Description string `json:"description,omitempty"`
	// Icons for user interfaces (2025-11-25 on).
	Icons []Icon `json:"icons,omitempty"`
	// WebsiteURL is the implementation's home page (2025-11-25 on).
	WebsiteURL string `json:"websiteUrl,omitempty"`
}

// Clone returns a deep copy of i: its icons, and their sizes, are its
// own. A nil slice stays nil and an empty one empty.
func (i *Implementation) Clone() Implementation {
	out := *i
	if i.Icons != nil {
		out.Icons = make([]Icon, len(i.Icons))
		for k, ic := range i.Icons {
			ic.Sizes = slices.Clone(ic.Sizes)
			out.Icons[k] = ic
		}
	}
	return out
}

// An Icon is an image a user interface may show (2025-11-25 on).
type Icon struct {
	// Src is an https: URL or a data: URI.
	Src string `json:"src"`
	// MimeType overrides a missing or generic source type.
	MimeType string `json:"mimeType,omitempty"`
	// Sizes lists the sizes the icon suits ("48x48", or "any" for
	// scalable formats); none means any size.
	Sizes []string `json:"sizes,omitempty"`
	// Theme is the background the icon is designed for; "" means any.
	Theme IconTheme `json:"theme,omitempty"`
}

// IconTheme is the background an icon is designed for.
type IconTheme string

// The icon themes.
const (
	IconThemeLight IconTheme = "light"
	IconThemeDark  IconTheme = "dark"
)
