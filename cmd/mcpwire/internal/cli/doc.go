// Package cli is the mcpwire command-line tool: the root command, which
// composes the verb families, and Main, the whole of package main.
//
// # Layout
//
// The command line is one package per verb family, under
// cmd/mcpwire/internal, apart from the library's own internals:
//
//	cli      Main, the root command and its help, the list of families
//	app      what every verb shares: the App (streams, global flags), the
//	         target server and the link to it (a command after "--", or
//	         --url with its headers and stored tokens), WithSession,
//	         exit codes and the wording of errors, output helpers,
//	         --verbose logging; and the root's mechanics (NewRoot, RunE)
//	talk     tools, call, resources, read, prompts, get
//	login    login, logout, login --status, and the token store's contents
//	wire     tap, replay
//	frames   the recording format of tap and the --trace view
//	bench    bench: load a server with tool calls, latency and throughput
//	check    check: the protocol rules a server follows, in both eras
//	catalog  servers: the servers of the MCP hosts' configuration files
//	config   those files (Claude Desktop, Cursor, VS Code, Claude Code):
//	         where they are, their layouts and variables; app resolves
//	         @NAME and --server NAME with it
//	clitest  the test server (in process, over stdio, over HTTP with an
//	         OAuth authorization server) and the test environments
//
// A verb family is a package with a Family function (its help groups
// and its commands, see app.Family); the list in families adds it to
// mcpwire. A verb that talks to a server wraps its run in app.RunE
// (global flags, the server after "--") and app.WithSession (the
// session, --timeout, errors); a new kind of target is a new case in
// app.Connect.
//
// # Exit codes
//
// 0 success, 1 failure, 2 usage, 3 the tool reported an error (isError),
// 4 the server could not be started or connected, or needs a login.
// Errors carry their code (app.ExitError); anything else that cobra
// returns is a usage error. Errors are one line on stderr,
// "mcpwire: ...".
//
// # Telemetry
//
// When the standard OpenTelemetry environment asks for an OTLP export
// (OTEL_EXPORTER_OTLP_ENDPOINT, or the endpoint of one signal), Main sets
// up the SDK with package otlpenv of the otel module and gives the app
// an app.Telemetry: every verb's client is instrumented, each command
// that talks to a server has a span of its own ("mcpwire call") above
// its client's, and mcpwire serve's server records its spans and
// metrics; what is left is flushed at exit, within 5 s. Otherwise
// nothing is set up (telemetry.go). The verb packages see only the
// app.Telemetry interface; this package and the otel module are the
// only ones of the command line that import OpenTelemetry.
//
// # Tests
//
// Each verb package tests its commands against the test server of
// package clitest, in process over transport/memory, in every protocol
// era; login's tests run whole command lines against the test server
// over HTTP behind its authorization server, its browser a function that
// follows the authorization URL. This package's tests cover what spans
// the families: help_test.go compares the help of each command with
// testdata/help/NAME.txt (go test -run TestHelp -update rewrites them),
// root_test.go the mistakes of a command line, http_test.go every verb
// over HTTP in both eras and over HTTP+SSE, everything_test.go every verb
// against the conformance everything-server and the official reference
// server, bench_test.go and check_test.go mcpwire bench and mcpwire check
// against both of them (their reports read from --json), and
// script_test.go runs the testscript scripts of
// testdata/script, where mcpwire and the test servers are real
// processes talking over stdio or HTTP (with OAuth in login.txtar).
// telemetry_test.go runs mcpwire against mcpwire serve with an OTLP
// receiver (testdata/telemetry) and checks the traces that arrive.
//
// The documentation's examples cannot go stale: the "Examples:" lines
// of every command's help, the lines of every ```sh block of README.md
// and docs/*.md, and the "$ " lines of their plain ``` blocks (session
// transcripts). TestDocExamples (examples_parse_test.go) parses each
// mcpwire command among them (shell words, pipes, a server after "--",
// "-- mcpwire serve ..." too) with the command tree itself: the verb,
// every flag and whether it takes a value, the arguments, one way of
// naming the server, @NAME, --url, --header, and --args and --call as
// mcpwire reads them. TestExamplesRun (examples_test.go) runs those that
// are cheap and safe, as sh runs them, in a directory of its own:
// against examples/hello (built once), examples/http (on a free port of
// 127.0.0.1 for the lines that name localhost:3000) and mcpwire serve;
// each must exit 0, or N when its line ends in "# exit N" (mcpwire bench
// makes one call, -n 1, in place of its -d, -n and --rate). The others
// are skipped with the reason (a host's configuration, an OAuth login, a
// remote URL, a server or file of the reader's, npx, a command that
// serves until stopped). A block fenced "```sh nocheck" is not read.
package cli
