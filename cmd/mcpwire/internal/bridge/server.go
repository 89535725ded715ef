package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/command"
)

// Defaults of Options; each has a flag of mcpwire bridge.
const (
	// DefaultMaxSessions bounds the legacy sessions, and so the server
	// processes they run, at once (--max-sessions).
	DefaultMaxSessions = 100
	// DefaultMaxSessionCalls bounds the calls of one legacy session in
	// flight (--max-session-calls).
	DefaultMaxSessionCalls = 64
	// DefaultPoolSize bounds the server processes that serve modern
	// requests (--pool-size).
	DefaultPoolSize = 4
	// DefaultPoolConcurrency bounds the modern requests one pooled process
	// serves at once (--pool-concurrency).
	DefaultPoolConcurrency = 16
	// DefaultMaxQueued bounds the modern requests waiting for a pooled
	// process (--max-queued).
	DefaultMaxQueued = 256
	// DefaultQueueTimeout bounds how long a modern request waits for a
	// pooled process before it is refused (--queue-timeout).
	DefaultQueueTimeout = 30 * time.Second
	// DefaultMaxListens bounds the subscriptions/listen streams open at
	// once (--max-listens).
	DefaultMaxListens = 100
	// DefaultPoolIdleTimeout stops a pooled process that has served
	// nothing for that long (--pool-idle-timeout).
	DefaultPoolIdleTimeout = 5 * time.Minute
	// DefaultProbeTimeout bounds the first exchange with the server, which
	// tells whether it speaks the modern era (--probe-timeout).
	DefaultProbeTimeout = 30 * time.Second
	// DefaultDrainTimeout is how long the calls of a session, or the
	// modern requests, may run on once the bridge or the session stops,
	// before the process is stopped (--drain-timeout).
	DefaultDrainTimeout = 5 * time.Second
	// DefaultMaxBacklog bounds the messages a pooled process sent for one
	// modern request that its client has not read yet (--max-backlog).
	DefaultMaxBacklog = 256
	// DefaultMaxBacklogBytes bounds their bytes (--max-backlog-bytes); one
	// message larger than that passes when nothing else waits.
	DefaultMaxBacklogBytes = 8 << 20
)

// Options configure a Bridge. Every zero field means its default.
type Options struct {
	// Command returns the command of a new server process; it is called
	// for each process. Required.
	Command func() *exec.Cmd
	// Logger receives the bridge's diagnostics and the processes' stderr.
	// Default: discarded.
	Logger *slog.Logger
	// Observer sees every frame between the bridge and its processes.
	Observer transport.Observer
	// Limits bound each message a process writes. Default: those of
	// package jsonrpc (16 MiB).
	Limits jsonrpc.Limits

	// MaxSessions bounds the legacy sessions with a process at once; a
	// session beyond it is refused (CodeOverloaded). Default
	// DefaultMaxSessions.
	MaxSessions int
	// MaxSessionCalls bounds the calls of one legacy session in flight
	// (CodeOverloaded beyond). Default DefaultMaxSessionCalls.
	MaxSessionCalls int
	// PoolSize bounds the processes serving modern requests. Default
	// DefaultPoolSize.
	PoolSize int
	// PoolConcurrency bounds the modern requests one pooled process
	// serves at once. Default DefaultPoolConcurrency.
	PoolConcurrency int
	// MaxQueued bounds the modern requests waiting for room (HTTP 503
	// beyond). Default DefaultMaxQueued.
	MaxQueued int
	// QueueTimeout bounds the wait of one modern request for room (HTTP
	// 503 after it). Default DefaultQueueTimeout.
	QueueTimeout time.Duration
	// MaxListens bounds the subscriptions/listen streams open at once.
	// Default DefaultMaxListens.
	MaxListens int
	// PoolIdleTimeout stops a pooled process that served nothing for
	// that long. Default DefaultPoolIdleTimeout.
	PoolIdleTimeout time.Duration
	// ProbeTimeout bounds the answer to the server/discover of New.
	// Default DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// DrainTimeout is how long calls in flight may run on when a session
	// or the bridge stops. Default DefaultDrainTimeout.
	DrainTimeout time.Duration
	// MaxBacklog bounds the messages a pooled process sent for one modern
	// request (progress, log messages, a listen's notifications) that the
	// client has not read yet: past it the client is too slow for its
	// request, which is ended (the process is told, the client gets
	// CodeOverloaded, a warning is logged), so that a client that stops
	// reading holds up nobody else's requests. Default DefaultMaxBacklog.
	MaxBacklog int
	// MaxBacklogBytes bounds the bytes of those messages, likewise.
	// Default DefaultMaxBacklogBytes.
	MaxBacklogBytes int
}

