package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
)

// CallTool calls the tool name with args and decodes its result into Out:
// the typed counterpart of Session.CallTool, written as a function since
// Go methods cannot have type parameters.
//
//	type Forecast struct {
//		City string  `json:"city"`
//		High float64 `json:"high"`
//	}
//	f, err := client.CallTool[Forecast](ctx, sess, "forecast", map[string]any{"city": "Paris"})
//
// args is encoded to JSON (a json.RawMessage is sent as it is; nil sends
// no arguments). The result is decoded, with encoding/json's rules, from
//
//   - its structuredContent, checked first against the tool's
//     outputSchema as Session.CallTool does (an *OutputSchemaError);
//   - otherwise its text (the text blocks, joined by newlines), as older
//     servers send JSON results: parsed as JSON, or, when Out is a
//     string, taken as it is.
//
// A failure of the tool itself (a result with isError) is a *ToolError,
// which holds the result; a protocol error is returned as it is; a result
// that does not decode into Out is an error that says why.
func CallTool[Out any](ctx context.Context, s *Session, name string, args any) (Out, error) {
	var out Out
	p, err := mcp.NewCallToolParams(name, args)
	if err != nil {
		return out, fmt.Errorf("mcp client: %w", err)
	}
	res, err := s.CallTool(ctx, p)
	if err != nil {
		return out, err
	}
	if res.IsError {
		return out, &ToolError{Tool: name, Result: res}
	}
	err = decodeResult(res, &out)
	if err != nil {
		return out, fmt.Errorf("mcp client: the result of tool %q: %w", name, err)
	}
	return out, nil
}

// decodeResult decodes a tool's result into out (a pointer), from its
// structuredContent or its text.
func decodeResult(res *mcp.CallToolResult, out any) error {
	if len(res.StructuredContent) > 0 {
		if err := json.Unmarshal(res.StructuredContent, out); err != nil {
			return fmt.Errorf("decoding structuredContent into %s: %w", reflect.TypeOf(out).Elem(), err)
		}
		return nil
	}
	text, hasText := resultText(res)
	if !hasText {
		return errors.New("it has neither structuredContent nor text content")
	}
	if s, ok := out.(*string); ok {
		*s = text
		return nil
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		return fmt.Errorf("it has no structuredContent, and its text is not the JSON of %s: %w", reflect.TypeOf(out).Elem(), err)
	}
	return nil
}

// resultText returns the text of a result's text blocks, and whether it
// has any.
func resultText(res *mcp.CallToolResult) (string, bool) {
	for _, c := range res.Content {
		if _, ok := c.(*mcp.TextContent); ok {
			return res.Content.Text(), true
		}
	}
	return "", false
}

// A ToolError is a tool's own failure, a result with isError, as the
// function CallTool reports it. (Session.CallTool returns such a result
// as a result: the model is meant to read it.)
type ToolError struct {
	// Tool is the tool's name.
	Tool string
	// Result is the result as received; its text says what failed.
	Result *mcp.CallToolResult
}

// maxToolErrorText bounds the text of the result that Error quotes.
const maxToolErrorText = 1024

func (e *ToolError) Error() string {
	text := e.Result.Content.Text()
	if len(text) > maxToolErrorText {
		text = strings.ToValidUTF8(text[:maxToolErrorText], "") + "..."
	}
	if text == "" {
		return fmt.Sprintf("mcp client: the tool %q failed", e.Tool)
	}
	return fmt.Sprintf("mcp client: the tool %q failed: %s", e.Tool, text)
}
