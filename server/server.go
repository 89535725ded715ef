package server

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/track"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store"
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
	// Default DefaultPageSize.
	PageSize int
	// KeepAlive, if positive, pings each legacy session at this interval
	// and closes the session when a ping goes unanswered.
	KeepAlive time.Duration
	// MaxConcurrency bounds the requests one session handles at once
	// (default jsonrpc.DefaultMaxConcurrency); MaxQueue bounds those
	// waiting (default jsonrpc.DefaultMaxQueue). Beyond them a request is
	// refused with jsonrpc.CodeOverloaded.
	MaxConcurrency, MaxQueue int
	// MaxStatelessRequests bounds the modern (2026-07-28) requests served
	// at once without a session (ServeStateless, which the HTTP handler
	// calls for each of them), over all clients; beyond it a request is
	// refused with jsonrpc.CodeOverloaded (HTTP 503). Open
	// subscriptions/listen streams count against MaxListeners instead.
	// Default DefaultMaxStatelessRequests.
	MaxStatelessRequests int
	// MaxListeners bounds the subscriptions/listen requests open at once,
	// over all clients and both kinds of connection; beyond it a listen
	// is refused with jsonrpc.CodeOverloaded. Default DefaultMaxListeners.
	MaxListeners int
	// MaxSubscriptions bounds the resources one legacy session may
	// subscribe to (resources/subscribe beyond it is refused with
	// CodeInvalidRequest) and the resources one subscriptions/listen may
	// name (it is refused with CodeInvalidParams), and so the resource
	// updates that can wait for one client. Default DefaultMaxSubscriptions.
	MaxSubscriptions int
	// DrainTimeout is how long a session that closes (Session.Close, or
	// the client going away) lets its running requests finish before
	// their contexts are cancelled. Default jsonrpc.DefaultDrainTimeout.
	// Server.Shutdown waits for its context instead.
	DrainTimeout time.Duration
	// NotifyTimeout bounds each delivery of a notification the server
	// sends on its own (a list changed, a resource was updated, a task
	// moved). A client that fails three deliveries in a row is given up:
	// its session is closed, its listen ended. Default
	// DefaultNotifyTimeout.
	NotifyTimeout time.Duration
	// Complete answers completion/complete. When nil, the server offers
	// completions only for prompts and templates registered with
	// completers, or not at all.
	Complete func(ctx context.Context, req *Request, params *mcp.CompleteParams) (*mcp.CompleteResult, error)
	// Middleware wraps the server's JSON-RPC handler, first outermost.
	// Use SessionFromContext to learn which session a request belongs to.
	Middleware []jsonrpc.Middleware
	// OnSessionClosed, if set, is called once when a session has ended
	// (a connection over a stream transport, a legacy HTTP session), with
	// the error it ended with (nil for an orderly end), after its last
	// request was answered; Shutdown and Close wait for it. Stateless
	// (2026-07-28) HTTP requests have no session.
	OnSessionClosed func(sess *Session, err error)
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
	// RequestStateTTL is how long a requestState stays valid. Default
	// DefaultRequestStateTTL.
	RequestStateTTL time.Duration
	// MaxRequestStateBytes bounds the requestState the server accepts
	// (a larger one is refused with CodeInvalidParams) or produces (the
	// round fails). Default DefaultMaxRequestStateBytes.
	MaxRequestStateBytes int
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
	// Store, if set, is what this server shares with the other instances
	// of the same server behind a load balancer (see package store): the
	// legacy sessions opened over HTTP (Open) and their streams' events,
	// list changes and resource updates for every instance's clients,
	// the client's answers to requests another instance sent, the task
	// store (unless TaskOptions.Store is set) and the keys that seal
	// request state (unless RequestStateKeys is set). Give the same store
	// to the HTTP handler (it takes the server's by default). Default
	// nil: everything stays in this process.
	Store store.Store
}

// Defaults of Options.
const (
	// DefaultPageSize is the number of items per page of the lists.
	DefaultPageSize = 100
	// DefaultMaxStatelessRequests bounds the modern requests served at
	// once without a session.
	DefaultMaxStatelessRequests = 1024
	// DefaultMaxListeners bounds the subscriptions/listen requests open
	// at once.
	DefaultMaxListeners = 10_000
	// DefaultMaxSubscriptions bounds the resource subscriptions of one
	// session or listen.
	DefaultMaxSubscriptions = 10_000
	// DefaultNotifyTimeout bounds each delivery of a notification the
	// server sends on its own.
	DefaultNotifyTimeout = 5 * time.Second
)

// orDefault returns v, or def when v is not positive.
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
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
	closing   chan struct{} // closed when Shutdown or Close begins (shutdown.go)
	closed    bool          // closing is closed: nothing new is accepted

	// Work in progress, which Shutdown waits for (shutdown.go).
	live      track.Group // sessions, until removeSession has finished with them
	stateless track.Group // modern requests in ServeStateless, bounded; closed by Shutdown
	listening track.Group // stateless requests that became open listens
	senders   track.Group // notification senders (notify.go)

	methods    map[string]*methodInfo
	handler    jsonrpc.Handler
	stateKeys  *stateKeys
	modernMeta mcp.Meta // _meta of modern results: the server's info
	ttlMs      int64
	versions   []mcp.Version
	modern     bool // a modern revision is among versions
	legacy     []mcp.Version
	tasks      *taskEngine   // tasks: nil unless Options.Tasks (tasks.go)
	shared     *sharedState  // scale-out: nil unless Options.Store (shared.go)
	skills     *skillsEngine // skills: nil until AddSkills (skills.go)
	clients    clientStates  // the client states legacy sessions share (session_client.go)
	skillsOnce sync.Once
}

// New returns a server that introduces itself with info.
func New(info mcp.Implementation, opts *Options) *Server {
	s := &Server{info: info, sessions: make(map[*Session]struct{}), closing: make(chan struct{})}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	o.PageSize = orDefault(o.PageSize, DefaultPageSize)
	o.MaxStatelessRequests = orDefault(o.MaxStatelessRequests, DefaultMaxStatelessRequests)
	o.MaxListeners = orDefault(o.MaxListeners, DefaultMaxListeners)
	o.MaxSubscriptions = orDefault(o.MaxSubscriptions, DefaultMaxSubscriptions)
	o.DrainTimeout = orDefault(o.DrainTimeout, jsonrpc.DefaultDrainTimeout)
	o.NotifyTimeout = orDefault(o.NotifyTimeout, DefaultNotifyTimeout)
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
	s.stateKeys = newStateKeys(s.opts.RequestStateKeys, s.opts.RequestStateTTL, s.opts.MaxRequestStateBytes)
	if st := s.opts.Store; st != nil { // scale-out: (shared.go)
		s.shared = newShared(s, st)
		if len(s.opts.RequestStateKeys) == 0 {
			s.stateKeys.ring.ring = st.Keys()
		}
	}
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
	s.addTaskCapabilities(&c)  // tasks: (tasks.go)
	s.addSkillCapabilities(&c) // skills: (skills.go)
	return c
}

// Connect serves one session over a connection made by t, and returns once
// the connection is up. The session ends when the peer disconnects, when
// ctx ends, or when the session is closed. A server that is shut down
// refuses new sessions with ErrServerClosed.
func (s *Server) Connect(ctx context.Context, t transport.Transport) (*Session, error) {
	if s.isClosed() {
		return nil, ErrServerClosed
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp server: connecting: %w", err)
	}
	return s.serve(ctx, conn)
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
