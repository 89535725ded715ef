package mcp

import "encoding/json"

// Roots follow schema/2025-11-25. In 2026-07-28 roots are deprecated and
// roots/list survives only as an input request.

// Root is a directory or file the server may work on.
type Root struct {
	// URI is a file:// URI.
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}

// ListRootsResult answers roots/list (whose params are RequestParams).
type ListRootsResult struct {
	Roots      []Root     `json:"roots"`
	Meta       Meta       `json:"_meta,omitempty"`
	ResultType ResultType `json:"resultType,omitempty"`
}

// MarshalJSON implements json.Marshaler, writing roots as [] when empty.
func (r ListRootsResult) MarshalJSON() ([]byte, error) {
	type plain ListRootsResult
	if r.Roots == nil {
		r.Roots = []Root{}
	}
	return json.Marshal(plain(r))
}
