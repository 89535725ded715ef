package streamable

import (
	"encoding/json"
	"net/http"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// This file decides the headers of each POST. The legacy protocol
// version comes from peeking at the initialize result; the x-mcp-header
// parameters of modern tools from the MCP client, which reads tools/list
// (SetToolSchemas).

// postHeaderLocked returns the headers of the POST that carries req, a
// call or a notification. modern is the protocol version of its _meta
// ("" for a legacy message). Modern messages carry MCP-Protocol-Version
// (equal to _meta's), Mcp-Method, Mcp-Name and the Mcp-Param headers of
// the tool called, and no session; legacy ones carry the negotiated
// version and the session, once known.
func (c *ClientConn) postHeaderLocked(req *jsonrpc.Request, modern string) http.Header {
	h := make(http.Header, 8)
	if modern != "" {
		c.setHeaders(h, "", modern)
		h[hdrKeyMethod] = []string{req.Method}
		c.modernHeadersLocked(h, req)
	} else {
		c.setHeaders(h, c.session, c.version)
	}
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{"application/json, text/event-stream"}
	return h
}

// modernHeadersLocked adds Mcp-Name and the Mcp-Param headers of req.
func (c *ClientConn) modernHeadersLocked(h http.Header, req *jsonrpc.Request) {
	key := mcp.NameHeaderParam(req.Method)
	if key == "" && req.Method != mcp.MethodCallTool {
		return
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(req.Params, &params) != nil {
		return
	}
	if key != "" {
		if s, ok := clientJSONString(params[key]); ok {
			h[hdrKeyName] = []string{mcp.EncodeHeaderValue(s)}
		}
	}
	if req.Method != mcp.MethodCallTool {
		return
	}
	name, _ := clientJSONString(params["name"])
	for _, p := range c.params.lookup(name) {
		if v, ok := clientHeaderArg(clientArgAt(params["arguments"], p.Path)); ok {
			h[http.CanonicalHeaderKey(mcp.HeaderParamPrefix+p.Name)] = []string{v}
		}
	}
}

// clientJSONString returns the string raw encodes.
func clientJSONString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// clientArgAt returns the value reached from the arguments object through
// the property names of path, or nil.
func clientArgAt(args json.RawMessage, path []string) json.RawMessage {
	v := args
	for _, name := range path {
		var obj map[string]json.RawMessage
		if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &obj) != nil {
			return nil
		}
		v = obj[name]
	}
	return v
}

// clientHeaderArg returns the header value that mirrors an argument: a
// string as mcp.EncodeHeaderValue writes it, a number in its JSON form,
// true or false. Null, absent, object and array arguments get no header.
func clientHeaderArg(v json.RawMessage) (string, bool) {
	if len(v) == 0 {
		return "", false
	}
	switch c := v[0]; {
	case c == '"':
		s, ok := clientJSONString(v)
		if !ok {
			return "", false
		}
		return mcp.EncodeHeaderValue(s), true
	case c == 't' || c == 'f':
		return string(v), true
	case c == '-' || '0' <= c && c <= '9':
		return string(v), true
	}
	return "", false
}

// peekLocked looks at the response to call before it is delivered: the
// legacy protocol version comes from the initialize result.
func (c *ClientConn) peekLocked(call *clientCall, resp *jsonrpc.Response) {
	if resp.Error != nil || call.method != mcp.MethodInitialize || call.modern {
		return
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &res) == nil && clientVisibleASCII(res.ProtocolVersion, 64) {
		c.version = res.ProtocolVersion
	}
}

// SetToolSchemas installs the lister of the tools' input schemas from
// which the conn writes the Mcp-Param-* headers of modern tools/call
// requests (see transport.ToolSchemaConn); package client calls it. Each
// schema is parsed once, as long as the lister gives the same bytes.
func (c *ClientConn) SetToolSchemas(l transport.ToolSchemaLister) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.params = nil
	if l != nil {
		c.params = newHeaderParamCache(l)
	}
}

// clientVisibleASCII reports whether s is 1 to max characters of visible
// ASCII (0x21 to 0x7E), as session ids and header tokens must be.
func clientVisibleASCII(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
