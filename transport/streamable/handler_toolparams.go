package streamable

import (
	"encoding/json"
	"sync"

	"github.com/mcpwire/mcpwire/transport"
)

// headerParamCache derives the x-mcp-header parameters of tools from the
// server's schemas, parsing each schema once: an entry is reused as long
// as the server lists the same schema (the same bytes) for the tool.
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

func (c *headerParamCache) lookup(tool string) []HeaderParam {
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
	params, err := HeaderParamsFromSchema(schema)
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
