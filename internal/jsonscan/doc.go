// Package jsonscan reads JSON text in place, without building values: the
// one scanner behind mcpwire's strict message decoder (package jsonrpc),
// the member peeks of package mcp and of the Streamable HTTP handler, and
// the JSON Schema engine. Each of those keeps only its own rules (the
// JSON-RPC envelope, _meta, headers, schema keywords) on top of it. It
// imports only the standard library.
//
// It has two layers.
//
// A [Scanner] validates: it checks that text is JSON (RFC 8259, the
// grammar of encoding/json), within a nesting depth, and optionally that
// strings are valid UTF-8 ([UTF8]) and that no object repeats a key
// ([Duplicates]; keys are compared by their decoded value, so "a" and
// "\u0061" are the same key). It scans in one pass without allocating, and
// hands the caller the spans of an object's keys and values as it goes, so
// that a decoder can pick members out while validating. Errors are a
// [Kind] and an offset; callers word them.
//
// The readers — [SkipSpace], [SkipString], [SkipValue], [EachMember],
// [EachElement], [Member] — walk text that has been validated already (by a
// Scanner or by encoding/json, which validates before it calls an
// UnmarshalJSON method). On such text they find exactly the end of each
// value; on anything else they never panic or loop, and report the text
// as malformed or return some offset within it.
//
// Strings and numbers decode as encoding/json decodes them: [Unquote] and
// [AppendUnescaped] turn invalid UTF-8 and unpaired surrogate escapes into
// U+FFFD, [UnquoteStrict] refuses invalid UTF-8 instead, [StringLen] counts
// the code points of the decoded string without decoding it, and
// [ParseInt] reads an integer exactly.
//
// Every claim above is checked against encoding/json by a differential
// fuzz target (FuzzScanner) and, on every run of the tests, on the fuzz
// corpora of the whole module.
package jsonscan
