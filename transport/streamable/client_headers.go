package streamable

import (
	"encoding/json"
	"net/http"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// This file decides the headers of each POST and learns, by peeking at
// responses, what later headers need: the legacy protocol version (from
// the initialize result) and the x-mcp-header parameters of modern tools
// (from tools/list results).

// maxClientTools bounds the tools whose header parameters the client
// remembers; tools beyond it are called without Mcp-Param headers.
const maxClientTools = 4096

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
	for _, p := range c.tools[name] {
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

// peekLocked looks at the response to call before it is delivered, and
// returns what to deliver: the legacy protocol version comes from the
// initialize result; the header parameters of tools from a modern
// tools/list result, from which tools with invalid x-mcp-header
// annotations are removed (clients must drop them on HTTP).
func (c *ClientConn) peekLocked(call *clientCall, resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error != nil {
		return resp
	}
	switch {
	case call.method == mcp.MethodInitialize && !call.modern:
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(resp.Result, &res) == nil && clientVisibleASCII(res.ProtocolVersion, 64) {
			c.version = res.ProtocolVersion
		}
	case call.method == mcp.MethodListTools && call.modern:
		return c.learnToolsLocked(resp)
	}
	return resp
}

// learnToolsLocked remembers the header parameters of the tools of a
// tools/list result, and removes the tools whose annotations are invalid.
func (c *ClientConn) learnToolsLocked(resp *jsonrpc.Response) *jsonrpc.Response {
	var res map[string]json.RawMessage
	var tools []json.RawMessage
	if json.Unmarshal(resp.Result, &res) != nil || json.Unmarshal(res["tools"], &tools) != nil {
		return resp
	}
	if c.tools == nil {
		c.tools = make(map[string][]HeaderParam)
	}
	kept := make([]json.RawMessage, 0, len(tools))
	for _, raw := range tools {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		var schema map[string]json.RawMessage
		if json.Unmarshal(raw, &tool) != nil || json.Unmarshal(tool.InputSchema, &schema) != nil {
			kept = append(kept, raw) // not for the transport to judge
			continue
		}
		params, err := HeaderParamsFromSchema(tool.InputSchema)
		if err != nil {
			c.t.log.Info("streamable: dropped a tool with an invalid x-mcp-header annotation", "tool", tool.Name, "error", err)
			delete(c.tools, tool.Name)
			continue
		}
		kept = append(kept, raw)
		_, known := c.tools[tool.Name]
		switch {
		case len(params) == 0:
			delete(c.tools, tool.Name)
		case known || len(c.tools) < maxClientTools:
			c.tools[tool.Name] = params
		}
	}
	if len(kept) == len(tools) {
		return resp
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return resp
	}
	res["tools"] = b
	result, err := json.Marshal(res)
	if err != nil {
		return resp
	}
	return &jsonrpc.Response{ID: resp.ID, Result: result}
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
