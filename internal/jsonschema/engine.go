package jsonschema

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
)

// The full engine is optional. A program that needs the keywords the fast
// engine lacks links it with
//
//	import _ "github.com/mcpwire/mcpwire/server/fullschema"
//
// whose only job is to import internal/jsonschema/full, which registers
// itself here in its init function. Without it, schemas are checked
// against their meta-schema by the fast engine (meta.go), and a schema the
// fast engine declines is an error wrapping ErrNeedsFullEngine.

// fullImport is the import that links the full engine into a program.
const fullImport = "github.com/mcpwire/mcpwire/server/fullschema"

// ErrNeedsFullEngine is wrapped by [Compile]'s error when the schema uses
// something only the full engine implements ($dynamicRef,
// unevaluatedProperties, ...; see the package documentation) and no full
// engine is linked into the program. The error names the keyword; the fix
// is to import github.com/mcpwire/mcpwire/server/fullschema for its side
// effect. Like [ErrRemoteRef], it lets a client relay such a schema
// without validating against it.
var ErrNeedsFullEngine = errors.New(`needs the full JSON Schema engine: import _ "` + fullImport + `"`)

// A FullEngine is a complete implementation of JSON Schema draft-07 and
// 2020-12. [RegisterFullEngine] installs one; then it judges every schema
// [Compile] is given and validates against those the fast engine declines.
type FullEngine interface {
	// Compile compiles a schema document, compact and well-formed, in the
	// dialect its "$schema" names (2020-12 if it names none). It checks the
	// document against its meta-schema; "format" is an assertion only if
	// assertFormat is set. Nothing may be fetched: a reference to another
	// document is an error wrapping [ErrRemoteRef].
	Compile(doc []byte, assertFormat bool) (FullSchema, error)
}

// A FullSchema is a schema compiled by a [FullEngine]. It must be safe for
// concurrent use.
type FullSchema interface {
	// Validate validates a well-formed instance, nested no deeper than
	// MaxInstanceDepth. It returns nil or a *[ValidationError].
	Validate(instance []byte) error
}

// fullEngine holds the registered engine, if any. It is set once, from an
// init function, before any schema is compiled; tests swap it.
var fullEngine atomic.Pointer[FullEngine]

// RegisterFullEngine installs the full engine. Only
// internal/jsonschema/full calls it, from its init function; programs
// link that package by importing
// github.com/mcpwire/mcpwire/server/fullschema. It panics if e is nil or
// an engine is already installed.
func RegisterFullEngine(e FullEngine) {
	if e == nil {
		panic("jsonschema: RegisterFullEngine(nil)")
	}
	if !fullEngine.CompareAndSwap(nil, &e) {
		panic("jsonschema: a full engine is already registered")
	}
}

// registeredFull returns the full engine, or nil if none is linked in.
func registeredFull() FullEngine {
	if p := fullEngine.Load(); p != nil {
		return *p
	}
	return nil
}

// needsFull turns the fast engine's refusal into the error Compile returns
// when no full engine is linked in. A reference to another document is
// reported as the full engine would report it, wrapping ErrRemoteRef.
func needsFull(root *tree, dec *declined) error {
	if dec.ref != "" {
		if remote := remoteTarget(root, dec.ref); remote != "" {
			return fmt.Errorf("reference to %q: %w", remote, ErrRemoteRef)
		}
	}
	return fmt.Errorf("%s %w", dec.what(), ErrNeedsFullEngine)
}

// baseURL names the schema document. Relative references resolve against
// it (or against the root's $id), to URLs nothing is fetched from.
const baseURL = "mcpwire:///schema.json"

// remoteTarget returns the document a non-pointer reference names, as the
// full engine would name it in its error, if the full engine could not
// resolve it either: "" when ref names this document (through the root's
// $id) or one of the drafts' meta-schemas, which the full engine carries.
// There is no $id below the root: declaresIdentifiers has ruled it out.
//
// An absolute reference ("https://...", "file:///...") names its target
// whatever the base. A relative one is resolved against the root's $id,
// or against baseURL: an $id that is a URL with an authority, or a file
// URL; an $id without an authority ("urn:x", "a:/b") resolves references
// by rules that net/url and the full engine each read their own way, so
// the verdict is left to the full engine.
func remoteTarget(root *tree, ref string) string {
	base, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	idOK := true
	if id := root.get("$id"); id != nil && id.kind == kindString {
		u, err := base.Parse(id.str)
		switch {
		case err != nil:
			idOK = false
		case u.Host == "" && u.Scheme != "mcpwire" && u.Scheme != "file":
			idOK = false
			if r.IsAbs() {
				base = u // still this document if ref names the $id itself
			}
		default:
			base = u
		}
	}
	if !idOK && !r.IsAbs() {
		return ""
	}
	u := base.ResolveReference(r)
	u.Fragment, u.RawFragment = "", ""
	base.Fragment, base.RawFragment = "", ""
	if u.String() == base.String() || u.Host == "json-schema.org" {
		return ""
	}
	return strings.TrimPrefix(u.String(), "mcpwire:///")
}
