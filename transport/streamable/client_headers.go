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
// tools/call's headers cost the map and that array. When the requests
// reach nothing but the transport's own clients (no caller's
// HTTPClient or layers, which may keep or change a request's headers),
// POSTs whose headers are those of the last one share its map, which is
// then never changed: most calls cost no header at all.
func (c *ClientConn) postHeaderLocked(req *jsonrpc.Request, modern string) http.Header {
	var hv clientHeaderValues
	if modern != "" {
		hv.set(hdrKeyProtocolVersion, modern)
		hv.set(hdrKeyMethod, req.Method)
		c.modernHeadersLocked(&hv, req)
	} else {
		if c.version != "" {
			hv.set(hdrKeyProtocolVersion, c.version)
		}
		if c.session != "" {
			hv.set(hdrKeySessionID, c.session)
		}
	}
	hv.set("Content-Type", "application/json")
	hv.set("Accept", "application/json, text/event-stream")
	if c.h1 == nil || c.t.wrapped != nil || hv.extra != nil {
		return hv.header(c)
	}
	if c.lastPost != nil && c.lastPostValues == hv.first {
		return c.lastPost
	}
	c.lastPost, c.lastPostValues = hv.header(c), hv.first
	return c.lastPost
}

// clientSharedHeaders is how many headers of its own a POST may have for
// its header map to be shared (see postHeaderLocked).
const clientSharedHeaders = 8

// clientHeaderValues are the headers the conn sets on a POST, in order:
// the first clientSharedHeaders in first, any further ones in extra.
type clientHeaderValues struct {
	first clientHeaderArray
	extra []string // keys and values, alternating
}

// A clientHeaderArray holds up to clientSharedHeaders headers, each a
// canonical key and one value.
type clientHeaderArray struct {
	kv [clientSharedHeaders]struct{ k, v string }
	n  int
}

// set sets header k, a canonical key, to the single value v.
func (hv *clientHeaderValues) set(k, v string) {
	if a := &hv.first; a.n < len(a.kv) {
		a.kv[a.n].k, a.kv[a.n].v = k, v
		a.n++
		return
	}
	hv.extra = append(hv.extra, k, v)
}

// header returns a new header map with ClientOptions.Header and the
// values of hv, which win over the caller's; the values share one array.
func (hv *clientHeaderValues) header(c *ClientConn) http.Header {
	n := hv.first.n + len(hv.extra)/2
	h := make(http.Header, n+len(c.t.opts.Header))
	c.setUserHeaders(h)
	vals := make([]string, 0, n)
	add := func(k, v string) {
		vals = append(vals, v)
		h[k] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	for _, kv := range hv.first.kv[:hv.first.n] {
		add(kv.k, kv.v)
	}
	for i := 0; i+1 < len(hv.extra); i += 2 {
		add(hv.extra[i], hv.extra[i+1])
	}
	return h
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
