// Package bridge is the mcpwire bridge verb: it connects MCP clients and
// servers that speak different transports.
//
// # A stdio server over HTTP
//
// mcpwire bridge --listen ADDR -- COMMAND serves a stdio server to many
// HTTP clients at once. The package writes no HTTP of its own: a Bridge
// is a transport.MessageServer, which the library's Streamable HTTP
// handler (both protocol eras, at /mcp, with an event store that makes
// legacy streams resumable) and HTTP+SSE handler (at /sse) serve, behind
// package auth's resource server when OAuth is on (listen.go, auth.go).
// Underneath, every server process is a transport/command connection
// (child.go):
//
//   - a legacy session (Open) gets a process of its own, which starts
//     with the session's first message and ends with the session; its
//     messages pass unchanged, and what the process sends besides
//     responses goes on the stream of the call it relates to
//     (session.go);
//   - modern requests (ServeStateless) share a bounded pool of
//     processes; each request gets an id of the bridge's on its way in,
//     so that the requests of different clients never clash in one
//     process, and its own on the way out (pool.go); what the process
//     sends for a request waits in a bounded queue of the request's, so
//     that a client that stops reading holds up no other (outbox.go).
//
// Ids and progress tokens are swapped in place, without decoding the
// rest of the message (jsonedit.go); members are found by their decoded
// names, as the server finds them ("progress\u0054oken" is
// progressToken), and the bridge's ids are random, so that no client can
// name another's request.
//
// # An HTTP server over stdio
//
// mcpwire bridge --url URL is the reverse (reverse.go): the client
// transport of package streamable, with the token mcpwire login stored,
// carries what a stdio client writes on mcpwire's stdin to the server,
// and the server's messages back to stdout, in the order the client
// wrote them (an initialize is answered, its session established, before
// what follows is sent; input that ends still gets the answers to its
// calls); a legacy session that the server forgets is opened again as
// the client had it (reinit.go).
package bridge
