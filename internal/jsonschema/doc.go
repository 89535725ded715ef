// Package jsonschema is mcpwire's JSON Schema engine: it infers schemas from
// Go types, compiles schemas written by hand, and validates JSON against
// them. The server uses it for tools' inputSchema (arguments are validated
// before the handler runs) and outputSchema (a typed tool's result is
// checked before it is sent); the client checks the structuredContent of
// results against the outputSchema a server listed.
//
// # Inferring a schema
//
// A tool written with Go types declares its input by a struct:
//
//	type Args struct {
//		Text  string   `json:"text" jsonschema:"the text to translate"`
//		To    string   `json:"to,omitempty" jsonschema:"target language; default English"`
//		Tags  []string `json:"tags,omitzero"`
//		Limit *int     `json:"limit"`
//	}
//
//	s, err := jsonschema.For[Args](nil)
//
// gives, on the wire ([Schema.JSON]):
//
//	{"type":"object","properties":{
//	  "text":{"type":"string","description":"the text to translate"},
//	  "to":{"type":"string","description":"target language; default English"},
//	  "tags":{"type":["array","null"],"items":{"type":"string"}},
//	  "limit":{"type":["integer","null"],"minimum":-9223372036854775808,"maximum":9223372036854775807}},
//	 "required":["text"],"additionalProperties":false}
//
// The schema describes what encoding/json reads and writes:
//
//   - Struct fields are named by their json tag, or their Go name; json:"-"
//     and unexported fields are left out; fields of embedded structs are
//     promoted, with encoding/json's rules for conflicting names; the
//     ",string" option makes a number or boolean a string.
//   - A field is required unless it has omitempty or omitzero, or is a
//     pointer.
//   - Pointers, slices and maps also accept null, since that is how Go
//     writes nil.
//   - Integers are "integer" and floats "number", with their Go type's
//     range as "minimum" and "maximum" (float64 has none: JSON numbers
//     beyond it are refused when decoded); with
//     [InferOptions.SafeIntegers], as for a tool's arguments, 64-bit
//     integer types are bounded to ±[MaxSafeInteger] instead (see
//     [Numbers] for decoding 1.0 and 1e1 into them). []byte is a base64
//     "string"; arrays [N]T have exactly N
//     items; maps are objects whose "additionalProperties" is the value's
//     schema (integer keys get a "propertyNames" pattern).
//   - time.Time is a "date-time" string; json.Number a number; any other
//     type with its own MarshalJSON accepts anything, and one with only
//     MarshalText is a string. json.RawMessage and interfaces accept
//     anything. [InferOptions.TypeSchemas] overrides any type.
//   - Structs get "additionalProperties": false, so a misspelled member is
//     reported instead of silently dropped;
//     [InferOptions.AllowAdditionalProperties] turns that off.
//   - A recursive type is defined once under "$defs" and referred to with
//     "$ref" ("#" when it is the root type itself).
//   - Channels, functions, complex numbers and unsafe pointers have no JSON
//     form: For returns an error naming the field, such as
//     "Args.Callback".
//
// The jsonschema struct tag holds the property's description, the whole of
// the tag value, verbatim: `jsonschema:"a date, in any format"`. There is no
// other syntax in it.
//
// # Compiling a schema
//
// [Compile] accepts any JSON Schema 2020-12 document, which is MCP's
// default dialect, and draft-07 documents that declare it with "$schema".
// Any other "$schema" is an error that names the supported ones. Compile
// checks the document against its meta-schema, so "type": 5 or a bad
// regular expression is an error at compile time, not a surprise later.
// A schema that needs the full engine (see "Two engines") is an error
// wrapping [ErrNeedsFullEngine] unless the program links it.
//
// The document's bytes are kept as given, less insignificant whitespace,
// and [Schema.JSON] returns them: "$schema", "$defs", "additionalProperties"
// and every other keyword reach tools/list in their original order. This
// is what the conformance suite checks when it relays a tool's schema.
//
// Nothing is ever fetched or read, by either engine. References into the
// document ("#", "#/$defs/address", and "#address" to a subschema that
// declares "$anchor": "address", or in draft-07 "$id": "#address") work;
// a reference ($ref, $dynamicRef) to a URL or a file, written as such or
// relative to the root's "$id", is an error wrapping [ErrRemoteRef] that
// names the document it would have fetched, as SEP-2106 forbids
// dereferencing network references (another SDK's client read local
// files and URLs through an outputSchema's $ref: CVE-2026-116686); an
// unknown "$schema" wraps [ErrUnsupportedDialect]. Package client refuses
// an output schema with such a reference, and relays unchecked the
// results of a tool whose schema wraps [ErrUnsupportedDialect] or
// [ErrNeedsFullEngine].
//
// # Validating
//
// [Schema.Validate] checks a JSON instance and returns a
// [*ValidationError] listing every violation with its JSON pointer. The
// message is written for the model that made the call:
//
//	arguments/text: expected string, got number 5; arguments: missing required property "count"
//
// ([ValidationError.Message] chooses the root's name; Error says
// "instance".) In MCP a tool's invalid input is a tool result with isError,
// not a protocol error, so that the model can read this and try again.
//
// Formats ("email", "date-time", ...) are annotations, as 2020-12 says,
// unless [CompileOptions.AssertFormat] is set.
//
// # Two engines
//
// Validation runs on every tool call, so it must cost next to nothing.
// The fast engine, in this package, validates the instance's bytes in
// place: it never decodes them into map[string]any, and a valid instance
// costs no allocation at all. It implements draft-07 and 2020-12 except
// for a few keywords: $dynamicRef and $dynamicAnchor (and 2019-09's
// $recursiveRef), unevaluatedProperties and unevaluatedItems, $id below
// the root (but for draft-07's "#name"), references that are not
// fragments ("#/...", "#name"), draft-07's array form of items,
// dependencies (draft-07's keyword, which the full engine applies in
// 2020-12 too), and format as an assertion ([CompileOptions.AssertFormat]).
// It resolves anchors as the full engine does: collected from every place
// a subschema may be, referenced or not, a name declared twice being an
// error (a schema whose JSON-pointer references lead to anchors elsewhere,
// which the full engine collects as it compiles, needs the full engine).
//
// Those need the full engine, github.com/santhosh-tekuri/jsonschema/v6,
// which implements everything. It is not linked by default: its package
// initialization compiles its meta-schemas, about 5 ms and 1.7 MB at every
// start of every program that links it. A program links it with
//
//	import _ "github.com/mcpwire/mcpwire/server/fullschema"
//
// which imports internal/jsonschema/full, which installs it through
// [RegisterFullEngine]. The two ways then differ as follows.
//
// Without the full engine, Compile checks the schema against its
// dialect's meta-schema with the fast engine (meta-schemas written for
// it, compiled at the first Compile that needs one, and never for a schema
// inferred by [For], which is valid by construction). A schema that uses
// any of the keywords above — $dynamicAnchor and $id below the root
// wherever they appear, the others where the schema reaches them — is an
// error wrapping [ErrNeedsFullEngine] that names the keyword and the
// import.
//
// With the full engine, it compiles every schema and is the judge of
// what a valid schema is; instances are validated by the fast engine
// unless it declined the schema.
//
// Tests hold the two ways together. Both engines pass the official
// JSON-Schema-Test-Suite (remote references aside) and reach the same
// verdicts on generated and fuzzed schemas and instances; the built-in
// meta-schema check accepts exactly the schemas the full engine accepts,
// with two exceptions listed in meta_test.go. One known difference: in
// draft-07, where a $ref hides its sibling keywords, the full engine hides
// only those of draft-04 and still applies const, contains, propertyNames
// and if/then/else beside a $ref; the fast engine follows the
// specification.
//
// Inferred schemas always use the fast engine.
//
// # Limits
//
// A schema may come from a peer (a client validates a server's
// outputSchema), and an instance always does. Both are bounded:
//
//   - a schema's size ([DefaultMaxBytes]) and nesting ([DefaultMaxDepth]);
//   - its composition ([DefaultMaxComposition]): how many subschemas one
//     value can be checked against through $ref, allOf, anyOf, oneOf, not,
//     if/then/else and dependentSchemas, counted with sharing through
//     $defs. A $ref cycle that never descends into the value is an error.
//   - the work of one validation ([DefaultMaxSteps] on top of 8 steps per
//     instance byte), which stops nested composition from taking
//     exponential time on deep instances (the full engine has no such
//     budget: only the composition limit bounds it);
//   - an instance's nesting ([MaxInstanceDepth]);
//   - what the full engine is given: numbers of more than 1000 digits or
//     with an exponent beyond ±1000 are reported instead of validated,
//     since that engine computes with math/big.
//
// The limits on schemas and on work can be changed through
// [CompileOptions]; the last two are fixed. Regular expressions
// use Go's regexp package, whose matching time is linear; its syntax lacks
// ECMA 262's look-around and back-references, and a schema using them does
// not compile.
package jsonschema
