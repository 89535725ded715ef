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
//
// The params are read where they lie (they have been encoded, so they
// are well-formed JSON), and the values share one array: a modern
// tools/call's headers cost the map and that array.
func (c *ClientConn) postHeaderLocked(req *jsonrpc.Request, modern string) http.Header {
	h := make(http.Header, 8)
	vals := clientHeaderValues{h: h, v: make([]string, 0, 6)}
	if modern != "" {
		c.setUserHeaders(h)
		vals.set(hdrKeyProtocolVersion, modern)
		vals.set(hdrKeyMethod, req.Method)
		c.modernHeadersLocked(&vals, req)
	} else {
		c.setUserHeaders(h)
		if c.version != "" {
			vals.set(hdrKeyProtocolVersion, c.version)
		}
		if c.session != "" {
			vals.set(hdrKeySessionID, c.session)
		}
	}
	vals.set("Content-Type", "application/json")
	vals.set("Accept", "application/json, text/event-stream")
	return h
}

// clientHeaderValues sets headers whose values share one array.
type clientHeaderValues struct {
	h http.Header
	v []string
}

// set sets header k, a canonical key, to the single value v.
func (hv *clientHeaderValues) set(k, v string) {
	hv.v = append(hv.v, v)
	n := len(hv.v)
	hv.h[k] = hv.v[n-1 : n : n]
}

// modernHeadersLocked adds Mcp-Name and the Mcp-Param headers of req.
func (c *ClientConn) modernHeadersLocked(hv *clientHeaderValues, req *jsonrpc.Request) {
	key := mcp.NameHeaderParam(req.Method)
	if key == "" {
		return
	}
	name, ok := jsonString(member(req.Params, key))
	if !ok {
		return
	}
	hv.set(hdrKeyName, mcp.EncodeHeaderValue(name))
	if req.Method != mcp.MethodCallTool {
		return
	}
	params := c.params.lookup(name)
	if len(params) == 0 {
		return
	}
	args := member(req.Params, "arguments")
	for _, p := range params {
		if v, ok := clientHeaderArg(memberPath(args, p.Path)); ok {
			hv.set(http.CanonicalHeaderKey(mcp.HeaderParamPrefix+p.Name), v)
		}
	}
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
		s, ok := jsonString(v)
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