func (o *Options) setDefaults() {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	defD := func(p *time.Duration, v time.Duration) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.MaxSessions, DefaultMaxSessions)
	def(&o.MaxSessionCalls, DefaultMaxSessionCalls)
	def(&o.PoolSize, DefaultPoolSize)
	def(&o.PoolConcurrency, DefaultPoolConcurrency)
	def(&o.MaxQueued, DefaultMaxQueued)
	def(&o.MaxListens, DefaultMaxListens)
	def(&o.MaxBacklog, DefaultMaxBacklog)
	def(&o.MaxBacklogBytes, DefaultMaxBacklogBytes)
	defD(&o.QueueTimeout, DefaultQueueTimeout)
	defD(&o.PoolIdleTimeout, DefaultPoolIdleTimeout)
	defD(&o.ProbeTimeout, DefaultProbeTimeout)
	defD(&o.DrainTimeout, DefaultDrainTimeout)
}

// A Bridge serves a stdio MCP server to HTTP clients: it is the
// transport.MessageServer that the Streamable HTTP handler (both eras)
// and the HTTP+SSE handler serve, so that every byte of HTTP is theirs.
// A legacy session (Open) gets a server process of its own; modern
// requests (ServeStateless) go to a bounded pool of processes, their ids
// remapped (pool.go).
type Bridge struct {
	opts     Options
	log      *slog.Logger
	tr       *command.Transport
	versions []string // what the handlers accept
	pool     *pool    // nil when the server does not speak the modern era

	mu       sync.Mutex
	sessions int                   // processes of legacy sessions
	open     map[*session]struct{} // sessions not ended
	closed   bool                  // Close was called
	changed  chan struct{}         // closed, and replaced, when a call of a session ends after Close
}

var (
	_ transport.MessageServer    = (*Bridge)(nil)
	_ transport.VersionLister    = (*Bridge)(nil)
	_ transport.ToolSchemaLister = (*Bridge)(nil)
)

// errClosed refuses new sessions once the bridge is shutting down.
var errClosed = errors.New("bridge: shutting down")

// New starts a bridge: it starts one server process and asks it
// server/discover, which tells whether it speaks the modern era (then
// that process is the pool's first); a server that does not is offered
// to legacy clients only. It fails when the process cannot be started or
// ends before answering.
func New(ctx context.Context, opts Options) (*Bridge, error) {
	if opts.Command == nil {
		return nil, errors.New("bridge: no command")
	}
	opts.setDefaults()
	b := &Bridge{opts: opts, log: opts.Logger, open: make(map[*session]struct{}), changed: make(chan struct{})}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	b.tr = command.NewFunc(opts.Command, &command.Options{Limits: opts.Limits, Observer: opts.Observer, Logger: opts.Logger})
	p := newPool(b)
	modern, err := p.probe(ctx)
	if err != nil {
		return nil, err
	}
	if len(modern) > 0 {
		b.pool = p
	}
	for _, v := range mcp.SupportedVersions() {
		if !mcp.IsModern(v) || slices.Contains(modern, v) {
			b.versions = append(b.versions, string(v))
		}
	}
	return b, nil
}

// Modern reports whether the server speaks the modern era (2026-07-28),
// which the bridge then serves with its pool.
func (b *Bridge) Modern() bool { return b.pool != nil }

// start starts a server process.
func (b *Bridge) start(route func(*child, *jsonrpc.Request), ended func(string)) (*child, error) {
	return startChild(context.Background(), b.tr, b.log, route, ended)
}

// takeSlot counts a legacy session's process, if MaxSessions allows it.
func (b *Bridge) takeSlot() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.sessions >= b.opts.MaxSessions {
		return false
	}
	b.sessions++
	return true
}

func (b *Bridge) releaseSlot() {
	b.mu.Lock()
	b.sessions--
	b.mu.Unlock()
}

