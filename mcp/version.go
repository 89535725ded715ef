package mcp

// A Version is an MCP protocol revision, written as its date
// ("2025-11-25"). Versions are names, not numbers: a version is known or
// unknown, never "earlier" or "later" than another. Compare them with ==,
// IsSupported and the feature table (Version.Has), never with < or >.
type Version string

// The protocol revisions this package implements.
const (
	Version20241105 Version = "2024-11-05" // first release; HTTP+SSE transport
	Version20250326 Version = "2025-03-26" // Streamable HTTP, OAuth, batches, audio, tool annotations
	Version20250618 Version = "2025-06-18" // no batches; structured output, elicitation, resource links
	Version20251125 Version = "2025-11-25" // icons, URL elicitation, sampling tools, tasks
	Version20260728 Version = "2026-07-28" // stateless: per-request _meta, server/discover, MRTR
)

const (
	// LatestLegacy is the newest revision of the stateful era, the one a
	// server answers an initialize request with when it does not support
	// the version the client asked for.
	LatestLegacy = Version20251125
	// Latest is the newest revision this package implements.
	Latest = Version20260728
)

// supported lists the implemented revisions, newest first.
var supported = [...]Version{
	Version20260728,
	Version20251125,
	Version20250618,
	Version20250326,
	Version20241105,
}

// SupportedVersions returns the revisions this package implements, newest
// first. The slice is a fresh copy the caller may keep or modify.
func SupportedVersions() []Version {
	s := make([]Version, len(supported))
	copy(s, supported[:])
	return s
}

// IsSupported reports whether v is one of the revisions this package
// implements. It is a set-membership test: "2025-12-01" is not supported
// even though it sorts between two supported versions.
func IsSupported(v Version) bool {
	return v.features() != 0
}

// IsModern reports whether v belongs to the stateless era (2026-07-28 and
// later revisions this package implements): no initialize handshake, every
// request carries its version, capabilities and client info in _meta.
func IsModern(v Version) bool {
	return v == Version20260728
}

// IsLegacy reports whether v is a supported revision of the stateful era
// (2024-11-05 to 2025-11-25), negotiated once by initialize.
func IsLegacy(v Version) bool {
	return IsSupported(v) && !IsModern(v)
}

// NegotiateLegacy applies the version rule of the initialize handshake
// (2025-11-25 lifecycle): a server that supports the requested version
// answers with the same version; otherwise it answers with the latest
// version it supports. Only legacy versions can be negotiated this way, so
// a modern or unknown request yields LatestLegacy. The answer is a normal
// result, not an error; a client that cannot speak it disconnects.
func NegotiateLegacy(requested Version) Version {
	if IsLegacy(requested) {
		return requested
	}
	return LatestLegacy
}

// A Feature is a protocol capability that exists in some revisions and not
// in others. Ask a version whether it has one with Version.Has.
type Feature uint8

// The features whose presence differs between revisions.
const (
	// FeatureInitialize: the initialize / notifications/initialized
	// handshake and the session it opens (every legacy revision).
	FeatureInitialize Feature = iota
	// FeaturePing: the ping request, in both directions (legacy only).
	FeaturePing
	// FeatureSetLevel: the logging/setLevel request (legacy only; modern
	// requests carry io.modelcontextprotocol/logLevel in _meta instead).
	FeatureSetLevel
	// FeatureResourceSubscribe: resources/subscribe and
	// resources/unsubscribe (legacy only; modern uses subscriptions/listen).
	FeatureResourceSubscribe
	// FeatureServerRequests: the server may send JSON-RPC requests to the
	// client (sampling, elicitation, roots; legacy only).
	FeatureServerRequests
	// FeatureRootsListChanged: notifications/roots/list_changed and the
	// roots.listChanged capability (legacy only).
	FeatureRootsListChanged
	// FeatureBatch: JSON-RPC batches must be accepted (2025-03-26 only).
	FeatureBatch
	// FeatureAudioContent: the "audio" content type (2025-03-26 on).
	FeatureAudioContent
	// FeatureToolAnnotations: Tool.annotations hints (2025-03-26 on).
	FeatureToolAnnotations
	// FeatureCompletions: the completions server capability (2025-03-26 on).
	FeatureCompletions
	// FeatureProgressMessage: notifications/progress carries a message
	// (2025-03-26 on).
	FeatureProgressMessage
	// FeatureStructuredOutput: Tool.outputSchema and
	// CallToolResult.structuredContent (2025-06-18 on).
	FeatureStructuredOutput
	// FeatureElicitation: elicitation/create in form mode (2025-06-18 on).
	FeatureElicitation
	// FeatureResourceLinks: the "resource_link" content type (2025-06-18 on).
	FeatureResourceLinks
	// FeatureProtocolVersionHeader: HTTP requests carry the
	// MCP-Protocol-Version header (2025-06-18 on).
	FeatureProtocolVersionHeader
	// FeatureIcons: icons on tools, prompts, resources and implementations
	// (2025-11-25 on).
	FeatureIcons
	// FeatureURLElicitation: elicitation in URL mode (2025-11-25 on).
	FeatureURLElicitation
	// FeatureElicitationComplete: notifications/elicitation/complete,
	// ElicitParams.elicitationId and error -32042 (2025-11-25 only).
	FeatureElicitationComplete
	// FeatureSamplingTools: tools and toolChoice in sampling, tool_use and
	// tool_result content (2025-11-25 on).
	FeatureSamplingTools
	// FeatureTasks: the core, experimental tasks of 2025-11-25 (tasks/*,
	// task-augmented requests). In 2026-07-28 tasks are the extension
	// io.modelcontextprotocol/tasks instead (see ExtensionTasks).
	FeatureTasks
	// FeatureResultType: every result carries resultType (modern only).
	FeatureResultType
	// FeatureCacheableResults: list results, resources/read and
	// server/discover carry ttlMs and cacheScope (modern only).
	FeatureCacheableResults
	// FeatureDiscover: server/discover (modern only).
	FeatureDiscover
	// FeatureSubscriptionsListen: subscriptions/listen (modern only).
	FeatureSubscriptionsListen
	// FeatureInputRequired: multi round-trip requests; tools/call,
	// prompts/get and resources/read may return an InputRequiredResult
	// (modern only).
	FeatureInputRequired

	numFeatures
)

