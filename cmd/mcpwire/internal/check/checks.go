package check

// The checks, by area, each with the section of the specification it
// comes from: /work/shared/spec's summaries cite the 2025-11-25 revision
// by letter (§A JSON-RPC, §B versions and lifecycle, §C methods, §D
// transports) and the 2026-07-28 revision by number (§1 changelog, §2
// stateless lifecycle, §3 methods).

// A Check is one thing mcpwire check verifies.
type Check struct {
	ID    string // "jsonrpc.parse-error"
	Area  string // "JSON-RPC"
	Title string // what holds when it passes
	Spec  string // where the rule is: "2025-11-25 §A.2 Error codes"
}

// The areas, in the order of the report.
const (
	areaLifecycle = "Lifecycle and version negotiation"
	areaPing      = "Ping"
	areaJSONRPC   = "JSON-RPC"
	areaTools     = "Tools"
	areaResources = "Resources"
	areaPrompts   = "Prompts"
	areaNotify    = "Notifications"
	areaHTTP      = "HTTP"
	areaStateless = "Stateless instances"
)

// areas lists the areas in report order.
var areas = []string{areaLifecycle, areaPing, areaJSONRPC, areaTools, areaResources, areaPrompts, areaNotify, areaHTTP, areaStateless}

var (
	chkInitialize = &Check{"lifecycle.initialize", areaLifecycle,
		"initialize is answered with a known revision, capabilities and serverInfo",
		"2025-11-25 §B.4 Lifecycle rules"}
	chkNegotiation = &Check{"lifecycle.negotiation", areaLifecycle,
		"initialize with an unknown revision is answered with one the server supports",
		"2025-11-25 §B.3 Version negotiation"}
	chkDiscover = &Check{"lifecycle.discover", areaLifecycle,
		"server/discover answers supportedVersions (with 2026-07-28), capabilities, ttlMs and cacheScope",
		"2026-07-28 §2.2 server/discover"}
	chkResultMeta = &Check{"lifecycle.result-meta", areaLifecycle,
		"every result carries resultType and the server's info in _meta; lists and reads, ttlMs and cacheScope",
		"2026-07-28 §1 (SEP-2322, SEP-2575, SEP-2549), §2.1 Request envelope"}
	chkUnsupported = &Check{"lifecycle.unsupported-version", areaLifecycle,
		"a request in an unknown revision is refused with -32022, naming the supported ones",
		"2026-07-28 §2.3 Errors and HTTP status, §2.8 Version negotiation"}
	chkMissingMeta = &Check{"lifecycle.missing-capabilities", areaLifecycle,
		"a request without clientCapabilities in _meta is refused with -32602",
		"2026-07-28 §2.1 Request envelope, §2.3"}

	chkPing = &Check{"ping.answered", areaPing,
		"ping is answered with an empty result",
		"2025-11-25 §C (ping)"}
	chkPingRemoved = &Check{"ping.removed", areaPing,
		"ping is refused with -32601: the stateless revision removed it",
		"2026-07-28 §2.3, §3"}

	chkParseError = &Check{"jsonrpc.parse-error", areaJSONRPC,
		"a frame that is not JSON gets -32700 Parse error; the connection stays usable",
		"2025-11-25 §A.2 Error codes, §A.4 #8"}
	chkInvalidRequest = &Check{"jsonrpc.invalid-request", areaJSONRPC,
		"JSON that is not a request gets -32600 Invalid Request; the connection stays usable",
		"2025-11-25 §A.2 Error codes, §A.4 #9"}
	chkVersion = &Check{"jsonrpc.version", areaJSONRPC,
		`a request whose "jsonrpc" is not "2.0" gets -32600; the connection stays usable`,
		"2025-11-25 §A.1 (A1)"}
	chkUnknownMethod = &Check{"jsonrpc.unknown-method", areaJSONRPC,
		"an unknown method gets -32601 Method not found, with the request's id",
		"2025-11-25 §A.2, §A.4 #7; 2026-07-28 §2.3"}
	chkInvalidParams = &Check{"jsonrpc.invalid-params", areaJSONRPC,
		"a call whose params have the wrong type gets -32602 Invalid params",
		"2025-11-25 §A.2 Error codes, §C tools/call"}

	chkToolsList = &Check{"tools.list", areaTools,
		"tools/list lists every tool, page by page, under unique, well-formed names",
		"2025-11-25 §C tools/list, Tool names, Pagination"}
	chkInputSchema = &Check{"tools.input-schema", areaTools,
		"every inputSchema is a valid JSON Schema whose root has type object (and valid x-mcp-header annotations from 2026-07-28)",
		"2025-11-25 §C tools/list, JSON Schema; 2026-07-28 §1 (SEP-2106), §2.4 HTTP"}
	chkOutputSchema = &Check{"tools.output-schema", areaTools,
		"every outputSchema is a valid JSON Schema (of type object before 2026-07-28)",
		"2025-11-25 §C tools/list, JSON Schema; 2026-07-28 §1 (SEP-2106)"}
	chkUnknownTool = &Check{"tools.unknown-tool", areaTools,
		"a call to an unknown tool is a JSON-RPC error (-32602)",
		"2025-11-25 §C tools/call"}
	chkToolCall = &Check{"tools.call", areaTools,
		"a tool called (--call, --call-read-only) answers a result whose structuredContent matches its outputSchema",
		"2025-11-25 §C tools/call"}

	chkResourcesList = &Check{"resources.list", areaResources,
		"resources/list lists every resource, page by page, each with a URI and a name",
		"2025-11-25 §C resources/list, Pagination"}
	chkResourcesRead = &Check{"resources.read", areaResources,
		"listed resources read back as text or base64 blob contents",
		"2025-11-25 §C resources/read"}
	chkNotFound = &Check{"resources.not-found", areaResources,
		"reading an unknown resource is an error: -32002 up to 2025-11-25, -32602 from 2026-07-28",
		"2025-11-25 §C resources/read; 2026-07-28 §1 (SEP-2164)"}
	chkTemplates = &Check{"resources.templates", areaResources,
		"resources/templates/list lists valid RFC 6570 URI templates",
		"2025-11-25 §C resources/templates/list"}
	chkSubscribe = &Check{"resources.subscribe", areaResources,
		"resources/subscribe and unsubscribe are answered when resources.subscribe is declared",
		"2025-11-25 §C resources/subscribe"}
	chkInvalidCursor = &Check{"pagination.invalid-cursor", areaResources,
		"a list asked for with a cursor the server never gave gets -32602",
		"2025-11-25 §C resources/list, Pagination"}

	chkPromptsList = &Check{"prompts.list", areaPrompts,
		"prompts/list lists every prompt, page by page; arguments have names",
		"2025-11-25 §C prompts/list"}
	chkPromptsGet = &Check{"prompts.get", areaPrompts,
		"prompts without required arguments render messages of role user or assistant",
		"2025-11-25 §C prompts/get"}
	chkPromptArgs = &Check{"prompts.arguments", areaPrompts,
		"a prompt asked for without its required arguments gets -32602",
		"2025-11-25 §C prompts/get"}

	chkListChanged = &Check{"notifications.list-changed", areaNotify,
		"list_changed notifications come only for lists whose listChanged is declared",
		"2025-11-25 §C notifications/*/list_changed"}
	chkListen = &Check{"notifications.listen", areaNotify,
		"subscriptions/listen is acknowledged first, tagged with the subscription's id",
		"2026-07-28 §2.7 Notifications, subscriptions and progress"}

	chkProtocolHeader = &Check{"http.protocol-version", areaHTTP,
		"a request with an unsupported MCP-Protocol-Version header gets HTTP 400",
		"2025-11-25 §B.3 Version negotiation, §D.2 Headers"}
	chkSessionHeader = &Check{"http.session", areaHTTP,
		"a request without the session's Mcp-Session-Id gets HTTP 400",
		"2025-11-25 §D.2 Sessions"}
	chkOrigin = &Check{"http.origin", areaHTTP,
		"a request from a foreign Origin gets HTTP 403",
		"2025-11-25 §D.2 Security"}
	chkMethodHeader = &Check{"http.method-header", areaHTTP,
		"a request whose Mcp-Method header is missing or differs gets HTTP 400 and -32020",
		"2026-07-28 §2.3, §2.4 HTTP (SEP-2243)"}
	chkNameHeader = &Check{"http.name-header", areaHTTP,
		"a request whose Mcp-Name header differs from its params gets HTTP 400 and -32020",
		"2026-07-28 §2.3, §2.4 HTTP (SEP-2243)"}
	chkVersionHeader = &Check{"http.version-header", areaHTTP,
		"a request whose MCP-Protocol-Version differs from its _meta gets HTTP 400 and -32020",
		"2026-07-28 §2.1 Request envelope, §2.3"}
	chkNotFound404 = &Check{"http.unknown-method", areaHTTP,
		"an unknown method gets HTTP 404 with -32601",
		"2026-07-28 §2.3 Errors and HTTP status"}
	chkNoSession = &Check{"http.no-session", areaHTTP,
		"stateless answers carry no Mcp-Session-Id",
		"2026-07-28 §2.4 HTTP (Sessions)"}

	chkSameAnswers = &Check{"stateless.same-answers", areaStateless,
		"two instances answer server/discover and every list alike",
		"2026-07-28 §1 (SEP-2567)"}
	chkCursors = &Check{"stateless.cursors", areaStateless,
		"a cursor of one instance pages on the other",
		"2026-07-28 §1 (SEP-2567), §2.8"}
)

// Catalogue lists every check, in report order.
var Catalogue = []*Check{
	chkInitialize, chkNegotiation, chkDiscover, chkResultMeta, chkUnsupported, chkMissingMeta,
	chkPing, chkPingRemoved,
	chkParseError, chkInvalidRequest, chkVersion, chkUnknownMethod, chkInvalidParams,
	chkToolsList, chkInputSchema, chkOutputSchema, chkUnknownTool, chkToolCall,
	chkResourcesList, chkResourcesRead, chkNotFound, chkTemplates, chkSubscribe, chkInvalidCursor,
	chkPromptsList, chkPromptsGet, chkPromptArgs,
	chkListChanged, chkListen,
	chkProtocolHeader, chkSessionHeader, chkOrigin, chkMethodHeader, chkNameHeader, chkVersionHeader, chkNotFound404, chkNoSession,
	chkSameAnswers, chkCursors,
}
