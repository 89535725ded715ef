package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A PromptHandler renders a prompt. Required arguments have been checked
// to be present. Params are read-only: a modern request's state is bound
// to them.
type PromptHandler func(ctx context.Context, req *Request, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error)

type promptEntry struct {
	prompt   mcp.Prompt
	handler  PromptHandler
	complete Completer
}

// AddPrompt adds a prompt, or replaces the one with the same name.
// complete, if not nil, proposes values for the prompt's arguments
// (completion/complete).
func (s *Server) AddPrompt(p *mcp.Prompt, h PromptHandler, complete Completer) error {
	if h == nil {
		return errors.New("mcp server: AddPrompt needs a handler")
	}
	if p.Name == "" {
		return errors.New("mcp server: a prompt needs a name")
	}
	s.mu.Lock()
	s.prompts.set(p.Name, &promptEntry{prompt: *p, handler: h, complete: complete})
	s.mu.Unlock()
	s.listChanged(listPrompts)
	return nil
}

// RemovePrompts removes the named prompts.
func (s *Server) RemovePrompts(names ...string) {
	removed := false
	s.mu.Lock()
	for _, n := range names {
		removed = s.prompts.remove(n) || removed
	}
	s.mu.Unlock()
	if removed {
		s.listChanged(listPrompts)
	}
}

func (s *Server) listPrompts(ctx context.Context, r *Request, p *mcp.ListPromptsParams) (any, error) {
	s.mu.RLock()
	entries, next, err := s.prompts.page(p.Cursor, s.opts.PageSize)
	s.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	res := &mcp.ListPromptsResult{Prompts: make([]mcp.Prompt, len(entries)), NextCursor: next}
	for i, e := range entries {
		res.Prompts[i] = e.prompt
	}
	r.cacheable(&res.ResultType, &res.Meta, &res.TTLMs, &res.CacheScope)
	return res, nil
}

func (s *Server) getPrompt(ctx context.Context, r *Request, p *mcp.GetPromptParams) (any, error) {
	s.mu.RLock()
	e, ok := s.prompts.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown prompt %q", p.Name)
	}
	for _, a := range e.prompt.Arguments {
		if _, ok := p.Arguments[a.Name]; a.Required && !ok {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: prompt %q needs the argument %q", p.Name, a.Name)
		}
	}
	if err := s.startRound(ctx, r, p, p.RequestState, p.InputResponses); err != nil {
		return nil, err
	}
	res, err := e.handler(ctx, r, p)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: prompt %q produced no result", p.Name)
	}
	c := *res
	r.complete(&c.ResultType, &c.Meta)
	return &c, nil
}

// promptArgsJSON encodes prompt arguments for request-state binding.
func promptArgsJSON(args map[string]string) []byte {
	if len(args) == 0 {
		return nil
	}
	b, err := jsonMarshal(args)
	if err != nil {
		panic(fmt.Sprintf("encoding string map: %v", err)) // cannot happen
	}
	return b
}