// Open starts a legacy session; its process starts with its first
// message.
func (b *Bridge) Open(ctx context.Context, sessionID string, w jsonrpc.Writer) (transport.ServerSession, error) {
	s := &session{b: b, id: sessionID, w: w, done: make(chan struct{})}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errClosed
	}
	b.open[s] = struct{}{}
	return s, nil
}

// isClosed reports whether Close was called.
func (b *Bridge) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// ended forgets a session that has ended.
func (b *Bridge) ended(s *session) {
	b.mu.Lock()
	delete(b.open, s)
	b.mu.Unlock()
	b.callEnded()
}

// callEnded wakes Drain when a call of a session ends.
func (b *Bridge) callEnded() {
	b.mu.Lock()
	if b.closed {
		close(b.changed)
		b.changed = make(chan struct{})
	}
	b.mu.Unlock()
}

// busy reports whether a call of a session or a modern request runs, and
// returns the channels that tell when that may have changed.
func (b *Bridge) busy() (bool, <-chan struct{}, <-chan struct{}) {
	b.mu.Lock()
	sessions := make([]*session, 0, len(b.open))
	for s := range b.open {
		sessions = append(sessions, s)
	}
	changed := b.changed
	b.mu.Unlock()
	busy := false
	for _, s := range sessions {
		busy = busy || s.running() > 0
	}
	var poolChanged <-chan struct{}
	if b.pool != nil {
		var poolBusy bool
		poolBusy, poolChanged = b.pool.busy()
		busy = busy || poolBusy
	}
	return busy, changed, poolChanged
}

// ServeStateless serves a modern request on a pooled process.
func (b *Bridge) ServeStateless(ctx context.Context, req *jsonrpc.Request, w jsonrpc.Writer) *jsonrpc.Response {
	if b.pool == nil {
		if !req.IsCall() {
			return nil
		}
		return &jsonrpc.Response{ID: req.ID, Error: mcp.UnsupportedVersionError(string(mcp.Latest), b.legacyVersions())}
	}
	return b.pool.serve(ctx, req, w)
}

func (b *Bridge) legacyVersions() []mcp.Version {
	var vs []mcp.Version
	for _, v := range b.versions {
		vs = append(vs, mcp.Version(v))
	}
	return vs
}

// ProtocolVersions lists the revisions the handlers accept: every legacy
// one (the process negotiates in initialize), and the modern ones the
// server named in its answer to server/discover.
func (b *Bridge) ProtocolVersions() []string { return slices.Clone(b.versions) }

// ToolInputSchema returns a tool's input schema as the server last listed
// it to a modern client, so that the Streamable HTTP handler checks the
// Mcp-Param-* headers of modern tool calls as the server itself would.
func (b *Bridge) ToolInputSchema(name string) (json.RawMessage, bool) {
	if b.pool == nil {
		return nil, false
	}
	return b.pool.tools.ToolInputSchema(name)
}

// Close stops taking work: new sessions and new calls are refused
// (answers to the server's requests still pass), modern requests get
// CodeConnectionClosed, and the subscriptions/listen streams end (which
// would otherwise hold an HTTP server's Shutdown). Drain then waits for
// the calls in flight; sessions end with the handlers that hold them
// (their Shutdown); Stop ends the pool.
func (b *Bridge) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	if b.pool != nil {
		b.pool.close()
	}
}

// Drain waits, after Close, until no call runs (they are answered on
// their streams, which are still open), or DrainTimeout has passed, or
// ctx ends.
func (b *Bridge) Drain(ctx context.Context) {
	t := time.NewTimer(b.opts.DrainTimeout)
	defer t.Stop()
	for {
		busy, changed, poolChanged := b.busy()
		if !busy {
			return
		}
		select {
		case <-changed:
		case <-poolChanged:
		case <-t.C:
			b.log.Info("bridge: calls still running at shutdown", "drain-timeout", b.opts.DrainTimeout)
			return
		case <-ctx.Done():
			return
		}
	}
}

// Stop waits up to DrainTimeout for the modern requests still running,
// then stops the pool's processes. Call it after Close, once the HTTP
// server has shut down.
func (b *Bridge) Stop() {
	if b.pool != nil {
		b.pool.stop()
	}
}

// describeStart words the error of a process that could not start.
func describeStart(err error) string {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return fmt.Sprintf("%s: %v", ee.Name, ee.Err)
	}
	return err.Error()
}
