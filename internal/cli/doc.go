// Package cli is the mcpwire command-line tool; package main only calls
// Main.
//
// # Layout
//
// One file per command, each holding the command's options struct, its
// cobra.Command (parse: flags and arguments into the options) and its run
// function (options into output):
//
//	tools.go      mcpwire tools      list tools and their arguments
//	call.go       mcpwire call       call a tool
//	resources.go  mcpwire resources  list resources and templates
//	read.go       mcpwire read       read a resource
//	prompts.go    mcpwire prompts    list prompts
//	get.go        mcpwire get        render a prompt
//	login.go      mcpwire login      log in to a server that requires OAuth
//	status.go     mcpwire login --status: the stored tokens
//	logout.go     mcpwire logout     forget a server's tokens
//
// What they share:
//
//	root.go     Main, the root command, the exit codes in its help
//	app.go      the app (streams, global options, the target server),
//	            positional arguments and the server after "--"
//	flags.go    the global flags and their checks
//	connect.go  connectTarget (the one function that builds a transport),
//	            the session's lifetime and the server's exit diagnostics
//	http.go     --url: the Streamable HTTP link, the stored token sent
//	            through auth.Transport, and the words for what goes wrong
//	            (network, TLS, HTTP status, a login needed)
//	tokens.go   the token store: where it is, what it holds
//	exit.go     exit codes and the error line
//	args.go     --args: inline JSON, @FILE, or - for stdin
//	render.go   tables, JSON, content blocks
//	schema.go   the arguments of a tool's input schema
//	log.go      --verbose: the server's stderr on ours, prefixed
//
// A new command is a new file with a newXCmd constructor, added to the
// list in commands. A new transport is a new case in connectTarget.
//
// # Servers over HTTP, and OAuth
//
// With --url the commands speak Streamable HTTP (falling back to HTTP+SSE
// by themselves) with the --header headers. Every request goes through an
// auth.Transport on the token store (tokens.go), without an Authorizer:
// the token mcpwire login obtained for the server is sent and renewed
// with its refresh token, but no command other than login ever opens a
// browser. When the server needs the user (no token, a refused renewal, a
// tool that needs more scopes), the command fails with exit code 4 and
// the mcpwire login command line that would help. login runs the
// authorization code grant through auth.NewLoopbackAuthorizer: the URL on
// stderr, the browser (MCPWIRE_BROWSER, else the system's), the redirect
// back to 127.0.0.1. Pre-registered and Client ID Metadata Document
// clients are written to the token store after login, where the other
// commands find them to renew tokens.
//
// # Parse, then run
//
// Each newXCmd(a, runF) parses into an options struct and hands it to
// runF, or to the command's runX when runF is nil: tests check the
// parsing with a runF that records the options, and call runX directly
// with an app whose connectTarget serves an in-process server over
// transport/memory. Errors carry their exit code (exitError); anything
// else that cobra returns is a usage error. The codes are 0 success,
// 1 failure, 2 usage, 3 the tool reported an error (isError), 4 the
// server could not be started or connected.
//
// # Tests
//
// The unit tests run each command's runX against the test server of
// testserver_test.go, in process over transport/memory, in every
// protocol era, and whole command lines through run. help_test.go
// compares the help of each command with testdata/help/NAME.txt (go test
// -run TestHelp -update rewrites them). script_test.go runs the
// testscript scripts of testdata/script, where mcpwire and the test
// server are real processes talking over stdio, or over HTTP with OAuth
// (login.txtar). http_test.go and login_test.go run whole command lines
// through the real connectTarget against the test server over HTTP
// (httpserver_test.go), alone or behind the small authorization server
// of the tests; login's browser is a function that follows the
// authorization URL (app.openBrowser).
//
// # Output
//
// Text output is for people and stable: aligned columns, no trailing
// spaces, binary data summed up and never written raw to a terminal.
// --json prints the protocol result instead, indented, for programs.
// Errors are one line on stderr, "mcpwire: ...".
package cli
