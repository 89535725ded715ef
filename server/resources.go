package server

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store"
)

// A ResourceHandler reads a resource. For a resource added with
// AddResource, params.URI is that resource's URI; for a template, it is a
// URI that matches the template, and vars holds the values of the
// template's variables. Return mcp.ResourceNotFoundError(uri) when there
// is no such resource: the server sends the error code of the request's
// era. Params are read-only: a modern request's state is bound to them.
type ResourceHandler func(ctx context.Context, req *Request, params *mcp.ReadResourceParams, vars map[string]string) (*mcp.ReadResourceResult, error)

type resourceEntry struct {
	resource mcp.Resource
	handler  ResourceHandler
	skill    bool // a skill's SKILL.md, listed by its skill set (syncSkillResources)
}

type templateEntry struct {
	template mcp.ResourceTemplate
	compiled *uritemplate.Template
	handler  ResourceHandler
	complete Completer
}

// AddResource adds a resource, or replaces the one with the same URI.
func (s *Server) AddResource(r *mcp.Resource, h ResourceHandler) error {
	if h == nil {
		return errors.New("mcp server: AddResource needs a handler")
	}
	if _, err := url.Parse(r.URI); err != nil || r.URI == "" {
		return fmt.Errorf("mcp server: resource URI %q is not a valid URI", r.URI)
	}
	if r.Name == "" {
		return fmt.Errorf("mcp server: resource %q needs a name", r.URI)
	}
	s.mu.Lock()
	s.resources.set(r.URI, &resourceEntry{resource: *r, handler: h})
	s.mu.Unlock()
	s.listChanged(listResources)
	return nil
}

// AddResourceTemplate adds a family of resources named by an RFC 6570 URI
// template, or replaces the template with the same text. Reads of URIs
// that match it and no plain resource go to h. complete, if not nil,
// proposes values for the template's variables (completion/complete).
func (s *Server) AddResourceTemplate(t *mcp.ResourceTemplate, h ResourceHandler, complete Completer) error {
	if h == nil {
		return errors.New("mcp server: AddResourceTemplate needs a handler")
	}
	ct, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return fmt.Errorf("mcp server: URI template %q: %w", t.URITemplate, err)
	}
	if t.Name == "" {
		return fmt.Errorf("mcp server: URI template %q needs a name", t.URITemplate)
	}
	s.mu.Lock()
	s.templates.set(t.URITemplate, &templateEntry{template: *t, compiled: ct, handler: h, complete: complete})
	s.mu.Unlock()
	s.listChanged(listResources)
	return nil
}

// RemoveResources removes the resources with the given URIs, and the
// templates with the given template texts.
func (s *Server) RemoveResources(uris ...string) {
	removed := false
	s.mu.Lock()
	for _, u := range uris {
		removed = s.resources.remove(u) || removed
		removed = s.templates.remove(u) || removed
	}
	s.mu.Unlock()
	if removed {
		s.listChanged(listResources)
	}
}

// ResourceUpdated tells the clients subscribed to uri that it changed:
// the legacy sessions that subscribed to it and the listens that name it.
// It returns at once; the notifications follow, one per client however
// many updates it has not read yet.
func (s *Server) ResourceUpdated(uri string) {
	key := "u" + uri
	n := note{method: mcp.NotificationResourceUpdated, uri: uri}
	for sess := range s.Sessions() {
		s.post(sess, func(b *outbox) bool {
			if _, ok := sess.subs[uri]; !ok || !sess.initialized || sess.shared {
				return false
			}
			return s.putNote(b, key, n)
		})
	}
	s.resourceUpdatedListeners(uri)
	if s.shared != nil { // scale-out: every instance's clients (shared.go)
		s.shared.resourceUpdated(uri)
	}
}

// resourceUpdatedListeners tells the modern listeners of this instance
// that name uri that it changed.
func (s *Server) resourceUpdatedListeners(uri string) {
	key := "u" + uri
	n := note{method: mcp.NotificationResourceUpdated, uri: uri}
	for _, l := range s.listenersWhere(func(f *mcp.SubscriptionFilter) bool {
		return slices.Contains(f.ResourceSubscriptions, uri)
	}) {
		s.post(l, func(b *outbox) bool { return s.putNote(b, key, n) })
	}
}

