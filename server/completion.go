package server

import (
	"context"
	"encoding/json"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A Completer proposes values for an argument of a prompt or a variable of
// a resource template: argument is its name, value what the user typed so
// far, and context the values of the other arguments already chosen.
// Return at most 100 values; the server cuts the list and sets hasMore.
type Completer func(ctx context.Context, req *Request, argument, value string, context map[string]string) ([]string, error)

// maxCompletionValues is the most values a completion result may hold.
const maxCompletionValues = 100

func (s *Server) hasCompletersLocked() bool {
	for _, p := range s.prompts.all() {
		if p.complete != nil {
			return true
		}
	}
	for _, t := range s.templates.all() {
		if t.complete != nil {
			return true
		}
	}
	return false
}

func (s *Server) complete(ctx context.Context, r *Request, p *mcp.CompleteParams) (any, error) {
	if s.opts.Complete != nil {
		res, err := s.opts.Complete(ctx, r, p)
		if err != nil || res == nil {
			if err == nil {
				res = &mcp.CompleteResult{}
			} else {
				return nil, err
			}
		}
		c := *res
		r.complete(&c.ResultType, &c.Meta)
		return &c, nil
	}
	var completer Completer
	s.mu.RLock()
	switch p.Ref.Type {
	case mcp.RefTypePrompt:
		e, ok := s.prompts.get(p.Ref.Name)
		if !ok {
			s.mu.RUnlock()
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown prompt %q", p.Ref.Name)
		}
		completer = e.complete
	case mcp.RefTypeResource:
		e, ok := s.templates.get(p.Ref.URI)
		if !ok {
			if _, isResource := s.resources.get(p.Ref.URI); !isResource {
				s.mu.RUnlock()
				return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown resource template %q", p.Ref.URI)
			}
		} else {
			completer = e.complete
		}
	default:
		s.mu.RUnlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown reference type %q", p.Ref.Type)
	}
	s.mu.RUnlock()
	res := &mcp.CompleteResult{}
	if completer != nil {
		var args map[string]string
		if p.Context != nil {
			args = p.Context.Arguments
		}
		values, err := completer(ctx, r, p.Argument.Name, p.Argument.Value, args)
		if err != nil {
			return nil, err
		}
		if len(values) > maxCompletionValues {
			res.Completion.Total = len(values)
			res.Completion.HasMore = true
			values = values[:maxCompletionValues]
		}
		res.Completion.Values = values
	}
	r.complete(&res.ResultType, &res.Meta)
	return res, nil
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
