package mcp

import (
	"encoding/json"
	"errors"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// MCP error codes. JSON-RPC reserves -32000 to -32099 for servers; from
// 2026-07-28 MCP keeps -32000 to -32019 for implementations (the jsonrpc
// package uses some) and allocates its own codes from -32020 on.
const (
	// CodeResourceNotFound: resources/read of an unknown URI (2025-11-25
	// and earlier; data {"uri"}). The modern era answers -32602 instead
	// and never emits -32002; see AdaptError.
	CodeResourceNotFound jsonrpc.Code = -32002
	// CodeURLElicitationRequired: the request needs the user to complete
	// URL-mode elicitations first (2025-11-25 only; data {"elicitations"}).
	CodeURLElicitationRequired jsonrpc.Code = -32042
	// CodeHeaderMismatch: an HTTP header (MCP-Protocol-Version, Mcp-Method,
	// Mcp-Name, Mcp-Param-*) is missing, malformed or disagrees with the
	// body (2026-07-28; HTTP 400).
	CodeHeaderMismatch jsonrpc.Code = -32020
	// CodeMissingRequiredClientCapability: the request needs a client
	// capability it did not declare (2026-07-28; data
	// {"requiredCapabilities"}; HTTP 400).
	CodeMissingRequiredClientCapability jsonrpc.Code = -32021
	// CodeUnsupportedProtocolVersion: the request's protocol version is not
	// supported (2026-07-28; data {"supported","requested"}; HTTP 400).
	CodeUnsupportedProtocolVersion jsonrpc.Code = -32022
	// CodeUserRejected: the user rejected a sampling request.
	CodeUserRejected jsonrpc.Code = -1
)

// ResourceNotFoundData is the data of a resource-not-found error.
type ResourceNotFoundData struct {
	URI string `json:"uri"`
}

// UnsupportedVersionData is the data of an unsupported-version error.
type UnsupportedVersionData struct {
	Supported []Version `json:"supported"`
	Requested string    `json:"requested"`
}

// MissingCapabilityData is the data of a missing-capability error.
type MissingCapabilityData struct {
	RequiredCapabilities ClientCapabilities `json:"requiredCapabilities"`
}

// URLElicitationRequiredData is the data of a URL-elicitation-required
// error: the URL-mode elicitations the user must complete.
type URLElicitationRequiredData struct {
	Elicitations []ElicitParams `json:"elicitations"`
}

// withData returns an error with code, message and data, which must
// marshal (all data types of this file do).
func withData(code jsonrpc.Code, message string, data any) *jsonrpc.Error {
	b, err := json.Marshal(data)
	if err != nil {
		panic("mcp: error data does not marshal: " + err.Error())
	}
	return &jsonrpc.Error{Code: code, Message: message, Data: b}
}

// ResourceNotFoundError reports that the resource uri does not exist, with
// data {"uri": uri}. Handlers return it whatever the era; the code is
// CodeResourceNotFound, which engines turn into -32602 for modern
// requests (AdaptError).
func ResourceNotFoundError(uri string) *jsonrpc.Error {
	return withData(CodeResourceNotFound, "Resource not found", ResourceNotFoundData{URI: uri})
}

// UnsupportedVersionError reports that the requested protocol version is
// not supported, with data {"supported": [...], "requested": "..."}. A nil
// supported list stands for SupportedVersions().
func UnsupportedVersionError(requested string, supported []Version) *jsonrpc.Error {
	if supported == nil {
		supported = SupportedVersions()
	}
	return withData(CodeUnsupportedProtocolVersion, "Unsupported protocol version",
		UnsupportedVersionData{Supported: supported, Requested: requested})
}

// MissingCapabilityError reports that the request needs the client
// capabilities required, with data {"requiredCapabilities": required};
// for example ClientCapabilities{Elicitation: &ElicitationCapability{}}.
func MissingCapabilityError(required ClientCapabilities) *jsonrpc.Error {
	return withData(CodeMissingRequiredClientCapability, "Missing required client capability",
		MissingCapabilityData{RequiredCapabilities: required})
}

// HeaderMismatchError reports an HTTP header that is missing, malformed or
// disagrees with the request body; message says which (e.g. "Mcp-Name
// header value 'foo' does not match body value 'bar'").
func HeaderMismatchError(message string) *jsonrpc.Error {
	if message == "" {
		message = "Header mismatch"
	} else {
		message = "Header mismatch: " + message
	}
	return &jsonrpc.Error{Code: CodeHeaderMismatch, Message: message}
}

// URLElicitationRequiredError reports that the request cannot proceed
// until the user completes the given URL-mode elicitations (2025-11-25).
func URLElicitationRequiredError(elicitations ...ElicitParams) *jsonrpc.Error {
	if elicitations == nil {
		elicitations = []ElicitParams{}
	}
	return withData(CodeURLElicitationRequired, "URL elicitation required",
		URLElicitationRequiredData{Elicitations: elicitations})
}

// UserRejectedError reports that the user rejected a sampling request.
func UserRejectedError(message string) *jsonrpc.Error {
	if message == "" {
		message = "User rejected sampling request"
	}
	return &jsonrpc.Error{Code: CodeUserRejected, Message: message}
}

// AdaptError returns e as revision v defines it. For modern versions a
// resource-not-found error becomes -32602 with the same message and data
// (2026-07-28 retires -32002). Other errors, and every error of a legacy
// version, are returned unchanged. e itself is never modified.
func AdaptError(v Version, e *jsonrpc.Error) *jsonrpc.Error {
	if e != nil && e.Code == CodeResourceNotFound && IsModern(v) {
		c := *e
		c.Code = jsonrpc.CodeInvalidParams
		return &c
	}
	return e
}

// IsResourceNotFound reports whether err is a resource-not-found error of
// either era: code -32002, or -32602 whose data names a uri.
func IsResourceNotFound(err error) bool {
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case CodeResourceNotFound:
		return true
	case jsonrpc.CodeInvalidParams:
		var d ResourceNotFoundData
		return json.Unmarshal(e.Data, &d) == nil && d.URI != ""
	}
	return false
}

// DecodeErrorData finds a *jsonrpc.Error with the given code in err's chain
// and decodes its data into v (one of the *Data types of this package, or
// any other). It reports whether such an error was found and its data
// decoded.
//
//	var d mcp.UnsupportedVersionData
//	if mcp.DecodeErrorData(err, mcp.CodeUnsupportedProtocolVersion, &d) {
//		// retry with a version from d.Supported
//	}
func DecodeErrorData(err error, code jsonrpc.Code, v any) bool {
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != code || len(e.Data) == 0 {
		return false
	}
	return json.Unmarshal(e.Data, v) == nil
}
