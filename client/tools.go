package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
)

// ListTools returns one page of the server's tools; see Tools for all.
//
// The session remembers what it needs of each tool listed (see
// Options.MaxCachedTools): the output schema that CallTool checks results
// against, and on Streamable HTTP the x-mcp-header parameters of modern
// tool calls. Over HTTP in the modern era, a tool whose x-mcp-header
// annotations are invalid cannot be called, and the specification has
// clients drop it: ListTools then returns the page without it and, with
// it, a DroppedTools error naming each dropped tool and why. The page is
// valid; test with errors.As to go on:
//
//	res, err := sess.ListTools(ctx, nil)
//	var dropped client.DroppedTools
//	if errors.As(err, &dropped) {
//		log.Printf("unusable tools: %v", dropped) // res holds the others
//	} else if err != nil {
//		return err
//	}
func (s *Session) ListTools(ctx context.Context, params *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	p := derefOr(params)
	res, err := call[mcp.ListToolsResult](ctx, s, mcp.MethodListTools, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	if dropped := s.learnTools(res); dropped != nil {
		return res, dropped
	}
	return res, nil
}

// Tools iterates over every tool of the server, page after page. A tool
// the client dropped (see ListTools) comes as a *DroppedToolError in
// place of a tool, after the other tools of its page; the iteration goes
// on if the loop does. Any other error ends it.
//
//	for tool, err := range sess.Tools(ctx) {
//		var dropped *client.DroppedToolError
//		if errors.As(err, &dropped) {
//			log.Printf("skipping %s: %v", dropped.Tool.Name, dropped.Err)
//			continue
//		}
//		if err != nil {
//			return err
//		}
//		...
//	}
func (s *Session) Tools(ctx context.Context) iter.Seq2[*mcp.Tool, error] {
	return pages(func(c mcp.Cursor) ([]mcp.Tool, mcp.Cursor, error) {
		r, err := s.ListTools(ctx, &mcp.ListToolsParams{Cursor: c})
		if r == nil {
			return nil, "", err
		}
		return r.Tools, r.NextCursor, err
	})
}

// CallTool calls a tool. A failure of the tool itself is a result with
// IsError set, not an error. In the modern era, questions the tool asks
// are answered with the client's handlers and the call retried, until it
// completes.
//
// When the tool declared an outputSchema in the session's latest
// tools/list, the result's structuredContent is checked against it: a
// result that does not conform, or lacks it, is an *OutputSchemaError
// (which holds the result). See the function CallTool for a call that
// decodes the structured result into a Go value.
func (s *Session) CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	p := *params // stamped and retried: a copy, which stays on the stack
	res, err := rounds[mcp.CallToolResult](ctx, s, mcp.MethodCallTool, func() ([]byte, error) { return p.AppendJSON(nil) }, &p.Meta, func(r mcp.InputResponses, st string) {
		p.InputResponses, p.RequestState = r, st
	})
	if err != nil {
		return nil, err
	}
	if err := s.checkOutput(p.Name, res); err != nil {
		return nil, err
	}
	return res, nil
}

// A DroppedToolError reports a tool that the client removed from a
// tools/list result: the server listed it, but it breaks a rule that the
// client must enforce, so that this session cannot call it. The one such
// rule today is that of Streamable HTTP in the modern era: a tool whose
// x-mcp-header annotations are invalid is dropped (Err then wraps
// mcp.ErrInvalidHeaderAnnotation and says what is wrong).
type DroppedToolError struct {
	// Tool is the tool as the server listed it.
	Tool mcp.Tool
	// Err says why it was dropped.
	Err error
}

func (e *DroppedToolError) Error() string {
	return fmt.Sprintf("mcp client: dropped the tool %q: %v", e.Tool.Name, e.Err)
}

// Unwrap returns e.Err.
func (e *DroppedToolError) Unwrap() error { return e.Err }

// DroppedTools is the error ListTools returns, beside a valid page, when
// it dropped tools from the page: one *DroppedToolError per tool, in the
// order the server listed them. errors.As reaches each of them, and
// errors.Is their causes.
type DroppedTools []*DroppedToolError

func (d DroppedTools) Error() string {
	names := make([]string, len(d))
	for i, e := range d {
		names[i] = fmt.Sprintf("%q (%v)", e.Tool.Name, e.Err)
	}
	return "mcp client: dropped " + plural(len(d), "tool") + " from tools/list: " + strings.Join(names, ", ")
}

// Unwrap returns the *DroppedToolError of each tool.
func (d DroppedTools) Unwrap() []error {
	errs := make([]error, len(d))
	for i, e := range d {
		errs[i] = e
	}
	return errs
}

// plural returns "1 tool", "2 tools".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// learnTools remembers what the session needs of the tools of a
// tools/list page, and drops from it the tools it cannot call: in the
// modern era over a transport that mirrors x-mcp-header parameters in
// headers, those whose annotations are invalid (2026-07-28, "clients MUST
// drop" them). It returns the dropped tools, or nil.
func (s *Session) learnTools(res *mcp.ListToolsResult) DroppedTools {
	var dropped DroppedTools
	kept := res.Tools[:0]
	for i := range res.Tools {
		t := &res.Tools[i]
		var headers bool
		if s.modern && s.tools.mirror {
			params, err := mcp.ToolHeaderParams(t.InputSchema)
			if errors.Is(err, mcp.ErrInvalidHeaderAnnotation) {
				s.client.log.Info("mcp client: dropped a tool with an invalid x-mcp-header annotation", "tool", t.Name, "error", err)
				dropped = append(dropped, &DroppedToolError{Tool: *t, Err: err})
				s.tools.forget(t.Name)
				continue
			}
			headers = len(params) > 0
		}
		s.tools.learn(t, headers)
		kept = append(kept, *t)
	}
	clear(res.Tools[len(kept):])
	res.Tools = kept
	return dropped
}
