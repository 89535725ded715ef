package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// A Spec describes one server that mcpwire serve runs.
type Spec struct {
	Name    string // the command: mcpwire serve NAME
	Args    string // what follows NAME in the usage line, as "DIR..."
	Short   string // one line of help
	Long    string // the help
	Example string
	// PositionalArgs checks the positional arguments; nil accepts none.
	PositionalArgs cobra.PositionalArgs
	// Bind declares the server's own flags on fs, and returns the function
	// that builds the server once the command line is parsed.
	Bind func(fs *pflag.FlagSet) Build
}

// A Build builds the server from the positional arguments, with opts
// (the logger, and the telemetry's instrumentation when there is some),
// to which it may add. Notices for the operator (what the server will
// refuse, what a flag cannot do) go to stderr, whatever --verbose says. It returns the server and a function that releases
// what the server holds, called when serving ends (nil if there is
// nothing to release). An error that the command line caused is an
// app.UsageErrorf.
type Build func(ctx context.Context, args []string, stderr io.Writer, opts *server.Options) (srv *server.Server, release func() error, err error)

// specs are the registered servers, by name.
var specs []Spec

// register adds a server; each server's file calls it from init.
func register(s Spec) {
	for _, o := range specs {
		if o.Name == s.Name {
			panic("serve: two servers named " + s.Name)
		}
	}
	specs = append(specs, s)
	slices.SortFunc(specs, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) })
}

// groupServe is the help group of mcpwire serve.
const groupServe = "serve"

// Family returns the verb, for the root command.
func Family() app.Family {
	return app.Family{
		Groups:   []cobra.Group{{ID: groupServe, Title: "Serving:"}},
		Commands: func(a *app.App) []*cobra.Command { return []*cobra.Command{newServeCmd(a)} },
	}
}

// ShutdownTimeout bounds the wait for calls in progress when serving
// stops.
const ShutdownTimeout = 5 * time.Second

func newServeCmd(a *app.App) *cobra.Command {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	cmd := &cobra.Command{
		Use:   "serve NAME [ARGS...]",
		Short: "Run one of mcpwire's own servers (" + strings.Join(names, ", ") + ")",
		Long: `Run one of the MCP servers built into mcpwire, over stdio: a host (Claude
Desktop, VS Code, an agent) starts "mcpwire serve NAME ..." as its server
command and speaks MCP over its standard input and output. With --http
ADDR the server listens for Streamable HTTP on http://ADDR/mcp instead, in
both protocol eras (2026-07-28 and the sessions of the legacy revisions).

It serves until its input ends, or until it is interrupted. Of the
global flags only --verbose applies: it logs the server's diagnostics on
stderr.`,
		GroupID: groupServe,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return app.UsageErrorf("unknown server %q; known: %s", args[0], strings.Join(names, ", "))
		},
		RunE: func(cmd *cobra.Command, args []string) error { return app.Failure(cmd.Help()) },
	}
	for _, s := range specs {
		cmd.AddCommand(newServerCmd(a, s))
	}
	return cmd
}

func newServerCmd(a *app.App, s Spec) *cobra.Command {
	cmd := &cobra.Command{
		Use:     strings.TrimSpace(s.Name + " " + s.Args),
		Short:   s.Short,
		Long:    s.Long,
		Example: s.Example,
		Args:    s.PositionalArgs,
	}
	if cmd.Args == nil {
		cmd.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return app.UsageErrorf("unexpected argument %q (usage: %s)", args[0], cmd.UseLine())
			}
			return nil
		}
	}
	build := s.Bind(cmd.Flags())
	var addr string
	cmd.Flags().Var(app.NamedString(&addr, "ADDR"), "http", "serve Streamable HTTP at http://ADDR/mcp (as 127.0.0.1:8080) instead of stdio")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		for _, f := range []string{"url", "json", "timeout", "server", "config"} {
			if cmd.Flags().Changed(f) {
				return app.UsageErrorf("%s takes no --%s", cmd.CommandPath(), f)
			}
		}
		if err := a.ParseServerless(cmd, nil, false); err != nil {
			return err
		}
		var log *slog.Logger
		if a.Global.Verbose {
			log = slog.New(slog.NewTextHandler(a.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		} else {
			log = slog.New(slog.DiscardHandler)
		}
		ctx := cmd.Context()
		srv, release, err := build(ctx, args, a.Stderr, a.ServerOptions(&server.Options{Logger: log}))
		if err != nil {
			return app.Failure(err)
		}
		if release != nil {
			defer release()
		}
		if addr == "" {
			err := srv.Run(ctx, stdio.New(&stdio.Options{Stdin: a.Stdin, Stdout: a.Stdout}))
			srv.Close() // waits for the session's end to be seen (its duration recorded)
			return app.Failure(err)
		}
		return app.Failure(serveHTTP(ctx, a, s.Name, srv, addr, log))
	}
	return cmd
}

// serveHTTP serves srv at http://addr/mcp until ctx ends.
func serveHTTP(ctx context.Context, a *app.App, name string, srv *server.Server, addr string, log *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return app.UsageErrorf("--http %s: %v", addr, err)
	}
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{
		Logger: log,
		// As large as a stdio message may be, so that what a tool accepts
		// over stdio it accepts over HTTP.
		MaxBodyBytes: jsonrpc.DefaultMaxMessageSize,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		fmt.Fprintf(a.Stderr, "mcpwire: warning: %s is reachable from other machines, and the server asks no authorization of its clients\n", ln.Addr())
	}
	fmt.Fprintf(a.Stderr, "mcpwire: serving %s on http://%s/mcp\n", name, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	srv.Close() // ends subscriptions/listen streams, which would hold Shutdown
	err = errors.Join(h.Shutdown(sctx), hs.Shutdown(sctx))
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}
