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
//
// What they share:
//
//	root.go     Main, the root command, the exit codes in its help
//	app.go      the app (streams, global options, the target server),
//	            positional arguments and the server after "--"
//	flags.go    the global flags and their checks
//	connect.go  connectTarget (the one function that builds a transport),
//	            the session's lifetime and the server's exit diagnostics
//	exit.go     exit codes and the error line
//	args.go     --args: inline JSON, @FILE, or - for stdin
//	render.go   tables, JSON, content blocks
//	schema.go   the arguments of a tool's input schema
//	log.go      --verbose: the server's stderr on ours, prefixed
//
// A new command is a new file with a newXCmd constructor, added to the
// list in commands. A new transport (Streamable HTTP for --url) is a new
// case in connectTarget.
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
// server are real processes talking over stdio.
//
// # Output
//
// Text output is for people and stable: aligned columns, no trailing
// spaces, binary data summed up and never written raw to a terminal.
// --json prints the protocol result instead, indented, for programs.
// Errors are one line on stderr, "mcpwire: ...".
package cli
