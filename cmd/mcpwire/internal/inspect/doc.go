// Package inspect is mcpwire inspect: a web inspector of one MCP server,
// in the binary. It connects to the server as the other verbs do (a
// command after --, --url with the stored OAuth token, @NAME) and serves
// one page on a loopback address that shows the server and lets a person
// use it: the lists, forms from the tools' input schemas, results by
// content type, every frame on the wire both ways, the server's log
// messages and stderr, its questions (elicitation, sampling) answered in
// the page, the roots the person sets, export and load of recordings in
// the format of mcpwire tap.
//
// # Pieces
//
//	inspector.go  the Inspector: the session, the state the page shows,
//	              the client's handlers (questions, roots, notifications,
//	              lists read again on list_changed), the limits (Options)
//	ops.go        the operations of the page: call, read, get, complete,
//	              subscribe, log level, roots, refresh, ping, cancel
//	hub.go        the journal (frames, log messages, stderr, progress) and
//	              the event streams that read it
//	questions.go  the server's questions, waiting for the person
//	server.go     the HTTP handler: the checks every request passes, the
//	              routes, the event stream, export and load
//	page.go       the page: assets/ inlined in one document with the state
//	apps.go       the MCP Apps host: the sandbox listener that serves the
//	              Apps' documents, the page's operations for them (the
//	              host's end of the protocol is assets/apps.js)
//	family.go     the command
//
// # Security
//
// The inspector has the power of the client over the server process (and
// the server's over the machine), so the page is served like any local
// web server with that power should be: on a loopback address only; every
// request, the event stream included, must carry the access token that
// mcpwire printed (?token=..., 128 bits); the Host must be the
// inspector's own address (a rebinding DNS name is refused); a request
// whose Origin or Sec-Fetch-Site says it comes from another site is
// refused, and a POST must have the inspector's Origin and a JSON body,
// which a form of another site cannot send. The page has a
// Content-Security-Policy that allows its own inline script and style
// (by nonce) and data: images and media, and nothing else: no remote
// asset, no frames; what the server sends is shown as text, never as
// HTML. Its URLs never become links but an elicitation's http(s) URL
// (resource links open the resource in the page); media are data: URLs
// of a plain type/subtype, and any other blob is saved as
// application/octet-stream, never opened. Every body, list, stream and
// wait is bounded (Options).
//
// An App (MCP Apps) never runs on the page's origin: its document comes
// from a second loopback listener, with its own policy, into an iframe
// with sandbox="allow-scripts" only (its policy says sandbox allow-scripts
// too); apps.go says what it can and cannot do.
//
// # The event stream
//
// GET /events streams Server-Sent Events: "state" (the whole state,
// first and whenever it changes), the journal's entries with their ids
// ("frame": a record of the recording format, "log", "stderr", "note",
// "progress", "updated"), "question" and "answered". A page that
// reconnects (Last-Event-ID) goes on where it was; one that fell behind
// by more than the journal holds is told how many entries it lost.
package inspect
