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
	b, err := New(ctx, bo)
	if err != nil {
		return app.ConnectErrorf("cannot start the server %q: %v", t.Name(), err)
	}
	h := newHTTP(b, o.idleTimeout, rs, log)
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
		v    int
	}{{"max-sessions", b.MaxSessions}, {"max-session-calls", b.MaxSessionCalls}, {"pool-size", b.PoolSize},
		{"pool-concurrency", b.PoolConcurrency}, {"max-queued", b.MaxQueued}, {"max-listens", b.MaxListens}} {
		if l.v < 1 {
			return app.UsageErrorf("--%s must be at least 1, got %d", l.name, l.v)
		}
	}
	for _, l := range []struct {
		name string
		v    time.Duration
	}{{"idle-timeout", o.idleTimeout}, {"queue-timeout", b.QueueTimeout}, {"pool-idle-timeout", b.PoolIdleTimeout},
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

// newHTTP mounts the handlers that serve b, behind rs when it is not nil;
// legacy sessions end after idle without a request (default
// DefaultSessionIdleTimeout).
func newHTTP(b *Bridge, idle time.Duration, rs *auth.ResourceServer, log *slog.Logger) *httpSide {
	if idle <= 0 {
		idle = DefaultSessionIdleTimeout
	}
	var owner func(*http.Request) string
	if rs != nil {
		owner = func(r *http.Request) string { return auth.Principal(r.Context()) }
	}
	h := &httpSide{mux: http.NewServeMux()}
	h.streamable = streamable.NewHandler(b, &streamable.HandlerOptions{
		Logger:             log,
		MaxBodyBytes:       jsonrpc.DefaultMaxMessageSize, // what a stdio server accepts
		MaxSessions:        b.opts.MaxSessions,
		SessionIdleTimeout: idle,
		EventStore:         streamable.NewMemoryEventStore(nil),
		SessionOwner:       owner,
	})
	h.sse = sse.NewHandler(b, &sse.HandlerOptions{
		Logger:       log,
		MaxBodyBytes: jsonrpc.DefaultMaxMessageSize,
		MaxSessions:  b.opts.MaxSessions,
		MaxInFlight:  b.opts.MaxSessionCalls,
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
