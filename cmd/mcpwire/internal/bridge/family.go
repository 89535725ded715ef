package bridge

import (
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// Family returns the verb of this package, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupServe, Title: "Serving:"}},
		Commands: func(a *app.App) []*cobra.Command { return []*cobra.Command{newBridgeCmd(a)} },
	}
}

// groupServe is the help group of mcpwire serve, which bridge shares.
const groupServe = "serve"

// DefaultSessionIdleTimeout ends a legacy session, and stops its server
// process, after that long without a request or an open stream
// (--idle-timeout). Shorter than the Streamable HTTP handler's own
// default: every session here is a process.
const DefaultSessionIdleTimeout = 10 * time.Minute

const bridgeLong = `mcpwire bridge connects MCP clients and servers that speak different
transports.

  mcpwire bridge --listen ADDR -- COMMAND [ARG...]

serves the stdio server COMMAND over HTTP to many clients at once:
Streamable HTTP at http://ADDR/mcp, in both protocol eras, and the legacy
HTTP+SSE transport (2024-11-05) at http://ADDR/sse. Each legacy session
gets a server process of its own, which lives as long as the session:
a client that loses its stream comes back with Last-Event-ID and gets
every message it missed, its calls still running; the process stops when
the client ends the session, after --idle-timeout without a request, or
when the bridge stops. Modern (2026-07-28) requests, which need no
session, are served by a pool of processes (--pool-size, each serving
--pool-concurrency requests at once), with the ids of different clients
kept apart. At start the bridge asks the server server/discover: a server
that does not speak the modern era is offered to legacy clients only.

With --auth-issuer the bridge is an OAuth protected resource: every
request needs a bearer token issued by that authorization server for the
bridge's URL (--auth-resource), checked against its keys (--auth-jwks,
else those its metadata names), and carrying the --auth-scope scopes;
otherwise it is answered 401 with a WWW-Authenticate challenge that
points to the bridge's Protected Resource Metadata. Sessions belong to
the user who opened them.

  mcpwire bridge --url URL

is the reverse: it offers the MCP server at URL (Streamable HTTP, or
HTTP+SSE) as a stdio server on its own standard input and output, for
hosts that start servers as commands. Every message passes as it is,
in either era; the token that mcpwire login stored for the server is
sent, and renewed. When the server needs a login, the calls fail with
the mcpwire login command line to run, which is also written on stderr.
The messages go in the order the client wrote them, the answer to
initialize (and the session it opens) before what follows; when the
input ends, the bridge ends once the calls sent have been answered (for
--drain-timeout at most). When the server forgets the session (it
restarted), the bridge opens a new one as the client had it, and sends
the failed calls again.

Interrupt the bridge (Ctrl-C) to stop it: it takes no new work, lets the
calls in progress finish for --drain-timeout, then stops the processes.`

const bridgeExample = `  mcpwire bridge --listen 127.0.0.1:3000 -- npx -y @modelcontextprotocol/server-everything
  mcpwire bridge --listen 127.0.0.1:3000 @github
  mcpwire bridge --listen 127.0.0.1:3000 --auth-issuer https://login.example.com --auth-resource https://mcp.example.com/mcp -- ./server
  mcpwire bridge --url https://mcp.example.com/mcp`

// options are the flags of mcpwire bridge.
type options struct {
	listen string
	http   httpLimits
	bridge Options
	auth   authFlags
}

