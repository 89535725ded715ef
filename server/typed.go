package server

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/mcpwire/mcpwire/internal/jsonschema"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A TypedToolHandler runs a tool whose arguments are a Go value In and
// whose result is a Go value Out.
type TypedToolHandler[In, Out any] func(ctx context.Context, req *Request, in In) (Out, error)

var (
	callToolResultType = reflect.TypeFor[*mcp.CallToolResult]()
	stringType         = reflect.TypeFor[string]()
)

// AddTool adds a tool whose arguments decode into In and whose result is
// Out, inferring the JSON Schemas from the types (see package
// internal/jsonschema for the rules; a field's description comes from its
// `jsonschema:"..."` tag). A schema already set on tool is kept as given.
// Arguments decode as encoding/json decodes them, except that a whole
// number written 1.0 or 1e1 goes into a Go integer exactly, and a number
// beyond its Go type's range is a result with IsError naming the argument
// and the bound (see "Numeric arguments" in the package documentation).
//
// Out decides the result:
//   - *mcp.CallToolResult: returned as it is, no output schema;
//   - string: one text block;
//   - anything else: structuredContent (checked against the output
//     schema), with its JSON also as a text block for older clients.
//
// A handler error becomes a result with IsError set (see ToolHandler).
//
//	type Args struct {
//		Text string `json:"text" jsonschema:"the text to echo"`
//	}
//	server.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes text"},
//		func(ctx context.Context, req *server.Request, in Args) (string, error) {
//			return in.Text, nil
//		})
func AddTool[In, Out any](s *Server, tool *mcp.Tool, h TypedToolHandler[In, Out]) error {
	t := *tool
	var input *jsonschema.Schema
	if len(t.InputSchema) == 0 {
		var err error
		input, err = jsonschema.For[In](&jsonschema.InferOptions{SafeIntegers: true})
		if err != nil {
			return fmt.Errorf("mcp server: tool %q: inferring the input schema: %w", t.Name, err)
		}
		t.InputSchema = input.JSON()
	}
	outType := reflect.TypeFor[Out]()
	structured := outType != callToolResultType && outType != stringType
	var output *jsonschema.Schema
	if structured {
		var err error
		if len(t.OutputSchema) == 0 {
			output, err = jsonschema.For[Out](nil)
			if err == nil {
				t.OutputSchema = output.JSON()
			}
		} else {
			output, err = jsonschema.Compile(t.OutputSchema, nil)
		}
		if err != nil {
			return fmt.Errorf("mcp server: tool %q: output schema: %w", t.Name, err)
		}
	}
	dec := newArgDecoder(reflect.TypeFor[In]())
	return s.addTool(&t, func(ctx context.Context, req *Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		var in In
		if err := dec.decode(p.Arguments, &in); err != nil {
			return ErrorResult(fmt.Sprintf("invalid arguments for tool %q: %s", p.Name, validationMessage(err, "arguments"))), nil
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		switch v := any(out).(type) {
		case *mcp.CallToolResult:
			return v, nil
		case string:
			return TextResult(v), nil
		}
		raw, err := json.Marshal(out)
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: tool %q: encoding the result: %v", p.Name, err)
		}
		if err := output.Validate(raw); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: tool %q: the result does not match the output schema: %s", p.Name, validationMessage(err, "structuredContent"))
		}
		return &mcp.CallToolResult{
			Content:           mcp.ContentList{&mcp.TextContent{Text: string(raw)}},
			StructuredContent: raw,
		}, nil
	}, input, output)
}
