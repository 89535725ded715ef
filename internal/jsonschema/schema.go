package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// Default limits of CompileOptions.
const (
	// DefaultMaxBytes bounds the size of a schema document.
	DefaultMaxBytes = 1 << 20
	// DefaultMaxDepth bounds the nesting of arrays and objects in a schema
	// document.
	DefaultMaxDepth = 64
	// DefaultMaxComposition bounds how many subschemas one value may be
	// checked against through $ref and allOf/anyOf/oneOf/not/if/then/else/
	// dependentSchemas, counted over the whole schema.
	DefaultMaxComposition = 256
	// DefaultMaxSteps bounds the work of one validation beyond the 8 steps
	// per instance byte that are always allowed. A step is one subschema
	// applied to one value.
	DefaultMaxSteps = 1 << 20
)

// MaxInstanceDepth bounds the nesting of arrays and objects in an instance,
// as the jsonrpc package bounds a whole message by default.
const MaxInstanceDepth = 128

// stepsPerByte is the work always allowed per instance byte.
const stepsPerByte = 8

// Errors that Compile wraps. A client that cannot compile a server's
// outputSchema because of an unsupported dialect (or
// [ErrNeedsFullEngine]) can skip validating structuredContent rather than
// fail; one that refers to another document is refused (package client).
var (
	// ErrRemoteRef is wrapped when a schema refers to another document: a
	// URL, a file, or a relative reference. Nothing is ever fetched; the
	// error names the document.
	ErrRemoteRef = errors.New(`remote and file references are not fetched; only local references ("#...", $defs) are supported`)
	// ErrUnsupportedDialect is wrapped when "$schema" names a dialect other
	// than 2020-12 or draft-07.
	ErrUnsupportedDialect = errors.New("unsupported $schema dialect")
)

// CompileOptions configure [Compile]. A nil *CompileOptions and zero fields
// mean the defaults; a negative limit means no limit.
type CompileOptions struct {
	// MaxBytes is the largest schema accepted, in bytes.
	MaxBytes int
	// MaxDepth is the deepest nesting of arrays and objects accepted in the
	// schema document, counting the root as 1.
	MaxDepth int
	// MaxComposition is the largest fan-out accepted: how many subschemas
	// one value can be checked against through $ref and composition.
	MaxComposition int
	// MaxSteps is the work budget of one Validate call, on top of 8 steps
	// per instance byte. An instance that needs more is reported invalid.
	MaxSteps int
	// AssertFormat makes "format" an assertion ("email", "date-time", ...)
	// instead of an annotation. It is off by default, as 2020-12 says.
	AssertFormat bool
	// ObjectRoot requires the root to declare "type": "object", as MCP
	// requires of a tool's inputSchema.
	ObjectRoot bool
}

func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return math.MaxInt
	}
	return v
}

func (o *CompileOptions) get() CompileOptions {
	var c CompileOptions
	if o != nil {
		c = *o
	}
	c.MaxBytes = limit(c.MaxBytes, DefaultMaxBytes)
	c.MaxDepth = limit(c.MaxDepth, DefaultMaxDepth)
	c.MaxComposition = limit(c.MaxComposition, DefaultMaxComposition)
	c.MaxSteps = limit(c.MaxSteps, DefaultMaxSteps)
	return c
}

// A Schema is a compiled JSON Schema. It is safe for concurrent use.
type Schema struct {
	raw        json.RawMessage
	fast       *node      // the fast engine's form; nil if it declined
	full       FullSchema // the full engine's form; nil if fast is set
	maxSteps   int
	objectRoot bool // the root says "type": "object"
}

// Compile compiles a JSON Schema document: draft 2020-12, the default, or
// draft-07 when "$schema" says so. Any other "$schema" is an error. Local
// references ("#", "#/$defs/...") are followed; a reference to anything else
// is an error, since nothing is ever fetched. The document is checked
// against its meta-schema and against the limits in opts.
//
// A schema that uses a keyword only the full engine implements is an
// error wrapping [ErrNeedsFullEngine] unless the program links that engine
// (import _ "github.com/mcpwire/mcpwire/server/fullschema").
//
// The schema's bytes are kept as given, minus insignificant whitespace, and
// returned by [Schema.JSON]: every keyword survives, in its order.
func Compile(raw json.RawMessage, opts *CompileOptions) (*Schema, error) {
	return compile(raw, opts, false, registeredFull())
}

