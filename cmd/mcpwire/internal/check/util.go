package check

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// hasMember reports whether the JSON object obj has the member name.
func hasMember(obj json.RawMessage, name string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return false
	}
	_, ok := m[name]
	return ok
}

// isEmptyObject reports whether raw is {}.
func isEmptyObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && len(m) == 0
}

// serverInfoOf returns the server's info from the _meta of a modern
// result, or the zero Implementation.
func serverInfoOf(result json.RawMessage) mcp.Implementation {
	var r struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var info mcp.Implementation
	if json.Unmarshal(result, &r) == nil {
		json.Unmarshal(r.Meta[mcp.MetaKeyServerInfo], &info)
	}
	return info
}

// codeOf returns the error code of a reply, and whether it is an error
// response; a nil reply is none.
func codeOf(r *reply) (jsonrpc.Code, bool) {
	if r == nil {
		return 0, false
	}
	return r.errorCode()
}

// joinAnd joins phrases: "a", "a and b", "a, b and c".
func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// newTracker returns the frame tracker of an HTTP wire to url.
func newTracker(obs transport.Observer, url string) *transport.FrameTracker {
	return transport.NewFrameTracker(obs, transport.TransportStreamable, "")
}

// compact returns raw on one line.
func compact(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// isInputRequired reports whether a result asks the client for input
// (2026-07-28): its other members are not those of a complete result.
func isInputRequired(result json.RawMessage) bool {
	var r struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(result, &r) == nil && r.ResultType == string(mcp.ResultTypeInputRequired)
}
