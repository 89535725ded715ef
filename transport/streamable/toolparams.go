package streamable

import (
	"encoding/json"
	"sync"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// headerParamCache derives the x-mcp-header parameters of tools from their
// input schemas, parsing each schema once: an entry is reused as long as
// the lister gives the same schema (the same bytes) for the tool. The
// handler's lister is the server (what it lists); the client's is the MCP
// client (the tools it kept from tools/list: see ClientConn.SetToolSchemas).
type headerParamCache struct {
	srv transport.ToolSchemaLister
	mu  sync.Mutex
	m   map[string]headerParamEntry
}

type headerParamEntry struct {
	schema json.RawMessage
	params []HeaderParam
}

// maxHeaderParamEntries bounds the cache; past it, it starts over.
const maxHeaderParamEntries = 4096

func newHeaderParamCache(srv transport.ToolSchemaLister) *headerParamCache {
	return &headerParamCache{srv: srv, m: make(map[string]headerParamEntry)}
}

// lookup returns the header parameters of tool; nil for a nil cache.
func (c *headerParamCache) lookup(tool string) []HeaderParam {
	if c == nil {
		return nil
	}
	schema, ok := c.srv.ToolInputSchema(tool)
	if !ok || len(schema) == 0 {
		return nil
	}
	c.mu.Lock()
	e, hit := c.m[tool]
	c.mu.Unlock()
	if hit && len(e.schema) == len(schema) && &e.schema[0] == &schema[0] {
		return e.params
	}
	params, err := mcp.ToolHeaderParams(schema)
	if err != nil {
		params = nil // invalid annotations check nothing; clients drop such tools
	}
	c.mu.Lock()
	if len(c.m) >= maxHeaderParamEntries {
		c.m = make(map[string]headerParamEntry)
	}
	c.m[tool] = headerParamEntry{schema: schema, params: params}
	c.mu.Unlock()
	return params
}
