// Package otel records what MCP servers and clients of mcpwire do as
// OpenTelemetry traces and metrics, following the semantic conventions
// for the Model Context Protocol, and carries the trace context from the
// client to the server (and back, for what a server asks) in the _meta of
// each request, so that one trace goes from the host through the client
// and the server to whatever the tool calls.
//
// It is a Go module of its own (github.com/mcpwire/mcpwire/otel), so that
// the library and the programs that do not want OpenTelemetry never
// download or link it.
//
// # Use
//
// An Instrumentation adds middleware to the options of a server or a
// client:
//
//	inst := otel.New(nil) // the global tracer and meter providers
//	srv := server.New(info, inst.Server(&server.Options{...}))
//	c := client.New(info, inst.Client(&client.Options{...}))
//
// With a nil *Options, New uses the global providers of
// go.opentelemetry.io/otel and the W3C Trace Context and Baggage
// propagators. A program that wants the standard OTEL_* environment to
// decide (an OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set, nothing
// otherwise) uses package otlpenv, as the mcpwire command does:
//
//	tel, err := otlpenv.Setup(ctx, otlpenv.Options{ServiceName: "weather"})
//	defer tel.Shutdown(ctx)
//	srv := server.New(info, tel.Instrumentation().Server(nil)) // nil: not instrumented
//
// A tool handler's context carries the server's span: what the handler
// traces with it (trace.SpanFromContext(ctx)) is that span's child.
//
// # What is recorded
//
// This package follows the MCP semantic conventions of OpenTelemetry
// semantic-conventions v1.41.1 (docs/gen-ai/mcp.md and model/mcp; schema
// https://opentelemetry.io/schemas/1.41.0, status Development), the last
// release that holds them before they moved to the
// semantic-conventions-genai repository, which has not made a release yet.
//
// Every request and notification gets a span named "{mcp.method.name}
// {target}", the target being the tool or the prompt ("tools/call
// get_weather", "prompts/get review"), or "{mcp.method.name}" alone.
// What the peer asks is a SERVER span (on the server: the client's
// requests; on the client: the server's), what one sends a CLIENT span.
// The attributes, spelled as the conventions spell them:
//
//	mcp.method.name          always
//	gen_ai.operation.name    execute_tool, for tools/call
//	gen_ai.tool.name         the tool of tools/call
//	gen_ai.prompt.name       the prompt of prompts/get
//	mcp.resource.uri         resources/read, subscribe, unsubscribe, notifications/resources/updated
//	jsonrpc.request.id       requests (not notifications): "7", or the string id as it is
//	mcp.protocol.version     the revision: the request's own in the 2026-07-28 era, the session's before
//	mcp.session.id           the Mcp-Session-Id of a legacy Streamable HTTP session
//	network.transport        pipe (stdio, a subprocess), tcp (HTTP)
//	network.protocol.name    http, over HTTP
//	server.address, .port    the server's host and port, on the client's side over HTTP
//	error.type               when it failed: the JSON-RPC error code ("-32602"),
//	                         tool_error for a tools/call result with isError, or,
//	                         where no error came back, timeout, canceled,
//	                         connection_closed, invalid_response, an HTTP status
//	                         ("401"), _OTHER
//	rpc.response.status_code the JSON-RPC error code of an error response
//
// A span with error.type has status Error, described by the JSON-RPC
// error's message. The server's span is the child of the trace context in
// the request's params._meta (traceparent, tracestate and baggage, the
// keys SEP-414 reserves), and links to the context the request arrived in
// (an HTTP server span of otelhttp, say) when there is one; without trace
// context in _meta, it is that context's child.
//
// The histograms mcp.client.operation.duration and
// mcp.server.operation.duration (the sender's and the receiver's time per
// request or notification) have the attributes of the spans but
// jsonrpc.request.id, mcp.session.id and mcp.resource.uri (opt-in in the
// conventions, and unbounded); mcp.client.session.duration and
// mcp.server.session.duration have mcp.protocol.version, the network
// attributes, server.address and server.port (the client's), and
// error.type when the session ended with an error. All four are in
// seconds with the conventions' buckets: 0.01, 0.02, 0.05, 0.1, 0.2, 0.5,
// 1, 2, 5, 10, 30, 60, 120 and 300. A session lasts from its first
// message to its end; stateless (2026-07-28) HTTP requests have no
// session.
//
// Not recorded: the opt-in gen_ai.tool.call.arguments and
// gen_ai.tool.call.result (they may hold anything the model or the tool
// sent), client.address and client.port (the middleware does not see the
// HTTP request), network.protocol.version, and jsonrpc.protocol.version
// (recommended only when it is not 2.0). A server cannot tell stdio from
// another stream transport: Options.StreamTransport says which.
//
// # What a peer may not do
//
// The values of the metrics' attributes are bounded whatever a peer
// sends, for each new value is a new series that the SDK keeps: on the
// receiving side a method MCP does not define is recorded as _OTHER, the
// name of a tool or prompt the receiver refused with -32602 (an unknown
// one) is left out, and mcp.protocol.version is only a revision mcpwire
// speaks; on the sending side, an error code in the answer that neither
// JSON-RPC nor MCP defines is _OTHER (the span keeps it). Spans, one per
// message, keep what was asked, but each string a peer chose (a method,
// a tool or prompt name, a URI, a request or session id, an error
// message) is cut to MaxValueLength bytes: a message may be 16 MiB, and
// spans wait in a queue before they are exported.
//
// # Cost
//
// The middleware reads the few members it needs in place, with the
// module's JSON scanner, and writes the trace context into the encoded
// params without decoding them; span names and metric attribute sets
// that repeat are made once. A tools/call served by a server alone
// (BenchmarkServerCall: the frame decoded, served, the answer encoded),
// every span exported over OTLP/HTTP to a local endpoint by the SDK and
// the exporter otlpenv sets up, cost the process this much CPU and these
// allocations per call, instrumentation off and on (medians of five, on
// a loaded shared machine):
//
//	                         off            on, sampled      on, not sampled
//	2025-11-25 session       5.8 µs, 19     19.0 µs, 31      11.9 µs, 31
//	2026-07-28 stateless     7.5 µs, 20     18.9 µs, 32      11.1 µs, 32
//
// Of the sampled cost, most is the SDK's work on the span: mcpwire's SDK
// (otlpenv's) makes a span in 4 allocations, where the official Go SDK
// makes 9, in about half the time (BenchmarkSpan of otel/internal/sdk),
// and exports it from the batch processor's goroutine, off the request's
// path. The exporter writes the protobuf messages straight from the
// SDK's spans: 44 allocations and 220 kB per batch of 512 spans, where
// the official OTLP exporter, converting to the generated proto types
// first, makes 15,741 and 1.1 MB, in about twice the time
// (BenchmarkExportSpans of otel/internal/otlphttp).
// docs/telemetry.md of the repository has the command, more figures, and
// a trace as it arrives.
package otel