// compile is Compile with the full engine given (nil for none). A trusted
// document, inferred from Go types, is valid by construction: the
// built-in meta-schema check is skipped for it (the full engine still
// judges it, as it always has).
func compile(raw json.RawMessage, opts *CompileOptions, trusted bool, engine FullEngine) (*Schema, error) {
	o := opts.get()
	if len(raw) > o.MaxBytes {
		return nil, fmt.Errorf("jsonschema: schema is %d bytes, more than the limit of %d", len(raw), o.MaxBytes)
	}
	if err := checkSyntax(raw, o.MaxDepth); err != nil {
		return nil, fmt.Errorf("jsonschema: schema: %w", err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("jsonschema: schema: %w", err)
	}
	compact := buf.Bytes()
	root, err := parseTree(compact)
	if err != nil {
		return nil, fmt.Errorf("jsonschema: schema: %w", err)
	}
	d, err := dialectOf(root)
	if err != nil {
		return nil, fmt.Errorf("jsonschema: %w", err)
	}
	t := root.get("type")
	objectRoot := t != nil && t.kind == kindString && t.str == "object"
	if o.ObjectRoot && !objectRoot {
		return nil, errors.New(`jsonschema: the schema's root must have "type": "object"`)
	}
	var full FullSchema
	if engine != nil {
		// The full engine is the judge of what a valid schema is.
		if full, err = engine.Compile(compact, o.AssertFormat); err != nil {
			return nil, fmt.Errorf("jsonschema: %w", err)
		}
	} else if !trusted {
		if err := metaCheck(compact, d, "#"); err != nil {
			return nil, fmt.Errorf("jsonschema: %w", err)
		}
	}
	// Identifiers the fast engine does not implement make it decline at
	// once; otherwise it collects the anchors (anchors.go).
	var anchors *anchorIndex
	dec := declaresIdentifiers(root, root, d)
	switch {
	case dec != nil && full == nil:
		return nil, fmt.Errorf("jsonschema: %w", needsFull(root, dec))
	case dec == nil:
		if anchors, err = indexAnchors(root, d); err != nil {
			return nil, fmt.Errorf("jsonschema: %w", err)
		}
	}
	if err := checkComposition(root, d, anchors, o.MaxComposition); err != nil {
		return nil, fmt.Errorf("jsonschema: %w", err)
	}
	s := &Schema{raw: compact, maxSteps: o.MaxSteps, objectRoot: objectRoot}
	if dec != nil {
		s.full = full
		return s, nil
	}
	fast, err := compileFast(root, d, anchors, o.AssertFormat, engine == nil && !trusted)
	switch {
	case errors.As(err, &dec) && full == nil:
		return nil, fmt.Errorf("jsonschema: %w", needsFull(root, dec))
	case errors.As(err, &dec):
		s.full = full
	case err != nil:
		return nil, fmt.Errorf("jsonschema: %w", err)
	default:
		s.fast = fast
	}
	return s, nil
}

// MustCompile is like [Compile] with default options but panics on error.
// It is meant for schemas written into a program.
func MustCompile(raw string) *Schema {
	s, err := Compile(json.RawMessage(raw), nil)
	if err != nil {
		panic(err)
	}
	return s
}

// The dialects' meta-schema URIs, as usually written. The empty fragment
// "#" is optional, and draft-07 is also accepted over https.
const (
	draft2020URI = "https://json-schema.org/draft/2020-12/schema"
	draft7URI    = "http://json-schema.org/draft-07/schema#"
)

func dialectOf(root *tree) (dialect, error) {
	sch := root.get("$schema")
	if sch == nil {
		return draft2020, nil
	}
	if sch.kind != kindString {
		return 0, errors.New(`"$schema" must be a string`)
	}
	uri := strings.TrimSuffix(sch.str, "#")
	switch uri {
	case draft2020URI:
		return draft2020, nil
	case strings.TrimSuffix(draft7URI, "#"), "https://json-schema.org/draft-07/schema":
		return draft7, nil
	}
	return 0, fmt.Errorf("%w %q: supported are %s (the default) and %s", ErrUnsupportedDialect, sch.str, draft2020URI, draft7URI)
}

// JSON returns the schema as it goes on the wire: the compiled bytes,
// compact, with every keyword in its original order. Callers must not
// modify the result.
func (s *Schema) JSON() json.RawMessage { return s.raw }

// ObjectRoot reports whether the schema's root says "type": "object", as
// [CompileOptions.ObjectRoot] requires.
func (s *Schema) ObjectRoot() bool { return s.objectRoot }

// MarshalJSON implements json.Marshaler with [Schema.JSON].
func (s *Schema) MarshalJSON() ([]byte, error) { return s.raw, nil }

// Validate validates a JSON instance against the schema. It returns nil if
// the instance conforms, and otherwise a *[ValidationError] listing every
// violation (malformed JSON is reported the same way). An empty instance is
// malformed: a caller with no value, such as a tool call without arguments,
// should validate {} instead.
func (s *Schema) Validate(instance json.RawMessage) error {
	if err := checkSyntax(instance, MaxInstanceDepth); err != nil {
		return &ValidationError{Violations: []Violation{{Message: err.Error()}}}
	}
	if s.fast == nil {
		return s.full.Validate(instance)
	}
	budget := s.maxSteps
	if budget < math.MaxInt-stepsPerByte*len(instance) {
		budget += stepsPerByte * len(instance)
	}
	st := getState(instance, budget)
	defer st.release()
	i := jsonscan.SkipSpace(instance, 0)
	if _, ok := st.check(s.fast, i); ok {
		return nil
	}
	if st.over {
		return budgetError(s.maxSteps)
	}
	st.rewind(true)
	st.check(s.fast, i)
	if st.over {
		return budgetError(s.maxSteps)
	}
	if len(st.errs) == 0 {
		// Unreachable: the quick pass failed, so the collecting pass must
		// have found something. Never report an invalid instance as valid.
		st.errs = []Violation{{Message: "value is invalid"}}
	}
	return &ValidationError{Violations: st.errs, Omitted: st.dropped}
}

func budgetError(steps int) error {
	return &ValidationError{Violations: []Violation{{
		Message: fmt.Sprintf("validation stopped: the schema needs more than its budget of %d steps for this value", steps),
	}}}
}