func (s *Server) listResources(ctx context.Context, r *Request, p *mcp.ListResourcesParams) (any, error) {
	s.mu.RLock()
	entries, next, err := s.resources.page(p.Cursor, s.opts.PageSize)
	s.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	res := &mcp.ListResourcesResult{Resources: make([]mcp.Resource, len(entries)), NextCursor: next}
	for i, e := range entries {
		res.Resources[i] = e.resource
	}
	r.cacheable(&res.ResultType, &res.Meta, &res.TTLMs, &res.CacheScope)
	return res, nil
}

func (s *Server) listTemplates(ctx context.Context, r *Request, p *mcp.ListResourceTemplatesParams) (any, error) {
	s.mu.RLock()
	entries, next, err := s.templates.page(p.Cursor, s.opts.PageSize)
	s.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	res := &mcp.ListResourceTemplatesResult{ResourceTemplates: make([]mcp.ResourceTemplate, len(entries)), NextCursor: next}
	for i, e := range entries {
		res.ResourceTemplates[i] = e.template
	}
	r.cacheable(&res.ResultType, &res.Meta, &res.TTLMs, &res.CacheScope)
	return res, nil
}

// findResource returns the handler for uri: the resource with that URI,
// else the first template (in order of addition) that matches it.
func (s *Server) findResource(uri string) (ResourceHandler, map[string]string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e, ok := s.resources.get(uri); ok {
		return e.handler, nil
	}
	if h := s.skillFileHandler(uri); h != nil { // skills: a skill's file (skills.go)
		return h, nil
	}
	for _, t := range s.templates.all() {
		if m := t.compiled.Match(uri); m != nil {
			vars := make(map[string]string, len(m))
			for _, name := range t.compiled.Varnames() {
				if v := m.Get(name); v.Valid() {
					vars[name] = v.String()
				}
			}
			return t.handler, vars
		}
	}
	return nil, nil
}

func (s *Server) readResource(ctx context.Context, r *Request, p *mcp.ReadResourceParams) (any, error) {
	if p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: "uri" is required`)
	}
	h, vars := s.findResource(p.URI)
	if h == nil {
		return nil, mcp.ResourceNotFoundError(p.URI)
	}
	if err := s.startRound(ctx, r, p, p.RequestState, p.InputResponses); err != nil {
		return nil, err
	}
	res, err := h(ctx, r, p, vars)
	if err != nil {
		return nil, err
	}
	if res == nil || len(res.Contents) == 0 {
		return nil, mcp.ResourceNotFoundError(p.URI)
	}
	c := *res
	r.cacheable(&c.ResultType, &c.Meta, &c.TTLMs, &c.CacheScope)
	return &c, nil
}

func (s *Server) subscribe(ctx context.Context, r *Request, p *mcp.SubscribeParams) (any, error) {
	if p.URI == "" {
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, `Invalid params: "uri" is required`)
	}
	sess := r.Session
	if sess.shared { // scale-out: the store keeps and bounds them (shared.go)
		if err := s.shared.update(ctx, sess, &store.SessionUpdate{Subscribe: p.URI, MaxSubscriptions: s.opts.MaxSubscriptions}); err != nil {
			return nil, err
		}
		return mcp.EmptyResult{}, nil
	}
	sess.mu.Lock()
	if sess.subs == nil {
		sess.subs = make(map[string]struct{})
	}
	if _, ok := sess.subs[p.URI]; !ok && len(sess.subs) >= s.opts.MaxSubscriptions {
		sess.mu.Unlock()
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: a session may hold at most %d subscriptions", s.opts.MaxSubscriptions)
	}
	sess.subs[p.URI] = struct{}{}
	sess.mu.Unlock()
	return mcp.EmptyResult{}, nil
}

func (s *Server) unsubscribe(ctx context.Context, r *Request, p *mcp.UnsubscribeParams) (any, error) {
	sess := r.Session
	if sess.shared && p.URI != "" {
		if err := s.shared.update(ctx, sess, &store.SessionUpdate{Unsubscribe: p.URI}); err != nil {
			return nil, err
		}
	}
	sess.mu.Lock()
	delete(sess.subs, p.URI)
	sess.mu.Unlock()
	return mcp.EmptyResult{}, nil
}
