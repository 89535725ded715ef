package server

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// Options configure a Server. A nil *Options, and every zero field, mean
// the defaults.
type Options struct {
	// Instructions tell the model how to use the server.
	Instructions string
	// Logger receives the server's diagnostics. Default: discarded. The
	// server never writes to stdout or stderr by itself.
	Logger *slog.Logger
	// PageSize is the number of items per page of tools/list,
	// resources/list, resources/templates/list and prompts/list.
	// Default 100.
	PageSize int
	// KeepAlive, if positive, pings each legacy session at this interval
	// and closes the session when a ping goes unanswered.
	KeepAlive time.Duration
	// MaxConcurrency bounds the requests one session handles at once
	// (default jsonrpc.DefaultMaxConcurrency); MaxQueue bounds those
	// waiting (default jsonrpc.DefaultMaxQueue).
	MaxConcurrency, MaxQueue int
	// Complete answers completion/complete. When nil, the server offers
	// completions only for prompts and templates registered with
	// completers, or not at all.
	Complete func(ctx context.Context, req *Request, params *mcp.CompleteParams) (*mcp.CompleteResult, error)
	// Middleware wraps the server's JSON-RPC handler, first outermost.
	// Use SessionFromContext to learn which session a request belongs to.
	Middleware []jsonrpc.Middleware
	// Outgoing wraps what the server sends the client on its own, first
	// outermost: notifications (log messages, progress, list changes,
	// resource updates) and requests (elicitation, sampling, roots), in
	// both eras (see jsonrpc.Options.Outgoing: the wrapped handler sends
	// the request and returns the raw result of a call).
	Outgoing []jsonrpc.Middleware
	// Capabilities, if set, is merged into the capabilities the server
	// computes from what is registered (Experimental and Extensions are
	// taken from it, and any capability set here is declared).
	Capabilities *mcp.ServerCapabilities
	// Versions lists the protocol revisions served; default all of
	// mcp.SupportedVersions().
	Versions []mcp.Version
	// CacheTTL is the ttlMs declared on cacheable results in the modern
	// era. Default 0: clients must not reuse results, which is always
	// correct. Lists change at run time in most servers.
	CacheTTL time.Duration
	// CacheScope is the cacheScope declared with CacheTTL; default
	// mcp.CacheScopePrivate, since results may depend on who asks.
	CacheScope mcp.CacheScope
	// RequestStateKeys seal the requestState of multi round-trip requests
	// (modern era): the first key signs, every key verifies, so keys can
	// be rotated. Servers behind a load balancer share them so that any
	// instance can continue a round another began. Default: one random
	// key per Server.
	RequestStateKeys [][]byte
	// RequestStateTTL is how long a requestState stays valid. Default 15
	// minutes.
	RequestStateTTL time.Duration
	// Principal, if set, names who a request comes from (for example the
	// subject of its access token); request state is bound to it, so one
	// user cannot complete another's round.
	Principal func(ctx context.Context) string
	// OnRootsListChanged is called when a legacy session's client says
	// its roots changed.
	OnRootsListChanged func(ctx context.Context, sess *Session)
	// Tasks, if set, enables tasks for the tools that support them
	// (mcp.Tool.Execution.TaskSupport): the core tasks of 2025-11-25 and
	// the tasks extension of 2026-07-28; see TaskOptions. Default nil: no
	// tasks.
	Tasks *TaskOptions
}

// A Server is an MCP server: a set of tools, resources and prompts, served
// to any number of sessions over any transports, in every protocol
// revision. Add features before or while serving; changes are announced
// to connected clients.
type Server struct {
	info mcp.Implementation
	opts Options
	log  *slog.Logger

	mu        sync.RWMutex
	tools     registry[*toolEntry]
	resources registry[*resourceEntry]
	templates registry[*templateEntry]
	prompts   registry[*promptEntry]
	sessions  map[*Session]struct{}
	listeners map[*listener]struct{}
	done      chan struct{} // closed by Close
	closed    bool

	methods    map[string]*methodInfo
	handler    jsonrpc.Handler
	stateKeys  *stateKeys
	modernMeta mcp.Meta // _meta of modern results: the server's info
	ttlMs      int64
	versions   []mcp.Version
	modern     bool // a modern revision is among versions
	legacy     []mcp.Version
	tasks      *taskEngine // tasks: nil unless Options.Tasks (tasks.go)
}

// New returns a server that introduces itself with info.
func New(info mcp.Implementation, opts *Options) *Server {
	s := &Server{info: info, sessions: make(map[*Session]struct{}), done: make(chan struct{})}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.PageSize <= 0 {
		s.opts.PageSize = 100
	}
	s.log = s.opts.Logger
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.versions = s.opts.Versions
	if len(s.versions) == 0 {
		s.versions = mcp.SupportedVersions()
	}
	for _, v := range s.versions {
		if mcp.IsModern(v) {
			s.modern = true
		} else {
			s.legacy = append(s.legacy, v)
		}
	}
	s.stateKeys = newStateKeys(s.opts.RequestStateKeys, s.opts.RequestStateTTL)
	s.modernMeta = mcp.Meta{mcp.MetaKeyServerInfo: info}
	s.ttlMs = s.opts.CacheTTL.Milliseconds()
	if s.opts.CacheScope == "" {
		s.opts.CacheScope = mcp.CacheScopePrivate
	}
	if s.opts.Tasks != nil { // tasks: (tasks.go)
		s.tasks = newTaskEngine(s, s.opts.Tasks)
	}
	s.methods = s.methodTable()
	s.handler = jsonrpc.Chain(jsonrpc.HandlerFunc(s.dispatch), s.opts.Middleware...)
	return s
}

