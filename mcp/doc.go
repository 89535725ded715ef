// Package mcp holds the protocol types of the Model Context Protocol, for
// every revision from 2024-11-05 to 2026-07-28: params and results of
// every method, content blocks, capabilities, _meta keys, error codes,
// method names, version sets and the rules that differ between revisions.
// It does no I/O; the server, client and transport packages build on it,
// and it imports only the standard library and package jsonrpc.
//
// # Two eras, one set of types
//
// MCP has two eras. Up to 2025-11-25 (legacy) a session starts with
// initialize and the server may send requests to the client. From
// 2026-07-28 (modern) there is no session: every request names its
// version, client capabilities and client info in _meta (RequestMeta),
// server/discover replaces initialize, subscriptions/listen replaces the
// notification stream, and a server that needs input returns an
// InputRequiredResult instead of sending a request.
//
// Each type here is the union of its shapes across revisions: a field
// that only some revisions have is optional, and a peer of another
// revision simply never sets it. Where shapes truly diverge there are two
// types (Task for 2025-11-25 tasks, DetailedTask for the 2026-07-28 tasks
// extension). What exists in which revision is answered by the version
// table, never by comparing version strings:
//
//	if !mcp.IsSupported(v) { ... }           // set membership
//	if v.Has(mcp.FeatureStructuredOutput) { ... }
//	if !mcp.HasMethod(v, method) { ... }     // -32601
//	v = mcp.NegotiateLegacy(params.ProtocolVersion)
//
// # Transcription rules
//
// The types are transcribed by hand from the TypeScript schemas of the
// specification (schema/<revision>/schema.ts); each file says which
// revisions it follows. The rules:
//
//   - Names follow the schema in Go style: CallToolRequestParams becomes
//     CallToolParams, the method of CallToolRequest is MethodCallTool, and
//     the notification of ToolListChangedNotification is
//     NotificationToolListChanged.
//   - JSON member names are the schema's, exactly (camelCase, "_meta").
//   - An optional member is omitempty, or omitzero for struct values. A
//     pointer is used where absence differs from the zero value: *bool
//     tool hints, *float64 priorities, *int64 TTLs and sizes, pointer
//     capabilities (nil: absent; non-nil: present, {} when empty).
//   - A required array is written [] when empty, never null, and every
//     result is written as an object, {} at the least (EmptyResult).
//   - Unions of object types are sealed interfaces that dispatch on their
//     "type" member (Content), or one tagged struct when the variants are
//     small (CompleteReference, ElicitParams, ResourceContents).
//   - JSON Schemas (inputSchema, outputSchema, requestedSchema), tool
//     arguments, structured content and other caller-defined JSON are
//     json.RawMessage, relayed byte for byte and decoded only by whoever
//     needs them.
//   - Base64 data (images, audio, blobs) stays a string as on the wire;
//     NewImageContent, NewBlobContents and the Bytes methods convert.
//   - Request _meta is the typed RequestMeta (hot path, no maps for the
//     keys every modern request carries); every other _meta is a Meta.
//
// # Results per era
//
// Results carry optional ResultType, TTLMs and CacheScope fields, which
// only the modern era uses. Handlers written once for both eras leave
// them unset; an engine adds what the era requires to the encoded result
// with AddDefaultMembers, without mutating handler values, and maps
// era-specific error codes with AdaptError. Receivers read a missing
// resultType as complete (ResultTypeOf).
//
// # Extensions
//
// Extensions are declared under capabilities.extensions and live beside
// the core revisions: their methods are in no revision's table (HasMethod
// is false; IsTasksExtensionMethod, IsSkillsExtensionMethod). Tasks
// (ExtensionTasks, SEP-2663) have DetailedTask and its methods. Skills
// (ExtensionSkills, SEP-2640) have Skill, the entry of skills/list and
// skills/get: the URI of a skill's SKILL.md, its frontmatter
// (SkillFrontmatter, read from a SKILL.md by ParseSkillFrontmatter), and
// the manifest of its files with their digests (SkillDigest) and sizes.
// Skill.Validate, SkillFrontmatter.Check and ValidateSkillName are the
// extension's and the Agent Skills specification's rules, for servers to
// check what they serve and hosts what they load.
// MCP Apps (ExtensionApps, SEP-1865): a tool names its HTML interface in
// _meta.ui (AppToolMeta, read with AppOfTool, written with SetAppOfTool),
// a ui:// resource of type AppMIMEType whose _meta.ui holds its sandbox
// policy (AppResourceMeta: CSP sources, permissions, domain, border).
// Their decoders are strict: member names case-sensitive, duplicates and
// wrong types refused, lists bounded, errors wrapping ErrAppMeta.
//
// # Errors
//
// MCP error codes are jsonrpc.Code constants (CodeResourceNotFound,
// CodeUnsupportedProtocolVersion, ...). The constructors return a
// *jsonrpc.Error with the data the schema defines; DecodeErrorData reads
// it back.
package mcp
