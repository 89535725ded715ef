package mcp

import "github.com/mcpwire/mcpwire/jsonrpc"

// Progress and cancellation follow schema/2025-11-25 (unchanged in
// 2026-07-28, where both flow only from the server, except cancellation).

// ProgressParams are the params of notifications/progress.
type ProgressParams struct {
	// ProgressToken is the token of the request's _meta, echoed with its
	// JSON type.
	ProgressToken ProgressToken `json:"progressToken"`
	// Progress increases with every notification, even when Total is
	// unknown; it may be fractional.
	Progress float64 `json:"progress"`
	// Total is the progress at completion, if known.
	Total *float64 `json:"total,omitempty"`
	// Message describes the progress (2025-03-26 on).
	Message string `json:"message,omitempty"`
	Meta    Meta   `json:"_meta,omitempty"`
}

// CancelledParams are the params of notifications/cancelled.
type CancelledParams struct {
	// RequestID is the id of the request to cancel, one sent in the same
	// direction. It is required except that 2025-11-25 tasks are cancelled
	// with tasks/cancel instead; the zero ID is omitted.
	RequestID jsonrpc.ID `json:"requestId,omitzero"`
	// Reason may be logged or shown to the user.
	Reason string `json:"reason,omitempty"`
	Meta   Meta   `json:"_meta,omitempty"`
}
