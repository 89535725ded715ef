// Package server builds MCP servers: tools, resources, resource templates,
// prompts and completions, served to any number of clients over any
// transport, in every protocol revision from 2024-11-05 to 2026-07-28.
//
// # A server in a few lines
//
//	srv := server.New(mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
//
//	type Args struct {
//		City string `json:"city" jsonschema:"the city to look up"`
//	}
//	server.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather"},
//		func(ctx context.Context, req *server.Request, in Args) (string, error) {
//			return "Sunny in " + in.City, nil
//		})
//
//	err := srv.Run(ctx, stdio.New(nil)) // or Connect, or an HTTP handler
//
// The generic AddTool infers the input schema from Args (and an output
// schema from a struct result), validates the arguments before the
// handler runs, and turns a handler's error into a result with isError set,
// so that the model sees it. Server.AddTool takes a raw schema instead.
//
// # Numeric arguments
//
// Numeric arguments are bounded by their Go types: the inferred schema
// gives each integer field its type's range as "minimum" and "maximum"
// (int8: -128 to 127), except that 64-bit types (int64, uint64, and int
// and uint on 64-bit platforms) are bounded to ±(2^53-1), the integers a
// client holding numbers as float64, as JavaScript does, sends exactly;
// float32 fields get float32's range. A number JSON Schema calls an
// integer (1.0, 1e1) decodes into a Go integer field exactly, at any
// depth (nested structs, slices, maps, pointers). A number that does not
// fit its field, whatever schema the tool was given, is a tool error
// (isError) that names the argument and the bound, never a protocol
// error. A 64-bit identifier that must keep all its digits belongs in a
// string (the ",string" option of encoding/json).
//
// # One server, every revision
//
// MCP has two eras. Up to 2025-11-25 a client opens a session with
// initialize; the session holds the negotiated revision, the client's
// capabilities and its log level, and the server may send requests to the
// client (sampling, elicitation, roots). From 2026-07-28 there is no
// session: every request carries its revision, capabilities and client
// info in _meta, and a server that needs something from the client answers
// input_required and lets the client retry with the answer (multi
// round-trip requests, MRTR).
//
// A Server serves both at once, deciding per message: a request whose
// _meta names a protocol version is served statelessly; anything else
// belongs to its session. Handlers do not care: Request gives them the
// client's capabilities and a way to ask questions that works in both
// eras.
//
// # Asking the client: re-entrant handlers
//
// Request.Elicit, Request.Sample, Request.ListRoots and Request.Ask put
// questions to the client. In a legacy session they are requests to the
// client and return its answer. In the modern era the first run of the
// handler stops at the first unanswered question: Ask returns an error
// matching ErrInputRequired, which the handler must return as it is; the
// server answers input_required with the question and a sealed
// requestState holding the answers so far; the client retries with the
// answer, and the handler runs again from the start, this time getting
// the answers it needs. So a handler that asks questions must:
//
//   - ask the same questions, with the same keys, in the same order, each
//     time it runs with the same arguments;
//   - do nothing before its last question that it cannot safely do again
//     (or make it idempotent): side effects belong after the answers;
//   - return the error of Ask unchanged, wrapped at most with %w.
//
// The requestState is sealed with HMAC-SHA256 and bound to the request
// (method, name, arguments), to an expiry and, with Options.Principal, to
// the user; servers behind a load balancer share Options.RequestStateKeys
// so that any instance can continue a round that another began.
//
// # Skills
//
// AddSkillsDir (or AddSkills, for an fs.FS) serves a tree of Agent Skills
// through the Skills extension (SEP-2640): every directory with a
// SKILL.md is a skill, listed by skills/list and skills/get with its
// frontmatter and the sha256 digest and size of each of its files, which
// resources/read serves at skill://<skill-path>/<file-path>. The
// extension is declared from the first skill set; SkillsOptions bounds
// the scan and the reads, and says what to do with skills that break the
// rules (left out, with a SkillError). A file changed on disk is noticed
// when it is read or its skill is fetched, and the set rescanned; Reload
// rescans on demand.
//
//	set, err := srv.AddSkillsDir("skills", &server.SkillsOptions{DirectoryRead: true})
//
// # MCP Apps
//
// A tool may come with an interactive interface (the MCP Apps extension,
// SEP-1865): an HTML document, served as a ui:// resource of type
// text/html;profile=mcp-app, that a host renders in a sandbox beside the
// tool's result. The App inside can call the server's tools through the
// host, among them tools only Apps may call:
//
//	srv.AddApp(&server.App{URI: "ui://clock/view", Name: "clock", HTML: page})
//	srv.AddAppTool(&mcp.Tool{Name: "show_time"},
//		mcp.AppToolMeta{ResourceURI: "ui://clock/view"}, showTime)
//	srv.AddAppTool(&mcp.Tool{Name: "tick"}, mcp.AppToolMeta{
//		ResourceURI: "ui://clock/view",
//		Visibility:  []mcp.AppVisibility{mcp.AppVisibilityApp},
//	}, tick)
//
// Adding a tool whose _meta.ui names something other than a ui:// URI, or
// an interface the server does not serve, is an error (ErrApp); add the
// App first. The server lists every tool to every client: keeping
// app-only tools from the model, and model-only tools from Apps, is the
// host's part. examples/apps is a complete App.
//
// # Errors
//
// A tool's failures are results (IsError), never protocol errors. A
// handler that returns a *jsonrpc.Error chooses the protocol error instead:
// use it for what is not the tool's failure but the request's (for example
// mcp.ResourceNotFoundError from a resource handler, which the server
// sends with the code of the request's era).
//
// # Concurrency
//
// A session handles requests concurrently (Options.MaxConcurrency),
// notifications in order, and initialize as a barrier; cancellation from
// the client cancels the handler's context. Adding or removing features
// while serving is safe; connected clients are told the lists changed.
//
// # Notifications the server sends on its own
//
// AddTool, RemoveTools, the resource and prompt equivalents,
// ResourceUpdated and the tasks engine never wait for a client: they
// return at once, and each client is told from a goroutine of its own
// that lives only while it has something to send. What a client has not
// been told yet is coalesced — one notifications/tools/list_changed
// however many tools changed meanwhile, one resources/updated per URI,
// the latest state of each task — so a client that stops reading holds
// one goroutine and a bounded backlog, and is told once when it reads
// again. Each delivery is bounded by Options.NotifyTimeout; a client
// that fails three in a row is given up (its session closed, its listen
// ended). An idle session holds no goroutine.
//
// # Limits
//
// Every bound has a default and an option, and holds in both eras:
// Options.MaxConcurrency and MaxQueue per legacy session,
// MaxStatelessRequests for the modern requests of all clients (ServeStateless,
// which the HTTP handler calls per request; beyond it CodeOverloaded, HTTP
// 503), MaxListeners for open subscriptions/listen streams, MaxSubscriptions
// for the resources a session or a listen watches, MaxRequestStateBytes and
// RequestStateTTL for multi round-trip state, TaskOptions for tasks (whose
// MaxTasksPerOwner also bounds the tasks a listen watches), SkillsOptions
// for skill sets (SEP-2640), PageSize,
// DrainTimeout and NotifyTimeout. A request refused by a bound gets a
// JSON-RPC error that says which, never a silent drop.
//
// # Shutting down
//
// Shutdown is http.Server.Shutdown for MCP: at once, the server refuses
// new sessions (Connect and Open fail with ErrServerClosed) and new
// stateless requests (jsonrpc.CodeConnectionClosed, HTTP 503), and ends
// every open subscriptions/listen with its result; then the requests of
// every session, the stateless requests and the running tasks all finish
// in parallel, for as long as the context allows; what is left then is
// cancelled. Close is the same without the grace period. Both may be
// called concurrently and more than once; a closed server stays closed.
// Behind HTTP, shut the MCP server down first, then the handler, then the
// http.Server:
//
//	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
//	defer cancel()
//	srv.Shutdown(ctx) // calls and tasks finish, listens end
//	h.Shutdown(ctx)   // the handler's sessions and goroutines
//	hs.Shutdown(ctx)  // the HTTP server, now that no stream stays open
package server
