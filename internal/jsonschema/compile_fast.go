package jsonschema

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// dialect is a supported JSON Schema version.
type dialect uint8

const (
	draft2020 dialect = iota
	draft7
)

// A declined error says the fast engine does not implement something the
// schema uses; the schema is then validated by the full engine, or, with
// none linked in, Compile fails with ErrNeedsFullEngine.
type declined struct {
	keyword string // the keyword at fault
	detail  string // what about it, or ""
	ref     string // the reference, when keyword is "$ref", "$dynamicRef" or "$recursiveRef"
}

func (e *declined) Error() string { return "fast engine declined " + e.what() }

// what names what was declined: `"unevaluatedProperties"`, `"$id" below
// the root`.
func (e *declined) what() string {
	s := strconv.Quote(e.keyword)
	if e.detail != "" {
		s += " " + e.detail
	}
	return s
}

func decline(keyword, detail string) error {
	return &declined{keyword: keyword, detail: detail}
}

// errAnchorRef says a fragment is a plain name, not a JSON pointer.
var errAnchorRef = errors.New("plain-name fragment")

// enumSetMin is the enum size from which membership uses a map.
const enumSetMin = 8

// fastCompiler turns a (meta-schema valid) document tree into nodes.
type fastCompiler struct {
	root         *tree
	dialect      dialect
	assertFormat bool
	metaFormats  bool // assert the formats of meta-schemas (meta.go)
	memo         map[*tree]*node
	anchors      *anchorIndex // nil if the document declares none
	// checkRefs, set when no full engine is linked in, checks the targets
	// of references against the meta-schema, as the full engine does:
	// a $ref may lead to a value outside the places where subschemas
	// are, which the check of the whole document did not reach.
	checkRefs bool
	checked   map[*tree]bool
}

// compileFast compiles root for the fast engine; anchors are its anchors
// (anchors.go). It returns a *declined error when the schema needs the
// full engine. With checkRefs, the targets of references are checked
// against the meta-schema.
func compileFast(root *tree, d dialect, anchors *anchorIndex, assertFormat, checkRefs bool) (*node, error) {
	c := &fastCompiler{root: root, dialect: d, anchors: anchors, assertFormat: assertFormat, memo: map[*tree]*node{}, checkRefs: checkRefs}
	return c.compile(root)
}

func (c *fastCompiler) compile(t *tree) (*node, error) {
	if n, ok := c.memo[t]; ok {
		return n, nil
	}
	n := &node{}
	c.memo[t] = n
	switch t.kind {
	case kindBoolean:
		n.always = -1
		if t.raw[0] == 't' {
			n.always = 1
		}
		return n, nil
	case kindObject:
	default:
		// Only a $ref into a non-schema location gets here; let the full
		// engine judge it.
		return nil, decline("$ref", "to a "+t.kind.String()+", which is not a schema")
	}
	if ref := t.get("$ref"); ref != nil && c.dialect == draft7 {
		// Before 2019-09, $ref replaces the whole schema: siblings are ignored.
		target, err := c.refTarget(ref.str)
		if err != nil {
			return nil, err
		}
		n.ref, n.onlyRef = target, true
		return n, nil
	}
	for i, key := range t.keys {
		if err := c.keyword(n, t, key, t.vals[i]); err != nil {
			return nil, err
		}
	}
	switch {
	case n.enum != nil || n.cnst != nil || n.obj != nil || n.arr != nil || n.str != nil || n.num != nil || n.comp != nil || n.types != 0:
	case n.ref != nil:
		n.onlyRef = true
	default:
		n.always = 1
	}
	return n, nil
}

// keywordKinds are the JSON types keyword values must have. The
// meta-schema guarantees them wherever a schema is expected; a $ref into
// some other location (say "#/properties") can still lead here.
var keywordKinds = map[string][]jsonKind{
	"$id": {kindString}, "$ref": {kindString}, "type": {kindString, kindArray},
	"enum": {kindArray}, "properties": {kindObject}, "required": {kindArray},
	"patternProperties": {kindObject}, "dependentRequired": {kindObject},
	"dependentSchemas": {kindObject}, "prefixItems": {kindArray},
	"allOf": {kindArray}, "anyOf": {kindArray}, "oneOf": {kindArray},
	"pattern": {kindString}, "uniqueItems": {kindBoolean},
	"minProperties": {kindNumber}, "maxProperties": {kindNumber},
	"minContains": {kindNumber}, "maxContains": {kindNumber},
	"minItems": {kindNumber}, "maxItems": {kindNumber},
	"minLength": {kindNumber}, "maxLength": {kindNumber},
	"minimum": {kindNumber}, "maximum": {kindNumber},
	"exclusiveMinimum": {kindNumber}, "exclusiveMaximum": {kindNumber},
	"multipleOf": {kindNumber},
}

