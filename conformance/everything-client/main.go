// Command everything-client is the mcpwire client that the official MCP
// conformance suite (@modelcontextprotocol/conformance) drives in client
// mode. The suite starts a mock server and runs
//
//	everything-client [flags] SERVER-URL
//
// with the scenario in MCP_CONFORMANCE_SCENARIO, its data (JSON, with at
// least "name") in MCP_CONFORMANCE_CONTEXT when it has any, and the
// protocol revision under test in MCP_CONFORMANCE_PROTOCOL_VERSION (the
// 0.2.0 alphas set it). The program does what the scenario asks of a
// client, then exits 0, or exits 1 with one line on stderr saying why. An
// unknown scenario is an error.
//
// Every scenario uses the public mcpwire client over the Streamable HTTP
// transport, as a user would; the scenario table is in scenarios.go.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stderr))
}

// env is the scenario's environment.
type env struct {
	url      string
	scenario string
	context  json.RawMessage // MCP_CONFORMANCE_CONTEXT, or nil
	version  mcp.Version     // MCP_CONFORMANCE_PROTOCOL_VERSION, or ""
	log      *slog.Logger
	// httpClient, if set, sends the transport's requests (the OAuth
	// transport of the auth scenarios).
	httpClient *http.Client
}

func run(args []string, getenv func(string) string, stderr io.Writer) int {
	fs := flag.NewFlagSet("everything-client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "log diagnostics to stderr")
	timeout := fs.Duration("timeout", 25*time.Second, "give up after this long (the suite allows 30s)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "everything-client: usage: everything-client [-v] [-timeout D] SERVER-URL")
		return 2
	}
	e := &env{
		url:      fs.Arg(0),
		scenario: getenv("MCP_CONFORMANCE_SCENARIO"),
		version:  mcp.Version(getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")),
		log:      slog.New(slog.DiscardHandler),
	}
	if *verbose {
		e.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if c := getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		if !json.Valid([]byte(c)) {
			fmt.Fprintln(stderr, "everything-client: MCP_CONFORMANCE_CONTEXT is not valid JSON")
			return 2
		}
		e.context = json.RawMessage(c)
	}
	if e.version != "" && !mcp.IsSupported(e.version) {
		fmt.Fprintf(stderr, "everything-client: unsupported protocol version %q\n", e.version)
		return 2
	}
	sc, ok := scenarios[e.scenario]
	if !ok && strings.HasPrefix(e.scenario, "auth/") {
		sc, ok = authorized, true
	}
	if !ok {
		if e.scenario == "" {
			fmt.Fprintln(stderr, "everything-client: MCP_CONFORMANCE_SCENARIO is not set")
		} else {
			fmt.Fprintf(stderr, "everything-client: unknown scenario %q\n", e.scenario)
		}
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := sc(ctx, e); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %v: %w", *timeout, err)
		}
		fmt.Fprintf(stderr, "everything-client: %s: %v\n", e.scenario, err)
		return 1
	}
	return 0
}
