// Package fullschema links the complete JSON Schema engine into a program.
// It has no API: import it for its side effect.
//
//	import _ "github.com/mcpwire/mcpwire/server/fullschema"
//
// # What the built-in engine covers
//
// Every server validates tool arguments with mcpwire's own engine, which
// checks the JSON bytes in place and costs next to nothing per call. It
// implements JSON Schema 2020-12 (MCP's default dialect) and draft-07,
// except for:
//
//   - $dynamicRef and $dynamicAnchor, and 2019-09's $recursiveRef;
//   - unevaluatedProperties and unevaluatedItems;
//   - $id below the root (but for draft-07's "$id": "#name"), and
//     references written as URLs rather than as fragments ("#/$defs/address"
//     and "#name", to an $anchor, work everywhere; neither engine ever
//     fetches another document);
//   - draft-07's array form of items (with additionalItems) and its
//     dependencies;
//   - format as an assertion rather than an annotation (the
//     AssertFormat option of the schema compiler).
//
// Schemas inferred from Go types never use these, and hand-written tool
// schemas rarely do. Without this package, a schema that does is refused
// where it is given: Server.AddTool returns an error wrapping
// server.ErrNeedsFullSchemaEngine that names the keyword and this import,
// such as
//
//	mcp server: tool "search": input schema: jsonschema: "unevaluatedProperties" needs the full JSON Schema engine: import _ "github.com/mcpwire/mcpwire/server/fullschema"
//
// Schemas are still checked against their meta-schema either way, so
// "type": 5 or a bad regular expression is an error at registration.
//
// # What the full engine costs
//
// The full engine is github.com/santhosh-tekuri/jsonschema/v6. With it
// linked in, it judges every schema at registration and validates the
// arguments of tools whose schemas use the keywords above (decoding them
// into Go values first, which is slower and allocates). Its package
// initialization compiles the drafts' meta-schemas before main runs: about
// 5 ms and 1.7 MB at every start, roughly doubling the time a stdio server
// takes to answer its first request. Import this package in programs that
// serve schemas they do not control, or that need those keywords; leave it
// out of servers whose schemas are inferred or simple.
//
// Clients (package client) check tool results against the outputSchema
// servers list. Without this package, they relay unchecked the results of
// tools whose output schemas use the keywords above; with it, they check
// those too.
//
// The full engine fetches nothing either: its library would read file://
// URLs by default, and here its only loader refuses every URL, so a
// schema that refers to another document, by "$ref", "$dynamicRef" or
// "$schema", is an error naming it (wrapping server.ErrRemoteSchemaRef for
// references).
package fullschema

import _ "github.com/mcpwire/mcpwire/internal/jsonschema/full"