// Info returns the server's implementation info.
func (s *Server) Info() mcp.Implementation { return s.info }

// supports reports whether the server serves revision v.
func (s *Server) supports(v mcp.Version) bool {
	for _, x := range s.versions {
		if x == v {
			return true
		}
	}
	return false
}

// negotiate picks the legacy revision for an initialize request: the
// client's if served, else the newest legacy one served.
func (s *Server) negotiate(requested mcp.Version) (mcp.Version, bool) {
	if len(s.legacy) == 0 {
		return "", false
	}
	for _, v := range s.legacy {
		if v == requested {
			return v, true
		}
	}
	best := s.legacy[0]
	for _, v := range mcp.SupportedVersions() { // newest first
		for _, x := range s.legacy {
			if x == v {
				return x, true
			}
		}
	}
	return best, true
}

// Capabilities returns what the server declares, computed from what is
// registered.
func (s *Server) Capabilities() mcp.ServerCapabilities {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.capabilitiesLocked()
}

func (s *Server) capabilitiesLocked() mcp.ServerCapabilities {
	var c mcp.ServerCapabilities
	if o := s.opts.Capabilities; o != nil {
		c = *o
	}
	if s.tools.len() > 0 || c.Tools != nil {
		c.Tools = &mcp.ToolsCapability{ListChanged: true}
	}
	if s.resources.len() > 0 || s.templates.len() > 0 || c.Resources != nil {
		c.Resources = &mcp.ResourcesCapability{Subscribe: true, ListChanged: true}
	}
	if s.prompts.len() > 0 || c.Prompts != nil {
		c.Prompts = &mcp.PromptsCapability{ListChanged: true}
	}
	c.Logging = &mcp.Supported{}
	if s.opts.Complete != nil || s.hasCompletersLocked() || c.Completions != nil {
		c.Completions = &mcp.Supported{}
	}
	s.addTaskCapabilities(&c) // tasks: (tasks.go)
	return c
}

// Connect serves one session over a connection made by t, and returns once
// the connection is up. The session ends when the peer disconnects, when
// ctx ends, or when the session is closed.
func (s *Server) Connect(ctx context.Context, t transport.Transport) (*Session, error) {
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp server: connecting: %w", err)
	}
	return s.serve(ctx, conn), nil
}

// Run serves one session over t until it ends, or until ctx ends, which
// closes the session. It is the usual main loop of a stdio server:
//
//	if err := srv.Run(ctx, stdio.New(nil)); err != nil {
//		log.Fatal(err)
//	}
func (s *Server) Run(ctx context.Context, t transport.Transport) error {
	sess, err := s.Connect(ctx, t)
	if err != nil {
		return err
	}
	return sess.Wait()
}

// Close ends every session and every open subscriptions/listen (which
// end with a result, as the protocol wants), and waits for the sessions
// to finish. The server can still serve new sessions afterwards.
func (s *Server) Close() error {
	s.tasks.stop() // tasks: cancel running tasks and wait for them (tasks.go)
	s.mu.Lock()
	if !s.closed {
		close(s.done)
		s.closed = true
	}
	s.mu.Unlock()
	for sess := range s.Sessions() {
		sess.Close()
	}
	s.mu.Lock()
	s.done = make(chan struct{})
	s.closed = false
	s.mu.Unlock()
	s.tasks.restart() // tasks: (tasks.go)
	return nil
}

// Sessions returns the sessions connected now.
func (s *Server) Sessions() iter.Seq[*Session] {
	s.mu.RLock()
	list := make([]*Session, 0, len(s.sessions))
	for sess := range s.sessions {
		list = append(list, sess)
	}
	s.mu.RUnlock()
	return func(yield func(*Session) bool) {
		for _, sess := range list {
			if !yield(sess) {
				return
			}
		}
	}
}

// notifyAll sends a notification to every initialized legacy session for
// which want returns true (nil: all).
func (s *Server) notifyAll(method string, params any, want func(*Session) bool) {
	raw, err := json.Marshal(params)
	if err != nil {
		s.log.Error("mcp server: encoding a notification", "method", method, "error", err)
		return
	}
	for sess := range s.Sessions() {
		if !sess.isInitialized() || (want != nil && !want(sess)) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := sess.conn.Notify(ctx, method, json.RawMessage(raw)); err != nil {
			s.log.Debug("mcp server: notification not delivered", "method", method, "session", sess.ID(), "error", err)
		}
		cancel()
	}
}
