package mcp

import (
	"encoding/base64"
	"errors"
	"strings"
	"unicode/utf8"
)

// HTTP header names of the Streamable HTTP transport. Header names compare
// case-insensitively; values case-sensitively.
const (
	// HeaderProtocolVersion carries the protocol version on every request
	// after initialization (2025-06-18 on), and on every modern request,
	// where it must equal _meta's protocolVersion.
	HeaderProtocolVersion = "MCP-Protocol-Version"
	// HeaderSessionID carries the session of the legacy era (2025-03-26 to
	// 2025-11-25).
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderMethod mirrors the JSON-RPC method of a modern request.
	HeaderMethod = "Mcp-Method"
	// HeaderName mirrors the target of a modern request; see
	// NameHeaderParam.
	HeaderName = "Mcp-Name"
	// HeaderParamPrefix starts the headers that mirror tool arguments
	// annotated with x-mcp-header: Mcp-Param-{name}.
	HeaderParamPrefix = "Mcp-Param-"
)

// SchemaKeyHeader is the JSON Schema keyword, on a property of a tool's
// inputSchema, whose value names the Mcp-Param- header that mirrors the
// property (2026-07-28).
const SchemaKeyHeader = "x-mcp-header"

// NameHeaderParam returns the member of the params of method that the
// Mcp-Name header mirrors: "name" for tools/call and prompts/get, "uri"
// for resources/read, "taskId" for the tasks extension methods; "" when
// method has no Mcp-Name.
func NameHeaderParam(method string) string {
	switch method {
	case MethodCallTool, MethodGetPrompt:
		return "name"
	case MethodReadResource:
		return "uri"
	case MethodGetTask, MethodUpdateTask, MethodCancelTask:
		return "taskId"
	}
	return ""
}

const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// EncodeHeaderValue returns s as the value of an Mcp-Name or Mcp-Param-
// header. Plain printable ASCII without leading or trailing spaces goes as
// it is; anything else (non-ASCII, control characters, edge spaces, or
// text that looks like the sentinel itself) goes as =?base64?{base64}?=.
func EncodeHeaderValue(s string) string {
	if plainHeaderValue(s) && !isSentinel(s) {
		return s
	}
	return base64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + base64Suffix
}

func plainHeaderValue(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func isSentinel(s string) bool {
	return len(s) >= len(base64Prefix)+len(base64Suffix) &&
		strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix)
}

var errHeaderValue = errors.New("mcp: invalid header value")

// DecodeHeaderValue returns the text an Mcp-Name or Mcp-Param- header
// value stands for: the decoded text of a =?base64?...?= value, or the
// value itself. It fails on characters a header value may not hold, bad
// base64, and base64 that is not UTF-8.
func DecodeHeaderValue(v string) (string, error) {
	if isSentinel(v) {
		b, err := base64.StdEncoding.DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
		if err != nil || !utf8.Valid(b) {
			return "", errHeaderValue
		}
		return string(b), nil
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c > 0x7e {
			return "", errHeaderValue
		}
	}
	return v, nil
}
