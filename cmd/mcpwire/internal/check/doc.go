// Package check is `mcpwire check`: it checks that any MCP server follows
// the protocol, in both eras, without Node, and reports pass, warn or
// fail for each check with the section of the specification it comes
// from (the list, with those sections, is Catalogue in checks.go).
//
// # How it speaks to servers
//
// Not through mcpwire's client, which never sends a malformed frame and
// smooths over a server's mistakes. A check sends bytes it chose through
// a wire (wire.go): over stdio, the check starts the server itself, writes
// each frame as a line to its stdin, and reads its stdout with the line
// connection of package transport; over HTTP, each frame is one POST,
// whose headers the check sets, or breaks, as it needs. A peer (peer.go)
// writes the frames of one era: the legacy session (initialize, then
// requests) or the stateless revision (the _meta envelope on every
// request, and over HTTP the Mcp-Method and Mcp-Name headers).
//
// Every frame, both ways, goes through a frame tracker to the recorder,
// a transport.Observer: it shows them to --trace, and keeps those of the
// check under way, which the report prints under a warning or a failure.
//
// A server process has a minute to start (npx may install it first)
// until it writes its first line; from then on --response-timeout
// bounds each answer. A process whose output is not JSON-RPC (text, a
// batch) before it has sent any valid message gets two seconds more to
// answer (a server that prints a banner answers right after it); one that
// does not is not an MCP server, and the check ends there, in either era,
// quoting the first such line (stdioWire.exchange, notJSONRPCError).
// A process is stopped as MCP asks: its stdin is closed, and it is killed
// if it has not exited two seconds later, or when --timeout runs out,
// whichever comes first.
//
// A frame that breaks JSON-RPC may go unanswered: over stdio the wire
// sends a probe after it (ping, or server/discover in the stateless era)
// and stops waiting once the probe is answered. After each such frame
// the check asks whether the connection still serves; a server that died
// fails the check, with its exit status and last line of stderr, and a
// new one is started for the checks that follow.
//
// # Eras
//
// The legacy checks run on one session (initialize with 2025-11-25, or
// the revision of --protocol), version negotiation on a connection of its
// own; the stateless checks on another connection, if server/discover is
// answered. A server that speaks one era only gets the other's checks
// skipped. With two --url, the stateless lists of both instances are
// compared, and each pages the other's cursors.
//
// # What counts as what
//
// A failure breaks a MUST of the specification, or what clients rely on:
// a wrong error code where the code is the point (-32601 for an unknown
// method, -32700 for bad JSON), an invalid schema, a pagination that
// loops, a connection that dies. A warning is a SHOULD (an invalid cursor
// answered with a result, a missing serverInfo), or a rule most servers
// break without harm: silence after a frame that is not JSON (JSON-RPC
// wants an answer; stdio servers often stay quiet), -32603 instead of
// -32602 for invalid params (what the TypeScript SDK answers), an unknown
// tool answered with isError.
//
// # Tools
//
// A check never calls a tool unless asked: --call TOOL=ARGS, and
// --call-read-only for the tools that declare readOnlyHint true and
// openWorldHint false and need no argument. Annotations are hints a
// server gives about itself, untrusted from an unknown server (the
// specification says so); check is pointed at servers not yet trusted,
// so it trusts the hints only when told to. Resources are read (at most
// a few) and prompts without required arguments rendered: those are
// reads, without side effects by the specification's own terms.
//
// # Files
//
//	family.go     the command, its flags and help; the run and its report
//	checks.go     the catalogue of checks and their spec sections
//	check.go      the runner; lifecycle, negotiation, ping, result _meta
//	jsonrpc.go    the JSON-RPC checks, and the connection after them
//	lists.go      pagination, tools and schemas, resources, templates, prompts
//	calls.go      tool calls, subscriptions/listen
//	httpchecks.go the headers of both eras over HTTP, and Origin
//	stateless.go  two instances of a stateless server
//	skills.go     the Skills extension (SEP-2640), when the server declares it
//	wire.go, stdio.go, http.go, peer.go  speaking to the server
//	report.go     text, JSON and JUnit XML
package check
