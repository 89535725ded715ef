// Package doctor is mcpwire doctor, and the connection doctor of mcpwire
// inspect: when connecting to a server fails or misbehaves, it tries
// each step of a connection on its own and returns a checklist of what
// it tried and what happened, with the one next step to take.
//
// For a command: whether the process starts, then a probe in each
// protocol era, each on a new process (server/discover in 2026-07-28,
// initialize in 2025-11-25): the answer, or the process's exit status
// and the tail of its stderr, or the line it printed that is not
// JSON-RPC. For a URL: the name (DNS), the TCP connection, TLS, then
// the same two probes over Streamable HTTP with every HTTP exchange
// (status, content type, headers with their secrets masked), the legacy
// HTTP+SSE transport when both fail, and OAuth discovery when the server
// answers 401: its protected resource metadata, its authorization
// server's metadata, and what is missing.
//
//	report.go   the Report, its steps, the next step, the text form
//	stdio.go    the probes of a command
//	http.go     the probes of a URL: network, Streamable HTTP, HTTP+SSE
//	oauth.go    OAuth discovery
//	family.go   mcpwire doctor
//
// Run never sends a stored token: a server that wants authorization is
// diagnosed by its 401 and its metadata.
package doctor
