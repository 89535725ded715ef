package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// The HTTP side of a bridge is the library's own, composed: the
// Streamable HTTP handler (both eras, with an event store that makes
// legacy streams resumable) at /mcp and the HTTP+SSE handler at /sse
// serve the Bridge; package auth's resource server stands in front of
// both when OAuth is on.

// runForward serves the stdio server of the global flags over HTTP until
// ctx ends.
func runForward(ctx context.Context, a *app.App, o *options) error {
	t := a.Global.Target
	if err := checkLimits(o); err != nil {
		return err
	}
	log := logger(a)
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return app.UsageErrorf("--listen %s: %v", o.listen, err)
	}
	defer ln.Close()
	base := "http://" + ln.Addr().String()
	var rs *auth.ResourceServer
	if o.auth.enabled() {
		if rs, err = o.auth.resourceServer(ctx, base); err != nil {
			return err
		}
	}
	bo := o.bridge
	bo.Command, bo.Logger, bo.Observer = t.Cmd, log, t.Observer
	bo.Limits.MaxMessageSize = o.http.maxMessage
	b, err := New(ctx, bo)
	if err != nil {
		return app.ConnectErrorf("cannot start the server %q: %v", t.Name(), err)
	}
	h := newHTTP(b, o.http, rs, log)
	hs := &http.Server{Handler: h.mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}

	fmt.Fprintf(a.Stdout, "%s/mcp\n", base)
	if f, ok := a.Stdout.(interface{ Sync() error }); ok {
		f.Sync()
	}
	eras := "both eras"
	if !b.Modern() {
		eras = "legacy era: the server does not speak 2026-07-28"
	}
	fmt.Fprintf(a.Stderr, "mcpwire: bridging %s on %s/mcp (Streamable HTTP, %s) and %s/sse (HTTP+SSE)\n", t.Name(), base, eras, base)
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && rs == nil {
		fmt.Fprintf(a.Stderr, "mcpwire: warning: %s is reachable from other machines, and the bridge asks no authorization of its clients (see --auth-issuer)\n", ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.bridge.DrainTimeout+5*time.Second)
	defer cancel()
	err = errors.Join(err, h.stop(sctx, b, hs))
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return app.Failure(err)
	}
	return nil
}

// checkLimits refuses limits that are not positive.
func checkLimits(o *options) error {
	b := &o.bridge
	for _, l := range []struct {
		name string
		v    int64
	}{{"max-sessions", int64(b.MaxSessions)}, {"max-session-calls", int64(b.MaxSessionCalls)}, {"pool-size", int64(b.PoolSize)},
		{"pool-concurrency", int64(b.PoolConcurrency)}, {"max-queued", int64(b.MaxQueued)}, {"max-listens", int64(b.MaxListens)},
		{"max-backlog", int64(b.MaxBacklog)}, {"max-backlog-bytes", int64(b.MaxBacklogBytes)},
		{"max-message-size", int64(o.http.maxMessage)}, {"replay-events", int64(o.http.replayEvents)},
		{"replay-bytes", o.http.replayBytes}, {"replay-memory", o.http.replayMemory}} {
		if l.v < 1 {
			return app.UsageErrorf("--%s must be at least 1, got %d", l.name, l.v)
		}
	}
	for _, l := range []struct {
		name string
		v    time.Duration
	}{{"idle-timeout", o.http.idle}, {"write-timeout", o.http.writeTimeout}, {"queue-timeout", b.QueueTimeout}, {"pool-idle-timeout", b.PoolIdleTimeout},
		{"probe-timeout", b.ProbeTimeout}, {"drain-timeout", b.DrainTimeout}} {
		if l.v <= 0 {
			return app.UsageErrorf("--%s must be positive, got %s", l.name, l.v)
		}
	}
	return nil
}

// httpSide is the HTTP composition of a bridge.
type httpSide struct {
	mux        *http.ServeMux
	streamable *streamable.Handler
	sse        *sse.Handler
}

