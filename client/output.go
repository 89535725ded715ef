package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpwire/mcpwire/internal/jsonschema"
	"github.com/mcpwire/mcpwire/mcp"
)

// Structured output (2025-06-18 on). A tool may declare an outputSchema in
// tools/list; its results then carry structuredContent that conforms to
// it, and clients should check that they do. The session checks every
// result of CallTool against the schema it learned from the latest
// tools/list (toolcache.go): a tool it has not seen listed, or whose
// listing a tools/list_changed made stale, is not checked. A tool without
// an output schema costs one map lookup per call.

// An outputSchema is a tool's output schema, compiled at its first use.
type outputSchema struct {
	raw  json.RawMessage
	once sync.Once
	s    *jsonschema.Schema // nil if it cannot be checked against
	err  error              // why it could not be compiled, if it is invalid
}

// compiled returns the compiled schema, or why it cannot be used. A
// schema that refers to another document (a URL, a file) is refused with
// an error wrapping ErrRemoteSchemaRef that names the reference: nothing
// is ever fetched, and a server that lists such a schema gets none of its
// results accepted as checked. A schema this client cannot check against
// without linking something (an unknown dialect, a keyword only the full
// engine implements when server/fullschema is not imported) gives nil and
// no error: its results are relayed unchecked. An invalid schema gives
// its error.
func (o *outputSchema) compiled() (*jsonschema.Schema, error) {
	o.once.Do(func() {
		o.s, o.err = jsonschema.Compile(o.raw, nil)
		switch {
		case o.err == nil:
		case errors.Is(o.err, jsonschema.ErrRemoteRef):
			// kept as is: OutputSchemaError says the schema is refused
		case errors.Is(o.err, jsonschema.ErrUnsupportedDialect) || errors.Is(o.err, jsonschema.ErrNeedsFullEngine):
			o.err = nil
		default:
			o.err = fmt.Errorf("invalid outputSchema: %w", o.err)
		}
	})
	return o.s, o.err
}

// ErrRemoteSchemaRef is wrapped by the Err of an *OutputSchemaError when
// the tool's outputSchema refers to another document (a "$ref" to a URL
// or a file): such a schema is refused, and nothing is fetched.
var ErrRemoteSchemaRef = jsonschema.ErrRemoteRef

// output returns the current output schema of a tool, or nil.
func (c *toolCache) output(name string) *outputSchema {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.tools[name]; t != nil && t.gen == c.gen {
		return t.output
	}
	return nil
}

// An OutputSchemaError reports a tool result that breaks the tool's
// outputSchema, as the server listed it: its structuredContent does not
// conform, or is missing (a result with isError is never checked). The
// tool call itself succeeded; Result is what the server sent, for a
// caller that wants it anyway.
type OutputSchemaError struct {
	// Tool is the tool's name.
	Tool string
	// Result is the result as received.
	Result *mcp.CallToolResult
	// Err says what is wrong: the violations, with the JSON pointer of
	// each value (for instance "structuredContent/temp: expected number,
	// got string"); or that structuredContent is missing, or that the
	// outputSchema itself is not a valid schema or refers to another
	// document (ErrRemoteSchemaRef).
	Err error
}

func (e *OutputSchemaError) Error() string {
	var ve *jsonschema.ValidationError
	if errors.As(e.Err, &ve) {
		return fmt.Sprintf("mcp client: the result of tool %q does not match its outputSchema: %s", e.Tool, ve.Message("structuredContent"))
	}
	if errors.Is(e.Err, ErrRemoteSchemaRef) {
		return fmt.Sprintf("mcp client: the outputSchema of tool %q is refused: %v", e.Tool, e.Err)
	}
	return fmt.Sprintf("mcp client: the result of tool %q cannot be checked against its outputSchema: %v", e.Tool, e.Err)
}

// Unwrap returns e.Err.
func (e *OutputSchemaError) Unwrap() error { return e.Err }

// errNoStructuredContent is the Err of an OutputSchemaError for a result
// without structuredContent.
var errNoStructuredContent = errors.New("the tool declares an outputSchema, and its result has no structuredContent")

// checkOutput checks a result of the tool name against the tool's output
// schema, if the session knows one.
func (s *Session) checkOutput(name string, res *mcp.CallToolResult) error {
	if res.IsError {
		return nil
	}
	o := s.tools.output(name)
	if o == nil {
		return nil
	}
	schema, err := o.compiled()
	switch {
	case err != nil:
		return &OutputSchemaError{Tool: name, Result: res, Err: err}
	case schema == nil:
		return nil
	case len(res.StructuredContent) == 0:
		return &OutputSchemaError{Tool: name, Result: res, Err: errNoStructuredContent}
	}
	if err := schema.Validate(res.StructuredContent); err != nil {
		return &OutputSchemaError{Tool: name, Result: res, Err: err}
	}
	return nil
}
