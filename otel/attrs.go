package otel

import (
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
)

// MaxValueLength bounds, in bytes, each string the instrumentation
// records from what a peer sends: a method name, a tool or prompt name
// (in the span name too), a resource URI, a request id, a session id, an
// error message. A longer one is cut, at a UTF-8 boundary; a message may
// be 16 MiB, and spans wait in the batch span processor's queue (2048 of
// them) before they are exported.
const MaxValueLength = 1024

// bounded returns s cut to MaxValueLength bytes, in a copy when cut (so
// as not to keep the rest of the peer's bytes alive).
func bounded(s string) string {
	if len(s) <= MaxValueLength {
		return s
	}
	n := MaxValueLength
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.Clone(s[:n])
}

// The attributes recorded, spelled as the semantic conventions v1.41.1
// spell them (model/mcp and the registries it refers to).
const (
	keyMethod          = attribute.Key("mcp.method.name")
	keyProtocolVersion = attribute.Key("mcp.protocol.version")
	keySessionID       = attribute.Key("mcp.session.id")
	keyResourceURI     = attribute.Key("mcp.resource.uri")
	keyToolName        = attribute.Key("gen_ai.tool.name")
	keyPromptName      = attribute.Key("gen_ai.prompt.name")
	keyOperationName   = attribute.Key("gen_ai.operation.name")
	keyRequestID       = attribute.Key("jsonrpc.request.id")
	keyStatusCode      = attribute.Key("rpc.response.status_code")
	keyErrorType       = attribute.Key("error.type")
	keyNetTransport    = attribute.Key("network.transport")
	keyNetProtocolName = attribute.Key("network.protocol.name")
	keyServerAddress   = attribute.Key("server.address")
	keyServerPort      = attribute.Key("server.port")
)

// Values of the attributes.
const (
	operationExecuteTool = "execute_tool" // gen_ai.operation.name of tools/call
	errToolError         = "tool_error"   // error.type of a tool result with isError
	errOther             = "_OTHER"       // error.type of an error of no known class
	methodOther          = "_OTHER"       // mcp.method.name in metrics, for a method MCP does not define
	transportPipe        = "pipe"
	transportTCP         = "tcp"
	protocolHTTP         = "http"
)

// The error.type of failures that are not JSON-RPC errors (which are
// their code, as "-32602"), on the side that sent the request.
const (
	errTimeout          = "timeout"           // the caller's context deadline
	errCanceled         = "canceled"          // the caller's context was canceled
	errConnectionClosed = "connection_closed" // the connection ended before the answer
	errInvalidResponse  = "invalid_response"  // the peer answered with something that is not a valid response
)
