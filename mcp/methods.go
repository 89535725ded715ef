package mcp

// Method names of requests, by the schema's request type: MethodCallTool is
// the method of CallToolRequest, whose params are CallToolParams.
const (
	// Lifecycle (legacy era).
	MethodInitialize = "initialize"
	MethodPing       = "ping"

	// Lifecycle and subscriptions (modern era).
	MethodDiscover            = "server/discover"
	MethodSubscriptionsListen = "subscriptions/listen"

	// Tools.
	MethodListTools = "tools/list"
	MethodCallTool  = "tools/call"

	// Resources.
	MethodListResources         = "resources/list"
	MethodListResourceTemplates = "resources/templates/list"
	MethodReadResource          = "resources/read"
	MethodSubscribe             = "resources/subscribe"   // legacy era
	MethodUnsubscribe           = "resources/unsubscribe" // legacy era

	// Prompts.
	MethodListPrompts = "prompts/list"
	MethodGetPrompt   = "prompts/get"

	// Completion and logging.
	MethodComplete = "completion/complete"
	MethodSetLevel = "logging/setLevel" // legacy era

	// Requests to the client: JSON-RPC requests in the legacy era, input
	// requests of an InputRequiredResult in the modern era.
	MethodCreateMessage = "sampling/createMessage"
	MethodElicit        = "elicitation/create"
	MethodListRoots     = "roots/list"

	// Tasks: core and experimental in 2025-11-25 (get, result, list,
	// cancel); the extension io.modelcontextprotocol/tasks in 2026-07-28
	// (get, update, cancel).
	MethodGetTask        = "tasks/get"
	MethodGetTaskPayload = "tasks/result"
	MethodListTasks      = "tasks/list"
	MethodCancelTask     = "tasks/cancel"
	MethodUpdateTask     = "tasks/update"

	// The skills extension (io.modelcontextprotocol/skills) has
	// MethodListSkills, MethodGetSkill and MethodReadDirectory (skills.go).
)

// Method names of notifications, by the schema's notification type.
const (
	NotificationInitialized               = "notifications/initialized"
	NotificationCancelled                 = "notifications/cancelled"
	NotificationProgress                  = "notifications/progress"
	NotificationLoggingMessage            = "notifications/message"
	NotificationResourceUpdated           = "notifications/resources/updated"
	NotificationResourceListChanged       = "notifications/resources/list_changed"
	NotificationToolListChanged           = "notifications/tools/list_changed"
	NotificationPromptListChanged         = "notifications/prompts/list_changed"
	NotificationRootsListChanged          = "notifications/roots/list_changed"
	NotificationElicitationComplete       = "notifications/elicitation/complete"
	NotificationTaskStatus                = "notifications/tasks/status" // 2025-11-25 core tasks
	NotificationTasks                     = "notifications/tasks"        // tasks extension
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
)

// versionMask is a set of revisions, one bit per entry of supported.
type versionMask uint8

func versions(vs ...Version) versionMask {
	var m versionMask
	for _, v := range vs {
		m |= v.bit()
	}
	return m
}

func (v Version) bit() versionMask {
	for i, s := range supported {
		if s == v {
			return 1 << i
		}
	}
	return 0
}

var (
	allVersions    = versions(supported[:]...)
	legacyVersions = allVersions &^ versions(Version20260728)
	modernVersions = versions(Version20260728)
)

