package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/internal/jsonschema"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A ToolHandler runs a tool. It returns the tool's result; an error
// becomes a result with IsError set and the error's text, so that the
// model sees it, except for a *jsonrpc.Error, which is sent as a protocol
// error, and for the error of Request.Ask, which ends a modern round.
// Arguments have been validated against the tool's input schema. Params
// are read-only: a modern request's state is bound to them.
type ToolHandler func(ctx context.Context, req *Request, params *mcp.CallToolParams) (*mcp.CallToolResult, error)

type toolEntry struct {
	tool    mcp.Tool
	handler ToolHandler
	input   *jsonschema.Schema // validates arguments; nil for none
}

// AddTool adds a tool with a handler that takes the raw arguments, or
// replaces the tool of the same name. The tool's InputSchema must be an
// object schema (nil means any object); arguments are validated against
// it before the handler runs. Sessions are told the list changed.
//
// For tools whose arguments and results are Go types, use the generic
// function AddTool, which infers the schemas.
func (s *Server) AddTool(tool *mcp.Tool, h ToolHandler) error {
	return s.addTool(tool, h, nil, nil)
}

// addTool is AddTool, given the tool's schemas when the generic AddTool
// has inferred or compiled them already (nil otherwise).
func (s *Server) addTool(tool *mcp.Tool, h ToolHandler, in, out *jsonschema.Schema) error {
	if h == nil {
		return errors.New("mcp server: AddTool needs a handler")
	}
	if err := checkToolName(tool.Name); err != nil {
		return err
	}
	t := *tool
	if err := s.checkAppTool(&t); err != nil { // _meta.ui (apps.go)
		return err
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	if in == nil || !in.ObjectRoot() {
		var err error
		in, err = jsonschema.Compile(t.InputSchema, &jsonschema.CompileOptions{ObjectRoot: true})
		if err != nil {
			return fmt.Errorf("mcp server: tool %q: input schema: %w", t.Name, err)
		}
	}
	if out == nil && len(t.OutputSchema) > 0 {
		if _, err := jsonschema.Compile(t.OutputSchema, nil); err != nil {
			return fmt.Errorf("mcp server: tool %q: output schema: %w", t.Name, err)
		}
	}
	s.mu.Lock()
	s.tools.set(t.Name, &toolEntry{tool: t, handler: h, input: in})
	s.mu.Unlock()
	s.listChanged(listTools)
	return nil
}

// RemoveTools removes the named tools; sessions are told the list changed
// if any was removed.
func (s *Server) RemoveTools(names ...string) {
	removed := false
	s.mu.Lock()
	for _, n := range names {
		removed = s.tools.remove(n) || removed
	}
	s.mu.Unlock()
	if removed {
		s.listChanged(listTools)
	}
}

// Tools returns the tools as listed, in order.
func (s *Server) Tools() []mcp.Tool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]mcp.Tool, 0, s.tools.len())
	for _, e := range s.tools.all() {
		out = append(out, e.tool)
	}
	return out
}

// checkToolName enforces the tool-name rules of 2025-11-25: 1 to 128
// characters among A-Z a-z 0-9 _ - and '.'.
func checkToolName(name string) error {
	if name == "" || len(name) > 128 {
		return fmt.Errorf("mcp server: a tool name must have 1 to 128 characters, not %d", len(name))
	}
	for _, c := range []byte(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
		default:
			return fmt.Errorf("mcp server: tool name %q: only A-Z, a-z, 0-9, '_', '-' and '.' are allowed", name)
		}
	}
	return nil
}

func (s *Server) listTools(ctx context.Context, r *Request, p *mcp.ListToolsParams) (any, error) {
	s.mu.RLock()
	entries, next, err := s.tools.page(p.Cursor, s.opts.PageSize)
	s.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	res := &mcp.ListToolsResult{Tools: make([]mcp.Tool, len(entries)), NextCursor: next}
	for i, e := range entries {
		res.Tools[i] = e.tool
	}
	r.cacheable(&res.ResultType, &res.Meta, &res.TTLMs, &res.CacheScope)
	return res, nil
}

func (s *Server) callTool(ctx context.Context, r *Request, p *mcp.CallToolParams) (any, error) {
	s.mu.RLock()
	e, ok := s.tools.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown tool %q", p.Name)
	}
	if len(p.Arguments) == 0 || string(p.Arguments) == "null" {
		p.Arguments = json.RawMessage(`{}`)
	}
	if err := s.startRound(ctx, r, p, p.RequestState, p.InputResponses); err != nil {
		return nil, err
	}
	if res, handled, err := s.callToolTask(ctx, r, p, e); handled { // tasks: (tasks_call.go)
		return res, err
	}
	res, err := s.invokeTool(ctx, r, p, e)
	if err != nil {
		return nil, err
	}
	if !r.IsModern() {
		return res, nil
	}
	c := *res // the handler's result may be shared: mark a copy
	r.complete(&c.ResultType, &c.Meta)
	return &c, nil
}

// invokeTool validates the arguments and runs the handler: it returns the
// tool's result (never nil), or the protocol error the call fails with.
func (s *Server) invokeTool(ctx context.Context, r *Request, p *mcp.CallToolParams, e *toolEntry) (*mcp.CallToolResult, error) {
	if err := e.input.Validate(p.Arguments); err != nil {
		return ErrorResult(fmt.Sprintf("invalid arguments for tool %q: %s", p.Name, validationMessage(err, "arguments"))), nil
	}
	res, err := e.handler(ctx, r, p)
	switch {
	case err != nil && isProtocolError(err):
		return nil, err
	case err != nil:
		return ErrorResult(err.Error()), nil
	case res == nil:
		return &mcp.CallToolResult{}, nil
	}
	return res, nil
}

// isProtocolError tells the errors of a tool handler that are sent as
// JSON-RPC errors rather than as tool results.
func isProtocolError(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) || errors.Is(err, ErrInputRequired)
}

// ErrorResult returns a tool result that reports a failure to the model.
func ErrorResult(text string) *mcp.CallToolResult {
	res := TextResult(text)
	res.IsError = true
	return res
}

// TextResult returns a tool result holding one text block.
func TextResult(text string) *mcp.CallToolResult {
	// One allocation for the result, its list and its block.
	x := new(struct {
		res   mcp.CallToolResult
		list  [1]mcp.Content
		block mcp.TextContent
	})
	x.block.Text = text
	x.list[0] = &x.block
	x.res.Content = x.list[:]
	return &x.res
}

// validationMessage words a validation error for the model, naming the
// instance root.
func validationMessage(err error, root string) string {
	var verr *jsonschema.ValidationError
	if errors.As(err, &verr) {
		return verr.Message(root)
	}
	return err.Error()
}

// Errors that AddTool's error wraps when a tool's schema cannot be used.
var (
	// ErrNeedsFullSchemaEngine: the schema uses a keyword the built-in
	// JSON Schema engine lacks ($dynamicRef, unevaluatedProperties, ...);
	// import _ "github.com/mcpwire/mcpwire/server/fullschema" to link the
	// full engine. The error's text names the keyword.
	ErrNeedsFullSchemaEngine = jsonschema.ErrNeedsFullEngine
	// ErrRemoteSchemaRef: the schema refers to another document; nothing
	// is ever fetched, so schemas must be self-contained.
	ErrRemoteSchemaRef = jsonschema.ErrRemoteRef
)