var featureNames = [numFeatures]string{
	"initialize", "ping", "logging/setLevel", "resources/subscribe",
	"server requests", "roots list_changed", "batch", "audio content",
	"tool annotations", "completions", "progress message",
	"structured output", "elicitation", "resource links",
	"MCP-Protocol-Version header", "icons", "URL elicitation",
	"elicitation complete", "sampling tools", "tasks", "resultType",
	"cacheable results", "server/discover", "subscriptions/listen",
	"input required",
}

// String returns a short name for the feature.
func (f Feature) String() string {
	if f < numFeatures {
		return featureNames[f]
	}
	return "unknown feature"
}

type featureSet uint64

func set(fs ...Feature) featureSet {
	var s featureSet
	for _, f := range fs {
		s |= 1 << f
	}
	return s
}

// The feature table, built revision by revision as the changelogs read.
var (
	features20241105 = set(FeatureInitialize, FeaturePing, FeatureSetLevel,
		FeatureResourceSubscribe, FeatureServerRequests, FeatureRootsListChanged)
	features20250326 = features20241105 | set(FeatureBatch, FeatureAudioContent,
		FeatureToolAnnotations, FeatureCompletions, FeatureProgressMessage)
	features20250618 = features20250326&^set(FeatureBatch) | set(FeatureStructuredOutput,
		FeatureElicitation, FeatureResourceLinks, FeatureProtocolVersionHeader)
	features20251125 = features20250618 | set(FeatureIcons, FeatureURLElicitation,
		FeatureElicitationComplete, FeatureSamplingTools, FeatureTasks)
	features20260728 = features20251125&^set(FeatureInitialize, FeaturePing,
		FeatureSetLevel, FeatureResourceSubscribe, FeatureServerRequests,
		FeatureRootsListChanged, FeatureElicitationComplete, FeatureTasks) |
		set(FeatureResultType, FeatureCacheableResults, FeatureDiscover,
			FeatureSubscriptionsListen, FeatureInputRequired)
)

func (v Version) features() featureSet {
	switch v {
	case Version20241105:
		return features20241105
	case Version20250326:
		return features20250326
	case Version20250618:
		return features20250618
	case Version20251125:
		return features20251125
	case Version20260728:
		return features20260728
	}
	return 0
}

// Has reports whether revision v has feature f. An unsupported version has
// no features.
func (v Version) Has(f Feature) bool {
	return f < numFeatures && v.features()&(1<<f) != 0
}

// AllowsBatch reports whether JSON-RPC batches are part of revision v:
// only 2025-03-26, where receivers must accept them.
func AllowsBatch(v Version) bool { return v.Has(FeatureBatch) }

// HasStructuredOutput reports whether revision v has Tool.outputSchema and
// CallToolResult.structuredContent (2025-06-18 on).
func HasStructuredOutput(v Version) bool { return v.Has(FeatureStructuredOutput) }

// HasElicitation reports whether revision v has elicitation/create
// (2025-06-18 on).
func HasElicitation(v Version) bool { return v.Has(FeatureElicitation) }

// HasTasks reports whether revision v has the core tasks of 2025-11-25.
// The tasks extension of the modern era is negotiated separately, through
// the extensions capability.
func HasTasks(v Version) bool { return v.Has(FeatureTasks) }

// HasResultType reports whether results of revision v carry resultType
// (the modern era). Receivers treat an absent resultType as "complete".
func HasResultType(v Version) bool { return v.Has(FeatureResultType) }
