package server

import (
	"context"
	"encoding/json"
	"errors"
	"maps"

	"github.com/mcpwire/mcpwire/internal/peer"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store"
)

// methodInfo is one entry of the method table.
type methodInfo struct {
	handle func(ctx context.Context, s *Server, req *jsonrpc.Request) (any, error)
}

// method builds a table entry for a method whose params decode into P:
// decode, classify by era and check the envelope, then run f. The
// Request and its params are one allocation; the envelope of modern
// requests is decoded through a cache, so that the one a client repeats
// costs nothing after its first request.
func method[P any](meta func(*P) *mcp.RequestMeta, f func(ctx context.Context, r *Request, p *P) (any, error)) *methodInfo {
	envelopes := mcp.NewEnvelopeCache()
	return &methodInfo{handle: func(ctx context.Context, s *Server, req *jsonrpc.Request) (any, error) {
		x := new(struct {
			r Request
			p P
		})
		r := &x.r
		s.initRequest(ctx, r, req)
		res, err := run(ctx, r, req.Params, &x.p, meta(&x.p), envelopes, f)
		return s.finish(ctx, r, req, res, err)
	}}
}

// run decodes the params into p (m is their _meta), begins the request
// and runs f.
func run[P any](ctx context.Context, r *Request, raw json.RawMessage, p *P, m *mcp.RequestMeta, envelopes *mcp.EnvelopeCache, f func(ctx context.Context, r *Request, p *P) (any, error)) (any, error) {
	m.UseCache(envelopes)
	err := peer.DecodeParamsInto(raw, p)
	m.UseCache(nil)
	if err != nil {
		return nil, err
	}
	if err := r.begin(m); err != nil {
		return nil, err
	}
	return f(ctx, r, p)
}

// methodTable lists every method and notification the server answers.
func (s *Server) methodTable() map[string]*methodInfo {
	rp := func(p *mcp.RequestParams) *mcp.RequestMeta { return &p.Meta }
	return map[string]*methodInfo{
		mcp.MethodInitialize:             method(func(p *mcp.InitializeParams) *mcp.RequestMeta { return &p.Meta }, s.initialize),
		mcp.NotificationInitialized:      method(rp, s.initialized),
		mcp.MethodPing:                   method(rp, s.ping),
		mcp.MethodSetLevel:               method(func(p *mcp.SetLevelParams) *mcp.RequestMeta { return &p.Meta }, s.setLevel),
		mcp.MethodDiscover:               method(rp, s.discover),
		mcp.NotificationRootsListChanged: method(rp, s.rootsListChanged),
		mcp.MethodListTools:              method(func(p *mcp.ListToolsParams) *mcp.RequestMeta { return &p.Meta }, s.listTools),
		mcp.MethodCallTool:               method(func(p *mcp.CallToolParams) *mcp.RequestMeta { return &p.Meta }, s.callTool),
		mcp.MethodListResources:          method(func(p *mcp.ListResourcesParams) *mcp.RequestMeta { return &p.Meta }, s.listResources),
		mcp.MethodListResourceTemplates:  method(func(p *mcp.ListResourceTemplatesParams) *mcp.RequestMeta { return &p.Meta }, s.listTemplates),
		mcp.MethodReadResource:           method(func(p *mcp.ReadResourceParams) *mcp.RequestMeta { return &p.Meta }, s.readResource),
		mcp.MethodSubscribe:              method(func(p *mcp.SubscribeParams) *mcp.RequestMeta { return &p.Meta }, s.subscribe),
		mcp.MethodUnsubscribe:            method(func(p *mcp.UnsubscribeParams) *mcp.RequestMeta { return &p.Meta }, s.unsubscribe),
		mcp.MethodListPrompts:            method(func(p *mcp.ListPromptsParams) *mcp.RequestMeta { return &p.Meta }, s.listPrompts),
		mcp.MethodGetPrompt:              method(func(p *mcp.GetPromptParams) *mcp.RequestMeta { return &p.Meta }, s.getPrompt),
		mcp.MethodComplete:               method(func(p *mcp.CompleteParams) *mcp.RequestMeta { return &p.Meta }, s.complete),
		mcp.MethodSubscriptionsListen:    method(func(p *mcp.SubscriptionsListenParams) *mcp.RequestMeta { return &p.Meta }, s.listen),
		// tasks: both eras' tasks/* methods (tasks_methods.go)
		mcp.MethodGetTask:        method(func(p *mcp.GetTaskParams) *mcp.RequestMeta { return &p.Meta }, s.getTask),
		mcp.MethodGetTaskPayload: method(func(p *mcp.GetTaskPayloadParams) *mcp.RequestMeta { return &p.Meta }, s.taskResult),
		mcp.MethodListTasks:      method(func(p *mcp.ListTasksParams) *mcp.RequestMeta { return &p.Meta }, s.listTasks),
		mcp.MethodCancelTask:     method(func(p *mcp.CancelTaskParams) *mcp.RequestMeta { return &p.Meta }, s.cancelTask),
		mcp.MethodUpdateTask:     method(func(p *mcp.UpdateTaskParams) *mcp.RequestMeta { return &p.Meta }, s.updateTask),
		// skills: the extension's methods (skills_methods.go)
		mcp.MethodListSkills:    method(func(p *mcp.ListSkillsParams) *mcp.RequestMeta { return &p.Meta }, s.listSkills),
		mcp.MethodGetSkill:      method(func(p *mcp.GetSkillParams) *mcp.RequestMeta { return &p.Meta }, s.getSkill),
		mcp.MethodReadDirectory: method(func(p *mcp.ReadDirectoryParams) *mcp.RequestMeta { return &p.Meta }, s.readDirectory),
	}
}

