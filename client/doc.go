// Package client connects to MCP servers: any server, in any protocol
// revision from 2024-11-05 to 2026-07-28, over any transport.
//
// # Connecting
//
//	c := client.New(mcp.Implementation{Name: "my-app", Version: "1.0.0"}, nil)
//
//	// A server started as a subprocess...
//	sess, err := c.Connect(ctx, command.New(exec.Command("my-server"), nil))
//	// ...or reached over HTTP.
//	sess, err := c.Connect(ctx, streamable.NewTransport("https://example.com/mcp", nil))
//	defer sess.Close()
//
// Connect agrees on a protocol revision. It first asks for the stateless
// revision 2026-07-28 (server/discover); a server that does not speak it
// gets the legacy initialize handshake instead, in the newest legacy
// revision it accepts. Set Options.Version to force a revision. The client
// remembers which servers are legacy and does not probe them again.
//
// In the stateless era every request carries the envelope
// (protocol version, capabilities, client info) in _meta, encoded once per
// session, and every result the server's info in _meta. The session takes
// that info out of the results of its typed methods and keeps it once
// (Session.ServerInfo, updated if a result describes the server
// differently): their Meta holds the other keys only, nil when there are
// none. Session.Call returns results as they came.
//
// # Using a server
//
//	for tool, err := range sess.Tools(ctx) { ... }       // every page
//	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: args})
//	if res.IsError { ... }                                // the tool failed: tell the model
//	contents, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
//	prompt, err := sess.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize"})
//
// A tool's own failure is a result with IsError set; an error from
// CallTool means the request itself failed (an unknown tool, a transport
// error). An unknown resource is an error for which mcp.IsResourceNotFound
// holds, whatever the revision's error code.
//
// Listing tools teaches the session what it needs to call them. Over
// Streamable HTTP in the modern era, it gives the transport the
// x-mcp-header parameters it mirrors in Mcp-Param-* headers, and drops
// the tools whose annotations are invalid, as the specification asks:
// each is reported, as a *DroppedToolError in Tools and a DroppedTools
// error beside the page from ListTools, never silently.
//
// # Structured results
//
// A tool may declare an outputSchema; its results then carry
// structuredContent that conforms to it. The session learns the schemas
// from tools/list (the latest listing, until a tools/list_changed makes
// it stale) and checks every result of such a tool: one that does not
// conform, or lacks structuredContent, is an *OutputSchemaError, which
// says which values are wrong and still holds the result. Tools without
// an output schema cost nothing for it. Nothing a schema refers to is
// ever fetched: an outputSchema with a "$ref" to a URL or a file is
// refused, each result of that tool an *OutputSchemaError wrapping
// ErrRemoteSchemaRef that names the reference.
//
// The function CallTool decodes a result into a Go value: from
// structuredContent, or from the text of an older server's JSON result
// (a string takes the text as it is). A tool's own failure is then a
// *ToolError:
//
//	f, err := client.CallTool[Forecast](ctx, sess, "forecast", Args{City: "Paris"})
//
// # Answering the server
//
// Servers may ask the client to sample its model, to ask its user
// (elicitation), or for its roots. Setting Options.Sample, Options.Elicit
// or Options.Roots declares the capability and answers the questions, in
// both eras: in a legacy session they arrive as requests; in the
// stateless era they come back as an input_required result, which
// CallTool, GetPrompt and ReadResource answer with the same handlers and
// retry, round after round (at most Options.MaxRounds).
//
// Notifications reach Options.OnLog, OnListChanged and OnResourceUpdated.
// In the stateless era they flow only while a subscription is open
// (Session.Listen), and log messages only for requests made under
// WithLogLevel; progress reaches the function given with WithProgress.
//
// # MCP Apps
//
// A host that renders the interactive interfaces of tools (the MCP Apps
// extension) sets Options.Apps, which declares the extension in both
// eras, and reads a tool's interface with Session.ReadApp:
//
//	app, err := sess.ReadApp(ctx, tool) // client.ErrNoApp: a plain tool
//	// app.HTML goes into a sandboxed iframe whose policy comes from app.UI.CSP
//
// ReadApp checks what a host must not guess at: a ui:// URI, one item of
// type text/html;profile=mcp-app, a bounded size, a policy whose sources
// are origins. app.Tool.VisibleTo tells whether an App may call a tool.
//
// # Tasks
//
// With Options.Tasks a modern client accepts that a long tool call becomes
// a task: CallTool then follows it to its end (polling, answering its
// questions) and returns the final result. Legacy sessions have
// CallToolAsTask and the tasks/* methods.
//
// # Skills
//
// A server that declares the Skills extension (SEP-2640) serves Agent
// Skills. Skills and GetSkill read entries (name, description, the
// manifest of files with their digests), never a file. LoadSkill loads a
// skill as a host must: it validates the entry, reads its SKILL.md and
// nothing else, and verifies the SKILL.md's size, digest and frontmatter
// against the entry; LoadedSkill.ReadFile reads another file when asked,
// only if the held entry lists it, verified too. A mismatch is a
// *SkillVerificationError naming the file and what differs; refresh the
// entry with GetSkill and load again.
//
//	for entry, err := range sess.Skills(ctx) { ... }
//	skill, err := sess.LoadSkill(ctx, entry, nil)
//	data, err := skill.ReadFile(ctx, "references/FORMS.md")
//
// # A server that answers wrongly
//
// A response that is not a valid message (not JSON-RPC 2.0, cut short,
// too large, nested too deep) fails its request at once with a
// *jsonrpc.FrameError that names the frame: where it was, how it
// started (quoted), and the rule it broke; Connect fails the same way on
// a broken handshake. A line that cannot be tied to a request, such as a
// banner a server prints on stdout, is tolerated; a request that then
// times out names it in its error.
//
// # Sessions that end
//
// A legacy HTTP session that the server forgets (it answers 404) is
// re-established by the next request: the client initializes again,
// restores its log level and subscriptions, and retries the request.
package client
