// Command everything-server is the mcpwire server that the official MCP
// conformance suite (@modelcontextprotocol/conformance) drives: one server
// exposing every fixture the server scenarios call, in every protocol
// revision mcpwire speaks, from the 2024-11-05 sessions to the stateless
// 2026-07-28 era.
//
// Usage:
//
//	everything-server -stdio        serve one session on stdin/stdout
//	everything-server -http ADDR    serve Streamable HTTP on http://ADDR/mcp (legacy HTTP+SSE on /sse)
//	everything-server -http ADDR -redis redis://HOST:PORT/DB
//	                                the same, as one of several instances sharing Redis
//
// With -redis, every instance started with the same URL is one server
// (see package store): a load balancer may send any request to any of
// them, in both eras. The fixtures' own state (the tool and prompt the
// triggers add and remove, the watched resource's revision) is shared
// too, over the store's bus (shared.go).
//
// # Design
//
// The program is a thin shell around the public server API; it uses
// nothing unexported. The files are split by area:
//
//   - main.go: flags, the choice of transport, exit codes;
//   - fixtures.go: the server, its shared state and the fixture data
//     (the 1×1 PNG and the WAV of the suite);
//   - tools.go: the content, logging, progress, error, sampling and
//     elicitation tools of the 2025-era scenarios, and the JSON Schema
//     2020-12 tool;
//   - stateless.go: the tools of the 2026-07-28 scenarios (missing
//     capability, streaming elicitation, logging opt-in), the triggers
//     that change the tool and prompt lists and the watched resource, and
//     the tool with an x-mcp-header parameter;
//   - mrtr.go: the multi round-trip (input_required) tools and prompt;
//   - resources.go and prompts.go: resources, the template, prompts and
//     their completer.
//
// Every handler is written once for both eras. A question to the client
// (Request.Ask) is a blocking server-to-client request in a legacy
// session and an input_required round in the stateless era, so the
// handlers do nothing before their questions that cannot be repeated.
//
// Fixture names, texts and schemas are those the suite checks; see
// README.md and docs/notes/conformance.md §8 of the repository.
//
// Standard output carries protocol messages only. Diagnostics go to
// standard error: warnings and errors by default, everything with -v.
//
// With OTEL_EXPORTER_OTLP_ENDPOINT (or the other standard OTEL_*
// variables) set, the server exports its traces and metrics over OTLP/HTTP
// (telemetry.go, with the otel module); without, it sets nothing up.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/store/redis"
	// The server should accept any schema the suite may add: link the
	// full JSON Schema engine.
	_ "github.com/mcpwire/mcpwire/server/fullschema"
	"github.com/mcpwire/mcpwire/transport/sse"
	"github.com/mcpwire/mcpwire/transport/stdio"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the server failed
	exitUsage = 2 // bad command line
)

// progName prefixes every line the program writes to stderr.
const progName = "everything-server"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is the parsed command line.
type config struct {
	stdio   bool   // -stdio: serve one session on stdin/stdout
	http    string // -http ADDR: serve Streamable HTTP on ADDR
	redis   string // -redis URL: share state with the other instances through Redis
	verbose bool   // -v: debug diagnostics on stderr
}

// usage is the text of -h.
const usage = `usage: everything-server -stdio | -http ADDR [-redis URL] [-v]

Serves the fixtures of the MCP conformance suite.

  -stdio       serve one session on stdin and stdout
  -http ADDR   serve Streamable HTTP on http://ADDR/mcp, e.g. localhost:3000
  -redis URL   share sessions, streams and notifications with the other
               instances using the same Redis, e.g. redis://localhost:6379/0
  -v           write debug diagnostics to stderr
`

// parseFlags parses the command line. It returns flag.ErrHelp for -h.
func parseFlags(args []string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet(progName, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported in one line by run
	fs.BoolVar(&cfg.stdio, "stdio", false, "serve one session on stdin and stdout")
	fs.StringVar(&cfg.http, "http", "", "serve Streamable HTTP on `ADDR`")
	fs.StringVar(&cfg.redis, "redis", "", "share state through Redis at `URL`")
	fs.BoolVar(&cfg.verbose, "v", false, "write debug diagnostics to stderr")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	switch {
	case fs.NArg() > 0:
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case cfg.stdio && cfg.http != "":
		return config{}, errors.New("-stdio and -http are exclusive: choose one")
	case !cfg.stdio && cfg.http == "":
		return config{}, errors.New("choose a transport: -stdio or -http ADDR")
	case cfg.http != "" && strings.TrimSpace(cfg.http) != cfg.http:
		return config{}, fmt.Errorf("-http %q: the address has surrounding spaces", cfg.http)
	case cfg.redis != "" && cfg.http == "":
		return config{}, errors.New("-redis needs -http: only HTTP instances share state")
	}
	return cfg, nil
}

// run is the whole program, with its standard streams as parameters; it
// returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stderr, usage)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v (see -h)\n", progName, err)
		return exitUsage
	}
	level := slog.LevelWarn
	if cfg.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	var st *redis.Store
	if cfg.redis != "" {
		if st, err = redis.New(&redis.Options{URL: cfg.redis, Logger: logger}); err != nil {
			fmt.Fprintf(stderr, "%s: -redis: %v\n", progName, err)
			return exitUsage
		}
		defer st.Close()
	}
	var shared store.Store // nil, not a nil *redis.Store
	if st != nil {
		shared = st
	}
	instrument, flush := startTelemetry(ctx, stderr) // telemetry.go
	defer flush()
	srv, err := newServer(logger, shared, instrument)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", progName, err)
		return exitError
	}
	if cfg.http != "" {
		err = serveHTTP(ctx, srv, cfg.http, logger)
	} else {
		err = serveStdio(ctx, srv, stdin, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", progName, err)
		return exitError
	}
	return exitOK
}

// serveStdio serves one session on stdin and stdout until the client
// closes stdin or ctx ends.
func serveStdio(ctx context.Context, srv *server.Server, stdin io.Reader, stdout io.Writer) error {
	t := stdio.New(&stdio.Options{Stdin: stdin, Stdout: stdout, Methods: mcp.KnownMethods()})
	err := srv.Run(ctx, t)
	srv.Close() // waits for the session's end to be seen (its duration recorded)
	if err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// serveHTTP serves MCP over HTTP on addr until ctx ends: Streamable HTTP
// for every revision on /mcp (with an event store, so that interrupted
// streams can be resumed), and the legacy 2024-11-05 HTTP+SSE transport on
// /sse. Give it a localhost address: the dns-rebinding-protection scenario
// requires one, and the handlers then check Host and Origin.
func serveHTTP(ctx context.Context, srv *server.Server, addr string, logger *slog.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{
		EventStore: streamable.NewMemoryEventStore(nil), // with -redis, the shared store's events instead
		Logger:     logger,
	})
	legacy := sse.NewHandler(srv, &sse.HandlerOptions{Logger: logger})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", legacy)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("serving", "url", "http://"+ln.Addr().String()+"/mcp")
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Close()
		h.Shutdown(sctx)
		legacy.Shutdown(sctx)
		hs.Shutdown(sctx)
	}()
	err = hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-stopped
		return nil
	}
	return err
}