// methodVersions maps every method and notification of every revision to
// the revisions whose core schema has it as a JSON-RPC message.
var methodVersions = map[string]versionMask{
	MethodInitialize:          legacyVersions,
	MethodPing:                legacyVersions,
	MethodDiscover:            modernVersions,
	MethodSubscriptionsListen: modernVersions,

	MethodListTools:             allVersions,
	MethodCallTool:              allVersions,
	MethodListResources:         allVersions,
	MethodListResourceTemplates: allVersions,
	MethodReadResource:          allVersions,
	MethodSubscribe:             legacyVersions,
	MethodUnsubscribe:           legacyVersions,
	MethodListPrompts:           allVersions,
	MethodGetPrompt:             allVersions,
	MethodComplete:              allVersions,
	MethodSetLevel:              legacyVersions,

	MethodCreateMessage: legacyVersions,
	MethodElicit:        versions(Version20250618, Version20251125),
	MethodListRoots:     legacyVersions,

	MethodGetTask:        versions(Version20251125),
	MethodGetTaskPayload: versions(Version20251125),
	MethodListTasks:      versions(Version20251125),
	MethodCancelTask:     versions(Version20251125),
	MethodUpdateTask:     0, // extension only

	MethodListSkills:    0, // extension only
	MethodGetSkill:      0, // extension only
	MethodReadDirectory: 0, // extension only

	NotificationInitialized:               legacyVersions,
	NotificationCancelled:                 allVersions,
	NotificationProgress:                  allVersions,
	NotificationLoggingMessage:            allVersions,
	NotificationResourceUpdated:           allVersions,
	NotificationResourceListChanged:       allVersions,
	NotificationToolListChanged:           allVersions,
	NotificationPromptListChanged:         allVersions,
	NotificationRootsListChanged:          legacyVersions,
	NotificationElicitationComplete:       versions(Version20251125),
	NotificationTaskStatus:                versions(Version20251125),
	NotificationTasks:                     0, // extension only
	NotificationSubscriptionsAcknowledged: modernVersions,
}

// knownMethods lists every method name, in the order of the tables above.
var knownMethods = []string{
	MethodInitialize, MethodPing, MethodDiscover, MethodSubscriptionsListen,
	MethodListTools, MethodCallTool,
	MethodListResources, MethodListResourceTemplates, MethodReadResource,
	MethodSubscribe, MethodUnsubscribe,
	MethodListPrompts, MethodGetPrompt, MethodComplete, MethodSetLevel,
	MethodCreateMessage, MethodElicit, MethodListRoots,
	MethodGetTask, MethodGetTaskPayload, MethodListTasks, MethodCancelTask, MethodUpdateTask,
	MethodListSkills, MethodGetSkill, MethodReadDirectory,
	NotificationInitialized, NotificationCancelled, NotificationProgress,
	NotificationLoggingMessage, NotificationResourceUpdated,
	NotificationResourceListChanged, NotificationToolListChanged,
	NotificationPromptListChanged, NotificationRootsListChanged,
	NotificationElicitationComplete, NotificationTaskStatus, NotificationTasks,
	NotificationSubscriptionsAcknowledged,
}

// KnownMethods returns every request and notification method name of
// every revision and extension this package implements, for example to
// intern method strings in a decoder (jsonrpc.NewDecoder). The slice is a
// fresh copy.
func KnownMethods() []string {
	return append([]string(nil), knownMethods...)
}

// HasMethod reports whether method is a JSON-RPC request or notification
// of revision v's core schema. Servers of the modern era answer the
// methods it removed (initialize, ping, logging/setLevel,
// resources/subscribe, ...) with -32601.
//
// It is false for sampling/createMessage, elicitation/create and
// roots/list in the modern era, where they survive only as input requests
// (see IsInputRequestMethod), and for the methods of the tasks and skills
// extensions, which exist only when the extension is negotiated (see
// IsTasksExtensionMethod and IsSkillsExtensionMethod).
func HasMethod(v Version, method string) bool {
	return methodVersions[method]&v.bit() != 0
}

// IsInputRequestMethod reports whether method may appear in the
// inputRequests of an InputRequiredResult (2026-07-28): elicitation,
// sampling and roots.
func IsInputRequestMethod(method string) bool {
	switch method {
	case MethodElicit, MethodCreateMessage, MethodListRoots:
		return true
	}
	return false
}

// IsTasksExtensionMethod reports whether method belongs to the 2026-07-28
// tasks extension (ExtensionTasks): tasks/get, tasks/update, tasks/cancel
// and notifications/tasks.
func IsTasksExtensionMethod(method string) bool {
	switch method {
	case MethodGetTask, MethodUpdateTask, MethodCancelTask, NotificationTasks:
		return true
	}
	return false
}

// IsSkillsExtensionMethod reports whether method belongs to the skills
// extension (ExtensionSkills): skills/list, skills/get and
// resources/directory/read. A server that declares the extension answers
// them in every revision it serves.
func IsSkillsExtensionMethod(method string) bool {
	switch method {
	case MethodListSkills, MethodGetSkill, MethodReadDirectory:
		return true
	}
	return false
}
