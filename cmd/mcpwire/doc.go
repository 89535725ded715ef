// Command mcpwire talks to any Model Context Protocol server, shows what
// goes over the wire, and runs the servers people install first.
//
// Install it with
//
//	go install github.com/mcpwire/mcpwire/cmd/mcpwire@latest
//
// (or a version in place of latest; "mcpwire version" says which one you
// have), then name a server to start after "--", give the URL of one with
// --url, or name one of your hosts' configuration (Claude Desktop, Cursor,
// VS Code, Claude Code) as @NAME:
//
//	mcpwire tools -- npx -y @modelcontextprotocol/server-everything
//	mcpwire call get_weather --args '{"city": "Paris"}' --url http://localhost:3000/mcp
//	mcpwire resources @filesystem
//
// The verbs, by what they are for:
//
//   - talking to a server: tools, call, resources, read, prompts, get,
//     skills; login and logout for servers behind OAuth; servers lists
//     the servers of your hosts' configuration;
//   - seeing the traffic: --trace on any verb, tap (between a host and
//     its server), replay, diff, and inspect, a web inspector;
//   - testing: check (a conformance checker, with --junit for CI), bench
//     (a load generator), doctor (why a connection fails);
//   - running: serve filesystem, serve git, serve sqlite, serve skills,
//     and bridge (stdio to Streamable HTTP and back).
//
// "mcpwire help VERB" tells each one's flags and examples. Exit status: 0
// success, 1 failure, 2 usage, 3 the tool reported an error, 4 the server
// could not be started or reached, or needs a login.
//
// The library behind it is the module github.com/mcpwire/mcpwire; this
// command is a module of its own so that a program importing the library
// downloads none of the command's dependencies.
package main