// keyword compiles one member of schema object t into n.
func (c *fastCompiler) keyword(n *node, t *tree, key string, v *tree) (err error) {
	if kinds, ok := keywordKinds[key]; ok && !slices.Contains(kinds, v.kind) {
		return decline(key, "with a "+v.kind.String()+" value")
	}
	is2020 := c.dialect == draft2020
	switch key {
	case "$id":
		if t != c.root && !(c.dialect == draft7 && fragmentOnly(v.str)) {
			return decline("$id", "below the root")
		}
	case "$ref":
		n.ref, err = c.refTarget(v.str)
	case "$dynamicRef", "$recursiveRef": // $recursiveRef: 2019-09's, which the full engine still applies in 2020-12
		if is2020 {
			return &declined{keyword: key, ref: v.str} // a reference to another document is reported as one (needsFull)
		}
	case "$dynamicAnchor", "unevaluatedProperties", "unevaluatedItems":
		if is2020 {
			return decline(key, "")
		}
	case "format":
		switch {
		case c.metaFormats && metaFormats[v.str] != nil:
			strRules(n).format = metaFormats[v.str]
		case !is2020 && v.str == "regex":
			// The full engine asserts this one format in draft-07 whatever
			// it is told, with the same test.
			strRules(n).format = regexFormat
		case c.assertFormat:
			return decline("format", "as an assertion (CompileOptions.AssertFormat)")
		}
	case "type":
		var ok bool
		if n.types, ok = typesOf(v); !ok {
			return decline("type", "with an unknown type name")
		}
	case "enum":
		n.enum = compileEnum(v, false)
	case "const":
		n.cnst = compileEnum(v, true)

	case "properties":
		o := objRules(n)
		for i, name := range v.keys {
			sub, err := c.compile(v.vals[i])
			if err != nil {
				return err
			}
			o.names = append(o.names, name)
			o.props[name] = propRule{n: sub, slot: o.slot(name).slot}
		}
	case "required":
		if !allStrings(v) {
			return decline("required", "with a non-string")
		}
		o := objRules(n)
		for _, name := range v.vals {
			o.required = append(o.required, o.slot(name.str).slot)
		}
	case "additionalProperties":
		objRules(n).additional, err = c.compile(v)
	case "propertyNames":
		objRules(n).propNames, err = c.compile(v)
	case "patternProperties":
		o := objRules(n)
		for i, src := range v.keys {
			re, err := regexp.Compile(src)
			if err != nil {
				return fmt.Errorf("patternProperties %q: %v", src, err)
			}
			sub, err := c.compile(v.vals[i])
			if err != nil {
				return err
			}
			o.patterns = append(o.patterns, patternRule{re, sub})
		}
	case "minProperties":
		objRules(n).minProps = intOf(v)
	case "maxProperties":
		objRules(n).maxProps = intOf(v)
	case "dependentRequired":
		if is2020 {
			o := objRules(n)
			for i, name := range v.keys {
				if v.vals[i].kind != kindArray || !allStrings(v.vals[i]) {
					return decline("dependentRequired", "with a non-string")
				}
				dep := dependentRequired{slot: o.slot(name).slot}
				for _, r := range v.vals[i].vals {
					dep.required = append(dep.required, o.slot(r.str).slot)
				}
				o.depReq = append(o.depReq, dep)
			}
		}
	case "dependentSchemas":
		if is2020 {
			o := objRules(n)
			for i, name := range v.keys {
				sub, err := c.compile(v.vals[i])
				if err != nil {
					return err
				}
				o.depSchemas = append(o.depSchemas, dependentSchema{o.slot(name).slot, sub})
			}
		}
	case "dependencies":
		// Draft-07's keyword. 2020-12 split it into dependentRequired and
		// dependentSchemas and left it undefined, but the full engine still
		// applies it there: so it is declined in both dialects, and the
		// two engines never judge an instance differently.
		if is2020 {
			return decline("dependencies", "(draft-07's; 2020-12 has dependentRequired and dependentSchemas)")
		}
		return decline("dependencies", "(draft-07)")

	case "items":
		if v.kind == kindArray {
			return decline("items", "as an array (draft-07)")
		}
		arrRules(n).items, err = c.compile(v)
	case "prefixItems":
		if is2020 {
			a := arrRules(n)
			for _, e := range v.vals {
				sub, err := c.compile(e)
				if err != nil {
					return err
				}
				a.prefix = append(a.prefix, sub)
			}
		}
	case "contains":
		arrRules(n).contains, err = c.compile(v)
	case "minContains":
		if is2020 {
			arrRules(n).minContains = intOf(v)
		}
	case "maxContains":
		if is2020 {
			arrRules(n).maxContains = intOf(v)
		}
	case "minItems":
		arrRules(n).minItems = intOf(v)
	case "maxItems":
		arrRules(n).maxItems = intOf(v)
	case "uniqueItems":
		if v.raw[0] == 't' {
			arrRules(n).unique = true
		}

	case "minLength":
		strRules(n).minLen = intOf(v)
	case "maxLength":
		strRules(n).maxLen = intOf(v)
	case "pattern":
		re, err := regexp.Compile(v.str)
		if err != nil {
			return fmt.Errorf("pattern %q: %v", v.str, err)
		}
		strRules(n).pattern = re

	case "minimum":
		numRules(n).min = boundOf(v)
	case "maximum":
		numRules(n).max = boundOf(v)
	case "exclusiveMinimum":
		numRules(n).exMin = boundOf(v)
	case "exclusiveMaximum":
		numRules(n).exMax = boundOf(v)
	case "multipleOf":
		numRules(n).multipleOf = boundOf(v)

	case "allOf", "anyOf", "oneOf":
		var subs []*node
		for _, e := range v.vals {
			sub, err := c.compile(e)
			if err != nil {
				return err
			}
			subs = append(subs, sub)
		}
		cr := compRulesOf(n)
		switch key {
		case "allOf":
			cr.allOf = subs
		case "anyOf":
			cr.anyOf = subs
		default:
			cr.oneOf = subs
		}
	case "not":
		compRulesOf(n).not, err = c.compile(v)
	case "if":
		compRulesOf(n).ifN, err = c.compile(v)
	case "then":
		compRulesOf(n).thenN, err = c.compile(v)
	case "else":
		compRulesOf(n).elseN, err = c.compile(v)
	}
	// Everything else is an annotation or an unknown keyword, and unknown
	// keywords are ignored by both dialects.
	return err
}

