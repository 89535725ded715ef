// Package streamable implements the Streamable HTTP transport of MCP: an
// http.Handler that serves an MCP server on one endpoint, and the client
// side that talks to such an endpoint.
//
// # Serving
//
// NewHandler serves any transport.MessageServer, usually a
// *server.Server, for every protocol revision at once, deciding per
// message:
//
//   - A POST is modern (2026-07-28, stateless) when its
//     MCP-Protocol-Version header names a modern revision or its body's
//     _meta names a protocol version. The handler checks the envelope and
//     headers in the order the conformance suite expects (the version
//     header; _meta's protocolVersion and clientCapabilities, -32602; the
//     header equal to _meta, -32020; the version supported, -32022 with
//     the supported list; Mcp-Method, Mcp-Name and the Mcp-Param-*
//     headers, -32020), all answered with HTTP 400, then serves the
//     request without a session. Unknown and removed methods get 404.
//     Closing the response cancels the request.
//   - Anything else belongs to a legacy session (2025-03-26 to
//     2025-11-25): initialize opens one and its response carries the
//     Mcp-Session-Id header; every later POST, GET and DELETE sends it.
//     A dropped connection does not cancel a legacy request.
//
// The answer to a request is a JSON body when nothing else comes first;
// at the first message the request sends before its answer (progress, a
// log message, a question to the client) the response becomes an SSE
// stream, which ends with the answer. Each message is one SSE event with
// one data line. A legacy session's other messages (list changes,
// resource updates) go on its standalone stream, opened with GET; while
// none is open a bounded number of them wait for the next one. Every
// message goes on exactly one stream.
//
// # Resumability
//
// With an EventStore (NewMemoryEventStore, or a shared one), legacy
// streams can be resumed: every POST that carries a request is answered
// with an SSE stream that starts with a priming event (an id, a retry
// delay, empty data), every event is kept, and a client that lost a
// stream gets the rest of it with GET and Last-Event-ID, including the
// answer of a request that was still running. A tool may close its own
// stream with CloseStream to hand a long call over to polling (SEP-1699).
//
// # Limits and hardening
//
// Every input is bounded: the body (4 MiB, 413), JSON nesting, the
// number of sessions (10,000, 503), their idle time (30 minutes), the
// messages kept for a missing GET stream, the event store. Requests go
// through the strict decoder of package jsonrpc. Host and Origin are
// checked against DNS rebinding (403) for requests that arrive on a
// loopback address. Content-Type must be application/json (415) and
// Accept must allow JSON and SSE for POST, SSE for GET (406; a missing
// Accept allows everything). Each refusal carries a JSON-RPC error
// without id. SSE streams get a comment after 15 seconds of silence.
//
// An idle legacy session holds no goroutine and no stream: about 300
// bytes of the handler's plus the server's own session (about 1.7 KB in all
// with a *server.Server; TestIdleSessionMemory measures it).
//
// The handler does no authorization: put package auth's middleware in
// front of it, and bind legacy sessions to the caller with
// HandlerOptions.SessionOwner, so that a session id is never enough to
// use someone else's session.
//
// The handler does no CORS. For browser clients on other origins, wrap it
// in a CORS middleware that answers preflight requests, allows the
// MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Mcp-Param-*
// and Last-Event-ID request headers, exposes Mcp-Session-Id, and list the
// origins in HandlerOptions.AllowedOrigins.
//
// # Mounting
//
// Mount the handler on the endpoint path and close it on shutdown:
//
//	h := streamable.NewHandler(srv, nil)
//	mux := http.NewServeMux()
//	mux.Handle("/mcp", h)
//	hs := &http.Server{Addr: "localhost:3000", Handler: mux}
//	go hs.ListenAndServe()
//	...
//	srv.Close()                 // ends subscriptions/listen streams
//	h.Shutdown(ctx)             // ends legacy sessions and their streams
//	hs.Shutdown(ctx)            // waits for the remaining requests
//
// Legacy clients of revision 2024-11-05 use the HTTP+SSE transport of
// package transport/sse, which can be mounted beside this handler.
//
// # Errors
//
// A call made through the client Transport (a method of client.Session,
// jsonrpc.Conn.Call) that fails after its request went out fails with a
// *jsonrpc.Error. Tell why with errors.Is and errors.As, never by the
// message:
//
//   - The server answered with an HTTP error status (or a proxy in front
//     of it did): the error's cause is an *HTTPStatusError (the type is
//     transport.HTTPStatusError, which package sse reports too), with the
//     status, the header (a 401's WWW-Authenticate) and the start of the
//     body. The *jsonrpc.Error is the body's own error when the body is a
//     JSON-RPC error response, otherwise CodeInternalError with data
//     {"httpStatus": N}.
//   - The exchange failed on the client's side: the error (usually
//     CodeConnectionClosed) has the Go error as its cause: the *url.Error
//     of http.Client.Do (or one alike from the transport's own HTTP/1.1
//     client, see ClientOptions.HTTPClient), which wraps what failed (the
//     network, TLS, the RoundTripper of ClientOptions.HTTPClient, package
//     auth's for instance), or a timeout of the transport's own
//     (ConnectTimeout), a net.Error that matches context.DeadlineExceeded.
//   - Otherwise the server answered the call with a JSON-RPC error, or
//     broke the protocol (an answer without the response, or over the
//     limit): errors.Unwrap returns nil, or the *jsonrpc.DecodeError of
//     an answer that was not JSON-RPC; compare the Code.
//
// The cause belongs to this process: it never goes on the wire. A call
// that fails before its request is out gets the Go error itself (from
// Write), wrapping the same causes, and one whose context ends gets
// ctx.Err(). For example:
//
//	var hs *streamable.HTTPStatusError
//	var ue *url.Error
//	switch {
//	case errors.As(err, &hs):
//		// refused at the HTTP level: hs.StatusCode (401: log in)
//	case errors.Is(err, context.DeadlineExceeded):
//		// timed out
//	case errors.Is(err, auth.ErrNoAuthorizer):
//		// the RoundTripper's own error (package auth's, here)
//	case errors.As(err, &ue):
//		// the HTTP exchange failed: the network, TLS
//	default:
//		// the server's answer: jsonrpc.ErrorCode(err)
//	}
package streamable