// dispatch is the server's JSON-RPC handler: every request and
// notification of every session, and every stateless request, goes
// through it.
func (s *Server) dispatch(ctx context.Context, req *jsonrpc.Request) (any, error) {
	m := s.methods[req.Method]
	if m == nil {
		if !req.IsCall() {
			return nil, nil // unknown notifications are ignored
		}
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", req.Method)
	}
	return m.handle(ctx, s, req)
}

// initRequest fills in what a request knows before its params are read:
// the server, the session, and the way back to the client.
func (s *Server) initRequest(ctx context.Context, r *Request, req *jsonrpc.Request) {
	r.server, r.Session, r.Method, r.ID = s, SessionFromContext(ctx), req.Method, req.ID
	if o, ok := ctx.Value(outboundKey{}).(outbound); ok {
		r.out = o
	} else if c := jsonrpc.ConnFromContext(ctx); c != nil {
		r.out = c
	} else {
		r.out = noOutbound{}
	}
}

// finish turns the end of a modern round into its input_required result
// and words protocol errors for the request's era.
func (s *Server) finish(ctx context.Context, r *Request, req *jsonrpc.Request, res any, err error) (any, error) {
	if err == nil {
		return res, nil
	}
	var ir *inputRequired
	if errors.As(err, &ir) {
		if !r.canAsk() {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: %s cannot ask the client for input", req.Method)
		}
		return s.inputRequiredResult(ctx, r, ir)
	}
	var e *jsonrpc.Error
	if r.IsModern() && errors.As(err, &e) {
		return nil, mcp.AdaptError(r.Version, e)
	}
	return res, err
}

// noOutbound stands in when a request has no way back to the client.
type noOutbound struct{}

func (noOutbound) Notify(context.Context, string, any) error { return nil }
func (noOutbound) Call(context.Context, string, any, any) error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: no connection to the client")
}

// complete marks a result for the request's era: in the modern era it
// gets resultType "complete" and the server's info in _meta.
func (r *Request) complete(rt *mcp.ResultType, meta *mcp.Meta) {
	if !r.IsModern() {
		return
	}
	*rt = mcp.ResultTypeComplete
	if *meta == nil {
		*meta = r.server.modernMeta
		return
	}
	m := maps.Clone(*meta)
	m[mcp.MetaKeyServerInfo] = r.server.info
	*meta = m
}

// cacheable marks a cacheable result (modern era): ttlMs and cacheScope.
func (r *Request) cacheable(rt *mcp.ResultType, meta *mcp.Meta, ttl **int64, scope *mcp.CacheScope) {
	if !r.IsModern() {
		return
	}
	r.complete(rt, meta)
	t := r.server.ttlMs
	*ttl = &t
	*scope = r.server.opts.CacheScope
}

// initialize answers the first request of a legacy session.
func (s *Server) initialize(ctx context.Context, r *Request, p *mcp.InitializeParams) (any, error) {
	sess := r.Session
	v, ok := s.negotiate(p.ProtocolVersion)
	if !ok {
		return nil, mcp.UnsupportedVersionError(string(p.ProtocolVersion), s.modernVersions())
	}
	client := s.clients.intern(v, p.ClientInfo, p.Capabilities)
	sess.mu.Lock()
	if sess.initialized {
		sess.mu.Unlock()
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: the session is already initialized")
	}
	sess.initialized = true
	sess.client = client
	sess.mu.Unlock()
	if sess.shared { // scale-out: (shared.go)
		if err := s.shared.update(ctx, sess, &store.SessionUpdate{
			Initialize: true, Version: v, ClientInfo: p.ClientInfo, ClientCapabilities: p.Capabilities,
		}); err != nil {
			return nil, err // the handler closes a session whose initialize failed
		}
	}
	return &mcp.InitializeResult{
		ProtocolVersion: v,
		Capabilities:    s.capabilitiesFor(v), // tasks: per-era task capabilities (tasks.go)
		ServerInfo:      s.info,
		Instructions:    s.opts.Instructions,
	}, nil
}

func (s *Server) initialized(ctx context.Context, r *Request, p *mcp.RequestParams) (any, error) {
	return nil, nil
}

func (s *Server) ping(ctx context.Context, r *Request, p *mcp.RequestParams) (any, error) {
	return mcp.EmptyResult{}, nil
}

func (s *Server) setLevel(ctx context.Context, r *Request, p *mcp.SetLevelParams) (any, error) {
	if !p.Level.IsValid() {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: unknown log level %q", p.Level)
	}
	if r.Session.shared {
		if err := s.shared.update(ctx, r.Session, &store.SessionUpdate{LogLevel: p.Level}); err != nil {
			return nil, err
		}
	}
	r.Session.mu.Lock()
	r.Session.setLogLevelLocked(p.Level)
	r.Session.mu.Unlock()
	return mcp.EmptyResult{}, nil
}

// discover answers server/discover (modern era).
func (s *Server) discover(ctx context.Context, r *Request, p *mcp.RequestParams) (any, error) {
	res := &mcp.DiscoverResult{
		SupportedVersions: s.versions,
		Capabilities:      s.capabilitiesFor(r.Version), // tasks: per-era task capabilities (tasks.go)
		Instructions:      s.opts.Instructions,
	}
	r.cacheable(&res.ResultType, &res.Meta, &res.TTLMs, &res.CacheScope)
	return res, nil
}

func (s *Server) rootsListChanged(ctx context.Context, r *Request, p *mcp.RequestParams) (any, error) {
	if f := s.opts.OnRootsListChanged; f != nil && r.Session != nil {
		f(ctx, r.Session)
	}
	return nil, nil
}
