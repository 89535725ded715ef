package mcp

import "encoding/json"

// Lifecycle: initialize (schema/2025-11-25, every legacy revision) and
// server/discover (schema/2026-07-28).

// InitializeParams are the params of initialize, the first request of a
// legacy session.
type InitializeParams struct {
	// ProtocolVersion is the latest revision the client supports.
	ProtocolVersion Version            `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
	Meta            RequestMeta        `json:"_meta,omitzero"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	// ProtocolVersion is the revision the session will use: the client's
	// if the server supports it, else one the server prefers (see
	// NegotiateLegacy). A client that cannot speak it disconnects.
	ProtocolVersion Version            `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	// Instructions tell the model how to use the server; clients may add
	// them to the system prompt.
	Instructions string     `json:"instructions,omitempty"`
	Meta         Meta       `json:"_meta,omitempty"`
	ResultType   ResultType `json:"resultType,omitempty"`
}

// DiscoverParams are the params of server/discover (2026-07-28): only the
// request _meta, which names the version the client prefers.
type DiscoverParams struct {
	Meta RequestMeta `json:"_meta,omitzero"`
}

// DiscoverResult answers server/discover (2026-07-28). The server's
// Implementation travels in _meta (MetaKeyServerInfo), as on every modern
// result. It is cacheable.
type DiscoverResult struct {
	// SupportedVersions lists every revision the server supports; a
	// client picks one for its requests.
	SupportedVersions []Version          `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	// TTLMs and CacheScope are required in the modern era; see
	// ListToolsResult.
	TTLMs      *int64     `json:"ttlMs,omitempty"`
	CacheScope CacheScope `json:"cacheScope,omitempty"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing supportedVersions as []
// when empty.
func (r DiscoverResult) MarshalJSON() ([]byte, error) {
	type plain DiscoverResult
	if r.SupportedVersions == nil {
		r.SupportedVersions = []Version{}
	}
	return json.Marshal(plain(r))
}