func newBridgeCmd(a *app.App) *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:               "bridge (--listen ADDR (-- COMMAND [ARG...] | @NAME) | --url URL)",
		Short:             "Serve a stdio server over HTTP, or an HTTP server over stdio",
		Long:              bridgeLong,
		Example:           bridgeExample,
		GroupID:           groupServe,
		Args:              app.ServerArgs(),
		ValidArgsFunction: a.CompleteArgs(0),
		RunE: a.RunE(func(cmd *cobra.Command, _ []string) error {
			for _, f := range []string{"json", "timeout", "protocol"} {
				if cmd.Flags().Changed(f) {
					return app.UsageErrorf("bridge takes no --%s: it passes the messages of both sides as they are, for as long as it runs", f)
				}
			}
			if a.Global.Target.URL != "" {
				for _, f := range forwardFlags {
					if cmd.Flags().Changed(f) {
						return app.UsageErrorf("--%s is for a bridge of a stdio server (--listen ADDR -- COMMAND); --url offers an HTTP server over stdio", f)
					}
				}
				if o.bridge.DrainTimeout <= 0 {
					return app.UsageErrorf("--drain-timeout must be positive, got %s", o.bridge.DrainTimeout)
				}
				return runReverse(cmd.Context(), a, o.bridge.DrainTimeout)
			}
			if o.listen == "" {
				return app.UsageErrorf("give --listen ADDR, the address to serve the stdio server on (as 127.0.0.1:3000), or --url URL to offer an HTTP server over stdio")
			}
			if err := o.auth.check(); err != nil {
				return err
			}
			return runForward(cmd.Context(), a, &o)
		}),
	}
	fs := cmd.Flags()
	b := &o.bridge
	fs.Var(app.NamedString(&o.listen, "ADDR"), "listen", "serve the stdio server over HTTP on this address, such as 127.0.0.1:3000")
	fs.DurationVar(&o.http.idle, "idle-timeout", DefaultSessionIdleTimeout, "stop a legacy session's server process after this long without a request or an open stream")
	fs.IntVar(&o.http.maxMessage, "max-message-size", DefaultMaxMessageSize, "largest message in bytes, from a client (413 beyond) or from a server process")
	fs.IntVar(&o.http.replayEvents, "replay-events", DefaultReplayEvents, "events kept per legacy session for a client that resumes its stream (Last-Event-ID)")
	fs.Int64Var(&o.http.replayBytes, "replay-bytes", DefaultReplayBytes, "bytes of events kept per legacy session for a client that resumes its stream")
	fs.Int64Var(&o.http.replayMemory, "replay-memory", DefaultReplayMemory, "bytes of events kept for all legacy sessions together; the quietest session's oldest go first")
	fs.DurationVar(&o.http.writeTimeout, "write-timeout", DefaultWriteTimeout, "drop a client's stream that takes longer than this to accept one message")
	fs.IntVar(&b.MaxSessions, "max-sessions", DefaultMaxSessions, "legacy sessions at once, each with its own server process")
	fs.IntVar(&b.MaxSessionCalls, "max-session-calls", DefaultMaxSessionCalls, "calls of one legacy session in flight at once")
	fs.IntVar(&b.PoolSize, "pool-size", DefaultPoolSize, "server processes serving modern (2026-07-28) requests")
	fs.IntVar(&b.PoolConcurrency, "pool-concurrency", DefaultPoolConcurrency, "modern requests one pooled process serves at once")
	fs.IntVar(&b.MaxQueued, "max-queued", DefaultMaxQueued, "modern requests waiting for a pooled process; more are refused (503)")
	fs.DurationVar(&b.QueueTimeout, "queue-timeout", DefaultQueueTimeout, "how long a modern request waits for a pooled process before it is refused (503)")
	fs.IntVar(&b.MaxListens, "max-listens", DefaultMaxListens, "subscriptions/listen streams open at once")
	fs.IntVar(&b.MaxBacklog, "max-backlog", DefaultMaxBacklog, "messages of a modern request waiting for its client to read them; beyond, the request is ended")
	fs.IntVar(&b.MaxBacklogBytes, "max-backlog-bytes", DefaultMaxBacklogBytes, "bytes of a modern request's messages waiting for its client; beyond, the request is ended")
	fs.DurationVar(&b.PoolIdleTimeout, "pool-idle-timeout", DefaultPoolIdleTimeout, "stop a pooled process after this long without a request")
	fs.DurationVar(&b.ProbeTimeout, "probe-timeout", DefaultProbeTimeout, "how long the server has to answer server/discover at start (else: legacy era only)")
	fs.DurationVar(&b.DrainTimeout, "drain-timeout", DefaultDrainTimeout, "how long calls in progress may run on when a session or the bridge stops (with --url: when the input ends)")
	o.auth.addTo(cmd)
	return cmd
}

// forwardFlags are the flags of a bridge of a stdio server.
var forwardFlags = []string{"listen", "idle-timeout", "max-message-size", "replay-events", "replay-bytes", "replay-memory", "write-timeout", "max-sessions", "max-session-calls", "pool-size", "pool-concurrency",
	"max-queued", "queue-timeout", "max-listens", "max-backlog", "max-backlog-bytes", "pool-idle-timeout", "probe-timeout",
	"auth-issuer", "auth-jwks", "auth-resource", "auth-scope"}

// logger returns the bridge's logger: everything with --verbose (the
// servers' stderr included), warnings otherwise.
func logger(a *app.App) *slog.Logger {
	if l := a.Logger(); l != nil {
		return l
	}
	return slog.New(slog.NewTextHandler(a.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn,
		ReplaceAttr: func(groups []string, at slog.Attr) slog.Attr {
			if len(groups) == 0 && at.Key == slog.TimeKey {
				return slog.Attr{} // a host's log has its own times
			}
			return at
		}}))
}
