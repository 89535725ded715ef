package otel

import (
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
	"github.com/mcpwire/mcpwire/mcp"
)

// What repeats from one message to the next is made once: the span names
// of tool and prompt calls, and the attribute sets of the metrics. Both
// caches are bounded; past the bound, values are made each time.

// maxCached bounds each cache.
const maxCached = 1024

// spanNames caches the span names of tools/call and prompts/get, by the
// name as it is in the params.
type spanNames struct {
	mu      sync.RWMutex
	tools   map[string]string // name → "tools/call name"
	prompts map[string]string // name → "prompts/get name"
}

// get returns the span name "{method} {name}" of a tools/call or
// prompts/get whose params name the JSON string raw, and the name.
func (c *spanNames) get(method string, raw []byte) (span, name string) {
	end, escaped := jsonscan.SkipString(raw, 0)
	if escaped || end != len(raw) || len(raw) > MaxValueLength+2 {
		// Not cached: an escaped name, or one too long to keep (a peer
		// chooses it, before the receiver knows whether such a tool
		// exists).
		name = bounded(str(raw))
		return method + " " + name, name
	}
	inner := raw[1 : len(raw)-1]
	c.mu.RLock()
	m := c.tools
	if method == mcp.MethodGetPrompt {
		m = c.prompts
	}
	span, ok := m[string(inner)]
	c.mu.RUnlock()
	if !ok {
		span = method + " " + string(inner)
		c.mu.Lock()
		m := &c.tools
		if method == mcp.MethodGetPrompt {
			m = &c.prompts
		}
		if *m == nil {
			*m = make(map[string]string)
		}
		if len(*m) < maxCached {
			(*m)[span[len(method)+1:]] = span
		}
		c.mu.Unlock()
	}
	return span, span[len(method)+1:]
}

// A metricKey is the attributes of one operation duration series.
type metricKey struct {
	method, tool, prompt, version string
	transport, addr               string
	port                          int
	http                          bool
	errType, code                 string
}

// metricSets caches the measurement options (the attribute set) of each
// series.
type metricSets struct {
	mu sync.RWMutex
	m  map[metricKey][]metric.RecordOption
}

// get returns the options that record a measurement of series k.
func (c *metricSets) get(k metricKey) []metric.RecordOption {
	c.mu.RLock()
	opts, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return opts
	}
	var buf [12]attribute.KeyValue
	opts = []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(k.attrs(buf[:0])...))}
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[metricKey][]metric.RecordOption)
	}
	if len(c.m) < maxCached {
		c.m[k] = opts
	}
	c.mu.Unlock()
	return opts
}

// attrs appends the attributes of the series.
func (k *metricKey) attrs(a []attribute.KeyValue) []attribute.KeyValue {
	a = append(a, keyMethod.String(k.method))
	if k.method == mcp.MethodCallTool {
		a = append(a, keyOperationName.String(operationExecuteTool))
	}
	if k.tool != "" {
		a = append(a, keyToolName.String(k.tool))
	}
	if k.prompt != "" {
		a = append(a, keyPromptName.String(k.prompt))
	}
	if k.version != "" {
		a = append(a, keyProtocolVersion.String(k.version))
	}
	if k.transport != "" {
		a = append(a, keyNetTransport.String(k.transport))
	}
	if k.http {
		a = append(a, keyNetProtocolName.String(protocolHTTP))
	}
	if k.addr != "" {
		a = append(a, keyServerAddress.String(k.addr))
		if k.port > 0 {
			a = append(a, keyServerPort.Int(k.port))
		}
	}
	if k.errType != "" {
		a = append(a, keyErrorType.String(k.errType))
	}
	if k.code != "" {
		a = append(a, keyStatusCode.String(k.code))
	}
	return a
}
