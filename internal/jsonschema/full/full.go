// Package full installs the full JSON Schema engine,
// github.com/santhosh-tekuri/jsonschema/v6, into internal/jsonschema: a
// complete implementation of draft-07 and 2020-12. It registers itself in
// its init function; programs link it with
//
//	import _ "github.com/mcpwire/mcpwire/server/fullschema"
//
// Once installed, it compiles every schema, which makes it the judge of
// what a valid schema is (it checks schemas against their meta-schema),
// and validates instances against the schemas the fast engine declines.
// The library compiles its meta-schemas when the program starts, which
// costs about 5 ms and 1.7 MB; that is why it is not linked by default.
package full

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
	"github.com/mcpwire/mcpwire/internal/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

func init() { jsonschema.RegisterFullEngine(engine{}) }

// engine implements jsonschema.FullEngine.
type engine struct{}

// schema implements jsonschema.FullSchema.
type schema struct{ s *sjs.Schema }

// baseURL names the schema being compiled. Relative references resolve
// against it, to URLs the loader refuses.
const baseURL = "mcpwire:///schema.json"

// refuseLoader is the only loader: nothing is fetched, from the network or
// from files. The standard meta-schemas are built into the library.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, errors.New("not fetched")
}

// knownFormats are the formats the full engine can assert. Draft-07 asserts
// formats by default there; registering no-op checks for them keeps format
// an annotation in every dialect unless CompileOptions.AssertFormat is set.
var knownFormats = []string{
	"date-time", "date", "time", "duration", "period", "email", "idn-email",
	"hostname", "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri",
	"iri-reference", "uuid", "uri-template", "json-pointer",
	"relative-json-pointer", "semver",
}

// Compile implements jsonschema.FullEngine.
func (engine) Compile(raw []byte, assertFormat bool) (jsonschema.FullSchema, error) {
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := sjs.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.DefaultDraft(sjs.Draft2020)
	if assertFormat {
		c.AssertFormat()
	} else {
		for _, name := range knownFormats {
			c.RegisterFormat(&sjs.Format{Name: name, Validate: func(any) error { return nil }})
		}
	}
	if err := c.AddResource(baseURL, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(baseURL)
	if err != nil {
		return nil, explainCompileError(err)
	}
	return schema{sch}, nil
}

// explainCompileError rewrites the library's errors where a clearer word
// helps the schema's author.
func explainCompileError(err error) error {
	var load *sjs.LoadURLError
	if errors.As(err, &load) {
		url := strings.TrimPrefix(load.URL, "mcpwire:///")
		return fmt.Errorf("reference to %q: %w", url, jsonschema.ErrRemoteRef)
	}
	var invalid *sjs.SchemaValidationError
	if errors.As(err, &invalid) {
		var v *sjs.ValidationError
		if errors.As(invalid.Err, &v) {
			vs, _ := convertViolations(v)
			var b strings.Builder
			for k, x := range vs {
				if k > 0 {
					b.WriteString("; ")
				}
				b.WriteString("#" + x.Pointer + ": " + x.Message)
			}
			return fmt.Errorf("not a valid schema: %s", b.String())
		}
	}
	return err
}

// fullLimits bound what instances reach the full engine, which computes
// numbers with math/big (and crashes on exponents beyond big.Rat's range).
const (
	fullMaxNumberDigits = 1000
	fullMaxExponent     = 1000
)

// Validate implements jsonschema.FullSchema.
func (sch schema) Validate(instance []byte) (err error) {
	if at, end := hugeNumber(instance); at >= 0 {
		return &jsonschema.ValidationError{Violations: []jsonschema.Violation{{
			Message: "number " + jsonschema.Clip(string(instance[at:end])) + " is too large to validate",
		}}}
	}
	v, err := sjs.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return &jsonschema.ValidationError{Violations: []jsonschema.Violation{{Message: "invalid JSON: " + err.Error()}}}
	}
	defer func() {
		// The engine is a dependency: a bug in it must not take down the
		// server that is validating a peer's input.
		if r := recover(); r != nil {
			err = &jsonschema.ValidationError{Violations: []jsonschema.Violation{{Message: fmt.Sprint("schema engine failed: ", r)}}}
		}
	}()
	verr := sch.s.Validate(v)
	if verr == nil {
		return nil
	}
	var ve *sjs.ValidationError
	if !errors.As(verr, &ve) {
		return &jsonschema.ValidationError{Violations: []jsonschema.Violation{{Message: verr.Error()}}}
	}
	vs, omitted := convertViolations(ve)
	return &jsonschema.ValidationError{Violations: vs, Omitted: omitted}
}