// Defaults of the HTTP side's limits; each has a flag of mcpwire bridge.
const (
	// DefaultMaxMessageSize bounds one message in bytes: a client's POST
	// body (413 beyond), and what a server process writes
	// (--max-message-size). That of package jsonrpc, which a stdio
	// server accepts, above the HTTP handlers' own 4 MiB.
	DefaultMaxMessageSize = jsonrpc.DefaultMaxMessageSize
	// DefaultReplayEvents bounds the events kept for one legacy session,
	// for a client that resumes its stream with Last-Event-ID
	// (--replay-events); one that resumes after an evicted event gets
	// 400, not a stream with a hole in it.
	DefaultReplayEvents = streamable.DefaultMaxEventsPerSession
	// DefaultReplayBytes bounds the bytes of those events per session
	// (--replay-bytes).
	DefaultReplayBytes = streamable.DefaultMaxBytesPerSession
	// DefaultReplayMemory bounds the bytes of the events of all sessions
	// (--replay-memory).
	DefaultReplayMemory = streamable.DefaultMaxEventBytes
	// DefaultWriteTimeout bounds the writing of one message to a client's
	// stream, which is dropped after it (--write-timeout).
	DefaultWriteTimeout = streamable.DefaultWriteTimeout
)

// httpLimits are the limits of the HTTP side; every zero field means its
// default.
type httpLimits struct {
	idle         time.Duration // a legacy session without a request or a stream ends (DefaultSessionIdleTimeout)
	maxMessage   int
	replayEvents int
	replayBytes  int64
	replayMemory int64
	writeTimeout time.Duration
}

func (l *httpLimits) setDefaults() {
	if l.idle <= 0 {
		l.idle = DefaultSessionIdleTimeout
	}
	if l.maxMessage <= 0 {
		l.maxMessage = DefaultMaxMessageSize
	}
	if l.replayEvents <= 0 {
		l.replayEvents = DefaultReplayEvents
	}
	if l.replayBytes <= 0 {
		l.replayBytes = DefaultReplayBytes
	}
	if l.replayMemory <= 0 {
		l.replayMemory = DefaultReplayMemory
	}
	if l.writeTimeout <= 0 {
		l.writeTimeout = DefaultWriteTimeout
	}
}

// newHTTP mounts the handlers that serve b, within the limits l, behind
// rs when it is not nil.
func newHTTP(b *Bridge, l httpLimits, rs *auth.ResourceServer, log *slog.Logger) *httpSide {
	l.setDefaults()
	var owner func(*http.Request) string
	if rs != nil {
		owner = func(r *http.Request) string { return auth.Principal(r.Context()) }
	}
	h := &httpSide{mux: http.NewServeMux()}
	h.streamable = streamable.NewHandler(b, &streamable.HandlerOptions{
		Logger:             log,
		MaxBodyBytes:       int64(l.maxMessage),
		MaxSessions:        b.opts.MaxSessions,
		SessionIdleTimeout: l.idle,
		WriteTimeout:       l.writeTimeout,
		EventStore: streamable.NewMemoryEventStore(&streamable.MemoryEventStoreOptions{
			MaxEventsPerSession: l.replayEvents, MaxBytesPerSession: l.replayBytes, MaxBytes: l.replayMemory}),
		SessionOwner: owner,
	})
	h.sse = sse.NewHandler(b, &sse.HandlerOptions{
		Logger:       log,
		MaxBodyBytes: int64(l.maxMessage),
		MaxSessions:  b.opts.MaxSessions,
		MaxInFlight:  b.opts.MaxSessionCalls,
		WriteTimeout: l.writeTimeout,
		SessionOwner: owner,
	})
	if rs == nil {
		h.mux.Handle("/mcp", h.streamable)
		h.mux.Handle("/sse", h.sse)
		return h
	}
	h.mux.Handle("/mcp", rs.Middleware(h.streamable))
	h.mux.Handle("/sse", rs.Middleware(h.sse))
	meta := rs.MetadataURL()
	if i := strings.Index(meta, "://"); i >= 0 {
		if j := strings.IndexByte(meta[i+3:], '/'); j >= 0 {
			meta = meta[i+3+j:]
		}
	}
	h.mux.Handle(meta, rs.MetadataHandler())
	if meta != auth.WellKnownProtectedResource {
		h.mux.Handle(auth.WellKnownProtectedResource, rs.MetadataHandler())
	}
	return h
}

// stop shuts a bridge down: it takes no new work; the calls in flight,
// legacy and modern, are answered (for DrainTimeout at most); the
// handlers end their sessions, which stop their processes; the HTTP
// server waits for what remains; the pool stops last. ctx bounds the
// waits.
func (h *httpSide) stop(ctx context.Context, b *Bridge, hs *http.Server) error {
	b.Close()
	b.Drain(ctx)
	err := errors.Join(h.streamable.Shutdown(ctx), h.sse.Shutdown(ctx))
	if hs.Shutdown(ctx) != nil {
		hs.Close()
	}
	b.Stop()
	return err
}
