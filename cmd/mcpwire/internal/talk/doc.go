// Package talk holds the verbs that talk to an MCP server about its
// features: tools, call, resources, read, prompts and get.
//
// One file per command, each holding the command's options struct, its
// cobra.Command (parse: flags and arguments into the options) and its
// run function (options into output):
//
//	tools.go      mcpwire tools      list tools and their arguments
//	call.go       mcpwire call       call a tool
//	resources.go  mcpwire resources  list resources and templates
//	read.go       mcpwire read       read a resource
//	prompts.go    mcpwire prompts    list prompts
//	get.go        mcpwire get        render a prompt
//	ask.go        the questions a tool asks during mcpwire call, which it reports
//	schema.go     the arguments of a tool's input schema, as tools shows them
//	family.go     the Family of the root command, the help groups
//
// Each newXCmd(a, runF) parses into an options struct and hands it to
// runF, or to the command's runX when runF is nil: tests check the
// parsing with a runF that records the options, and call runX directly
// with an app whose Connect serves the test server of package clitest
// in process. Every runX reaches the server through app.WithSession,
// which owns the session, the timeout and the wording of failures.
//
// # Output
//
// Text output is for people and stable: aligned columns, no trailing
// spaces, binary data summed up and never written raw to a terminal.
// --json prints the protocol result instead, indented, for programs. A
// tool that reports an error (isError) has its text on stderr and exit
// code 3.
package talk