// hugeNumber returns the span of the first number with more digits or a
// larger exponent than the full engine is trusted with, or -1, -1. The
// instance is well-formed.
func hugeNumber(d []byte) (start, end int) {
	for i := 0; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			end, _ := jsonscan.SkipString(d, i)
			if end < 0 {
				return -1, -1
			}
			i = end - 1
		case c == '-' || (c >= '0' && c <= '9'):
			start := i
			digits, exp, inExp := 0, 0, false
			for ; i < len(d) && strings.IndexByte("0123456789+-.eE", d[i]) >= 0; i++ {
				switch c := d[i]; {
				case c == 'e' || c == 'E':
					inExp = true
				case c < '0' || c > '9':
				case inExp:
					if exp <= fullMaxExponent {
						exp = exp*10 + int(c-'0')
					}
				default:
					digits++
				}
			}
			if digits > fullMaxNumberDigits || exp > fullMaxExponent {
				return start, i
			}
			i--
		}
	}
	return -1, -1
}

var printer = message.NewPrinter(language.English)

// maxViolations caps the violations one error reports, as in the fast
// engine.
const maxViolations = 20

// convertViolations flattens the library's error tree into violations.
func convertViolations(root *sjs.ValidationError) ([]jsonschema.Violation, int) {
	var out []jsonschema.Violation
	omitted := 0
	add := func(v jsonschema.Violation) {
		if len(out) >= maxViolations {
			omitted++
			return
		}
		out = append(out, v)
	}
	var walk func(e *sjs.ValidationError, prefix string)
	walk = func(e *sjs.ValidationError, prefix string) {
		ptr := jsonPointer(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
			for _, c := range e.Causes {
				walk(c, prefix)
			}
			return
		case *kind.AnyOf, *kind.OneOf:
			if len(e.Causes) == 0 {
				break
			}
			name := "anyOf"
			if _, ok := k.(*kind.OneOf); ok {
				name = "oneOf"
			}
			best := 0
			for j, c := range e.Causes {
				if leaves(c) < leaves(e.Causes[best]) {
					best = j
				}
			}
			tag := name + "[" + strconv.Itoa(alternative(e.Causes[best], name, best)) + "]"
			add(jsonschema.Violation{Pointer: ptr, Message: prefix + "matches none of the " + strconv.Itoa(len(e.Causes)) + " alternatives of " + name + "; closest is " + tag})
			walk(e.Causes[best], prefix+"("+tag+") ")
			return
		case *kind.Type:
			add(jsonschema.Violation{Pointer: ptr, Message: prefix + "expected " + strings.Join(k.Want, " or ") + ", got " + k.Got})
			return
		case *kind.Required:
			for _, name := range k.Missing {
				add(jsonschema.Violation{Pointer: ptr, Message: prefix + fmt.Sprintf("missing required property %q", name)})
			}
			return
		case *kind.AdditionalProperties:
			for _, name := range k.Properties {
				add(jsonschema.Violation{Pointer: ptr, Message: prefix + fmt.Sprintf("unexpected property %q", name)})
			}
			return
		case *kind.FalseSchema:
			// additionalProperties: false and friends fail as a false
			// schema at the member; say it as the fast engine does.
			loc := e.InstanceLocation
			switch {
			case len(loc) > 0 && (strings.HasSuffix(e.SchemaURL, "/additionalProperties") || strings.HasSuffix(e.SchemaURL, "/unevaluatedProperties")):
				add(jsonschema.Violation{Pointer: jsonPointer(loc[:len(loc)-1]), Message: prefix + fmt.Sprintf("unexpected property %q", loc[len(loc)-1])})
			case len(loc) > 0 && (strings.HasSuffix(e.SchemaURL, "/items") || strings.HasSuffix(e.SchemaURL, "/unevaluatedItems") || strings.HasSuffix(e.SchemaURL, "/additionalItems")):
				add(jsonschema.Violation{Pointer: ptr, Message: prefix + "unexpected item"})
			default:
				add(jsonschema.Violation{Pointer: ptr, Message: prefix + "no value is allowed here"})
			}
			return
		}
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c, prefix)
			}
			return
		}
		add(jsonschema.Violation{Pointer: ptr, Message: prefix + e.ErrorKind.LocalizedString(printer)})
	}
	walk(root, "")
	return out, omitted
}

// alternative finds which alternative of keyword an error is about, from
// its schema location ".../anyOf/2"; def if it cannot tell.
func alternative(e *sjs.ValidationError, keyword string, def int) int {
	_, after, ok := strings.Cut(e.SchemaURL, "/"+keyword+"/")
	if !ok {
		return def
	}
	digits, _, _ := strings.Cut(after, "/")
	if n, err := strconv.Atoi(digits); err == nil {
		return n
	}
	return def
}

func leaves(e *sjs.ValidationError) int {
	if len(e.Causes) == 0 {
		return 1
	}
	n := 0
	for _, c := range e.Causes {
		n += leaves(c)
	}
	return n
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// jsonPointer joins reference tokens into an RFC 6901 JSON pointer.
func jsonPointer(tokens []string) string {
	var b strings.Builder
	for _, tok := range tokens {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(tok))
	}
	return b.String()
}