// refTarget compiles the target of a $ref. Only references into this
// document by fragment ("#", "#/...", "#name") are handled here.
func (c *fastCompiler) refTarget(ref string) (*node, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, &declined{keyword: "$ref", detail: strconv.Quote(ref) + " (a reference that is not a fragment of this document)", ref: ref}
	}
	target, anchored, err := c.anchors.resolveRef(c.root, ref)
	if err != nil {
		return nil, err
	}
	if err := c.anchors.checkTarget(target, ref); err != nil {
		return nil, err
	}
	// An anchor is in a subschema, which the check of the whole document
	// has reached (or, in 2020-12's additionalItems, which the full engine
	// does not check either).
	if c.checkRefs && !anchored && target != c.root && !c.checked[target] {
		if c.checked == nil {
			c.checked = map[*tree]bool{}
		}
		c.checked[target] = true
		at, _ := url.PathUnescape(ref)
		if err := metaCheck(target.raw, c.dialect, at); err != nil {
			return nil, err
		}
	}
	return c.compile(target)
}

func allStrings(v *tree) bool {
	for _, e := range v.vals {
		if e.kind != kindString {
			return false
		}
	}
	return true
}

// typesOf reads the value of "type"; ok is false if it names no type.
func typesOf(v *tree) (s typeSet, ok bool) {
	names := v.vals
	if v.kind == kindString {
		names = []*tree{v}
	}
	for _, e := range names {
		k := slices.Index(kindNames[:], e.str)
		if e.kind != kindString || k < 0 {
			return 0, false
		}
		s |= 1 << k
	}
	return s, s != 0
}

func compileEnum(v *tree, isConst bool) *enumRule {
	values := v.vals
	if isConst {
		values = []*tree{v}
	}
	e := &enumRule{isConst: isConst}
	for _, val := range values {
		canon, _ := appendCanonical(nil, val.raw, 0)
		e.canon = append(e.canon, string(canon))
		e.raw = append(e.raw, string(val.raw))
	}
	if len(e.canon) >= enumSetMin {
		e.set = make(map[string]struct{}, len(e.canon))
		for _, s := range e.canon {
			e.set[s] = struct{}{}
		}
	}
	return e
}

// intOf reads a non-negative integer keyword (1.0 is allowed), saturating
// at MaxInt32.
func intOf(v *tree) int {
	d, _ := parseDecimal(v.raw, nil)
	if d.neg || d.isZero() {
		return 0
	}
	if d.exp > 10 {
		return math.MaxInt32
	}
	n := 0
	for k := 0; k < d.exp; k++ {
		digit := 0
		if k < len(d.digits) {
			digit = int(d.digits[k] - '0')
		}
		n = n*10 + digit
	}
	return min(n, math.MaxInt32)
}

func boundOf(v *tree) *bound {
	d, _ := parseDecimal(v.raw, nil)
	return &bound{d: d, raw: string(v.raw)}
}

func objRules(n *node) *objectRules {
	if n.obj == nil {
		n.obj = &objectRules{props: map[string]propRule{}, minProps: -1, maxProps: -1}
	}
	return n.obj
}

// slot returns the rule for name, giving it a slot if it has none yet.
func (o *objectRules) slot(name string) propRule {
	if r, ok := o.props[name]; ok {
		return r
	}
	r := propRule{slot: len(o.slotNames)}
	o.slotNames = append(o.slotNames, name)
	o.props[name] = r
	return r
}

func arrRules(n *node) *arrayRules {
	if n.arr == nil {
		n.arr = &arrayRules{minContains: 1, maxContains: -1, maxItems: -1}
	}
	return n.arr
}

func strRules(n *node) *stringRules {
	if n.str == nil {
		n.str = &stringRules{maxLen: -1}
	}
	return n.str
}

func numRules(n *node) *numberRules {
	if n.num == nil {
		n.num = &numberRules{}
	}
	return n.num
}

func compRulesOf(n *node) *compRules {
	if n.comp == nil {
		n.comp = &compRules{}
	}
	return n.comp
}
