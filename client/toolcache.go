package client

import (
	"encoding/json"
	"sync"

	"github.com/mcpwire/mcpwire/mcp"
)

// DefaultMaxCachedTools is the default of Options.MaxCachedTools.
const DefaultMaxCachedTools = 4096

// A toolCache is what a session remembers of the server's tools from its
// tools/list results: a tool's input schema when the transport mirrors
// its x-mcp-header parameters in headers (the cache is the transport's
// transport.ToolSchemaLister), and its output schema, which tool results
// are checked against (output.go). Tools that need neither are not kept.
//
// It holds at most max tools: past that, a new tool is not remembered
// (its calls then carry no Mcp-Param-* headers and their results are not
// checked) until notifications/tools/list_changed makes room.
//
// notifications/tools/list_changed invalidates it: what was learned
// before is stale until the tools are listed again. A stale output
// schema is not used (the tool may have changed, and a correct result
// must not fail against an old schema); a stale input schema still gives
// the transport its headers, as a best guess that the server checks
// anyway.
type toolCache struct {
	max    int  // bound on len(tools)
	mirror bool // the transport mirrors x-mcp-header parameters (Streamable HTTP)

	mu    sync.Mutex
	gen   uint64 // the current generation; list_changed bumps it
	tools map[string]*cachedTool
}

// A cachedTool is what the session knows of one tool.
type cachedTool struct {
	gen    uint64          // the generation of the tools/list it came from
	input  json.RawMessage // the input schema, if the tool has header parameters
	output *outputSchema   // the output schema, or nil
}

// ToolInputSchema returns the input schema of a tool with x-mcp-header
// parameters: it makes the cache the transport.ToolSchemaLister of a
// transport.ToolSchemaConn. The same bytes come back until the tool is
// listed again.
func (c *toolCache) ToolInputSchema(name string) (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.tools[name]; t != nil && t.input != nil {
		return t.input, true
	}
	return nil, false
}

// learn remembers a listed tool: its input schema if headers (it has
// x-mcp-header parameters the transport mirrors), its output schema if
// it declares one.
func (c *toolCache) learn(t *mcp.Tool, headers bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &cachedTool{gen: c.gen}
	if headers {
		e.input = t.InputSchema
	}
	if len(t.OutputSchema) > 0 {
		e.output = &outputSchema{raw: t.OutputSchema}
	}
	_, known := c.tools[t.Name]
	switch {
	case e.input == nil && e.output == nil:
		delete(c.tools, t.Name)
		return
	case known:
	case len(c.tools) >= c.max:
		c.dropStaleLocked()
		if len(c.tools) >= c.max {
			return
		}
	case c.tools == nil:
		c.tools = make(map[string]*cachedTool)
	}
	c.tools[t.Name] = e
}

// forget drops what the cache knows of a tool.
func (c *toolCache) forget(name string) {
	c.mu.Lock()
	delete(c.tools, name)
	c.mu.Unlock()
}

// invalidate makes everything learned so far stale
// (notifications/tools/list_changed).
func (c *toolCache) invalidate() {
	c.mu.Lock()
	c.gen++
	c.mu.Unlock()
}

// dropStaleLocked forgets the tools learned before the last invalidation.
func (c *toolCache) dropStaleLocked() {
	for name, t := range c.tools {
		if t.gen != c.gen {
			delete(c.tools, name)
		}
	}
}
