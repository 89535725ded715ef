package jsonschema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Without the full engine, Compile checks a schema against its dialect's
// meta-schema itself, with the fast engine. The meta-schemas are written
// for it: the 2020-12 one as a single document (the official one is split
// into vocabularies joined through $dynamicRef, which the fast engine does
// not implement; with no custom vocabulary that reference names the root,
// so "$ref": "#" says the same). They are compiled at the first Compile
// that needs them, not at start-up.
//
// The full engine checks meta-schemas with format assertions on, so the
// "uri", "uri-reference" and "regex" formats they use are assertions here
// too, with the same tests (metaFormats). Tests hold the two checks to the
// same verdicts.

var (
	//go:embed metaschemas/draft2020-12.json
	meta2020JSON []byte
	//go:embed metaschemas/draft-07.json
	meta7JSON []byte
)

// metaSchemas are the compiled meta-schemas, by dialect.
var (
	metaOnce    [2]sync.Once
	metaSchemas [2]*Schema
)

// metaSchema returns the meta-schema of dialect d, compiling it the first
// time.
func metaSchema(d dialect) *Schema {
	metaOnce[d].Do(func() {
		doc := meta2020JSON
		if d == draft7 {
			doc = meta7JSON
		}
		metaSchemas[d] = compileMeta(doc)
	})
	return metaSchemas[d]
}

// compileMeta compiles an embedded meta-schema, with its formats asserted.
// Its validation has no step budget: a meta-schema checks each value of a
// schema against a few of its subschemas, so the work is linear in the
// size of the schema, which Compile has bounded already.
func compileMeta(doc []byte) *Schema {
	var buf bytes.Buffer
	if err := json.Compact(&buf, doc); err != nil {
		panic("jsonschema: embedded meta-schema: " + err.Error())
	}
	root, err := parseTree(buf.Bytes())
	if err != nil {
		panic("jsonschema: embedded meta-schema: " + err.Error())
	}
	d, err := dialectOf(root)
	if err != nil {
		panic("jsonschema: embedded meta-schema: " + err.Error())
	}
	c := &fastCompiler{root: root, dialect: d, metaFormats: true, memo: map[*tree]*node{}}
	n, err := c.compile(root)
	if err != nil {
		panic("jsonschema: embedded meta-schema: " + err.Error())
	}
	return &Schema{raw: buf.Bytes(), fast: n, maxSteps: math.MaxInt}
}

// metaCheck checks a schema, compact and well-formed, against the
// meta-schema of dialect d. at is where the schema is in its document,
// for messages: "#" for the whole document, or a reference.
func metaCheck(doc []byte, d dialect, at string) error {
	err := metaSchema(d).Validate(doc)
	var ve *ValidationError
	if errors.As(err, &ve) {
		return fmt.Errorf("not a valid schema: %s", ve.Message(at))
	}
	return err
}

// A formatRule asserts a format: check says why a string is not one.
type formatRule struct {
	name  string
	check func(string) error
}

// The formats the meta-schemas use, with the full engine's tests.
var (
	regexFormat        = &formatRule{"regex", checkRegex}
	uriFormat          = &formatRule{"uri", checkURI}
	uriReferenceFormat = &formatRule{"uri-reference", checkURIReference}
	metaFormats        = map[string]*formatRule{"regex": regexFormat, "uri": uriFormat, "uri-reference": uriReferenceFormat}
)

// checkRegex accepts what the engines compile: Go's regexp syntax.
func checkRegex(s string) error {
	_, err := regexp.Compile(s)
	return err
}

func checkURI(s string) error {
	u, err := parseURL(s)
	if err != nil {
		return err
	}
	if !u.IsAbs() {
		return errors.New("relative URL")
	}
	return nil
}

func checkURIReference(s string) error {
	if strings.Contains(s, `\`) {
		return errors.New(`contains \`)
	}
	_, err := parseURL(s)
	return err
}

// parseURL is url.Parse, which does not check an IPv6 host.
func parseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if host := u.Hostname(); strings.Contains(host, ":") {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, errors.New("IPv6 address not enclosed in brackets")
		}
		addr, err := netip.ParseAddr(host)
		if err != nil {
			return nil, err
		}
		if addr.Zone() != "" {
			return nil, errors.New("zone in an IPv6 address")
		}
	}
	return u, nil
}
