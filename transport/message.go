package transport

import (
	"context"
	"encoding/json"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A MessageServer is what an MCP server offers to transports that receive
// each message on its own, such as HTTP, where every client message is a
// request of its own and the server's messages go out on whichever stream
// they belong to. *server.Server implements it.
//
// Legacy clients (revisions up to 2025-11-25) get a session each (Open);
// modern requests (2026-07-28) are served without one (ServeStateless).
type MessageServer interface {
	// Open starts a legacy session. The server's own messages for the
	// session (notifications, and requests to the client) are written to
	// w, with the context of the request they relate to, if any (see
	// jsonrpc.IncomingID), so that w can send them on that request's
	// stream. It fails when the server takes no new sessions (it is shut
	// down: server.ErrServerClosed); the handler then answers 503.
	Open(ctx context.Context, sessionID string, w jsonrpc.Writer) (ServerSession, error)
	// ServeStateless answers one modern request or notification (nil
	// response). The request's notifications (progress, log messages) are
	// written to w while it runs. Cancelling ctx cancels the request. A
	// server that refuses the request answers with an error response:
	// jsonrpc.CodeOverloaded when it serves as many as it allows,
	// jsonrpc.CodeConnectionClosed once it is shut down (HTTP 503 both).
	ServeStateless(ctx context.Context, req *jsonrpc.Request, w jsonrpc.Writer) *jsonrpc.Response
}

// A ServerSession is one legacy session driven message by message.
type ServerSession interface {
	// Serve handles a request or notification from the client in the
	// caller's goroutine and returns the response to a call (nil for a
	// notification, or for a call the client cancelled). ctx is the parent
	// of the handler's context; for legacy sessions a dropped connection
	// is not a cancellation, so transports pass a context that outlives
	// the HTTP request.
	Serve(ctx context.Context, req *jsonrpc.Request) *jsonrpc.Response
	// Resolve delivers the client's response to a request of the server;
	// it reports whether a request was waiting for it.
	Resolve(resp *jsonrpc.Response) bool
	// ProtocolVersion returns the revision negotiated by initialize ("").
	ProtocolVersion() string
	// Close ends the session.
	Close() error
	// Done is closed when the session has ended.
	Done() <-chan struct{}
}

// Optional interfaces a MessageServer may implement, which HTTP handlers
// use when they are not told otherwise.
type (
	// A VersionLister names the protocol revisions the server serves,
	// for the handler's header checks and its -32022 errors.
	VersionLister interface {
		ProtocolVersions() []string
	}
	// A ToolSchemaLister gives a tool's input schema as listed, for the
	// Mcp-Param-* headers of modern tools/call requests (x-mcp-header
	// annotations): an HTTP handler checks them against the server's
	// schemas, an HTTP client writes them from the schemas the MCP client
	// gives it (see ToolSchemaConn). The same bytes for an unchanged
	// schema let the transport parse each schema once.
	ToolSchemaLister interface {
		ToolInputSchema(name string) (json.RawMessage, bool)
	}
)

// A ToolSchemaConn is a client Conn that needs tools' input schemas to
// send tool calls: Streamable HTTP mirrors the arguments annotated
// x-mcp-header in the Mcp-Param-* headers of modern tools/call requests
// (2026-07-28). What a server's tools are is learned from tools/list,
// which is the MCP client's business, not the transport's: the client
// (package client) gives the conn the schemas of the tools it kept, and
// the conn asks for a tool's schema when it writes a call of that tool.
type ToolSchemaConn interface {
	Conn
	// SetToolSchemas installs the lister the conn asks; nil removes it.
	// The conn calls it from Write, while it holds a lock of its own: the
	// lister must not call the conn. Until one is set, tool calls carry
	// no Mcp-Param-* headers.
	SetToolSchemas(ToolSchemaLister)
}
