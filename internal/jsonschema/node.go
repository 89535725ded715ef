package jsonschema

import (
	"regexp"
	"strings"
)

// jsonKind is a JSON value type. kindInteger is only used in type sets: an
// integer is a number with no fractional part.
type jsonKind uint8

const (
	kindNull jsonKind = iota
	kindBoolean
	kindObject
	kindArray
	kindNumber
	kindString
	kindInteger
)

var kindNames = [...]string{"null", "boolean", "object", "array", "number", "string", "integer"}

func (k jsonKind) String() string { return kindNames[k] }

// typeSet is a set of kinds; the zero set means "any type".
type typeSet uint8

func (s typeSet) has(k jsonKind) bool { return s&(1<<k) != 0 }

// allows reports whether a value of kind k (with integral telling whether a
// number has no fractional part) belongs to the set.
func (s typeSet) allows(k jsonKind, integral bool) bool {
	if s == 0 || s.has(k) {
		return true
	}
	return k == kindNumber && integral && s.has(kindInteger)
}

// displayOrder lists kinds as messages name them: null last.
var displayOrder = [...]jsonKind{kindString, kindInteger, kindNumber, kindBoolean, kindObject, kindArray, kindNull}

func (s typeSet) String() string {
	var names []string
	for _, k := range displayOrder {
		if s.has(k) {
			names = append(names, k.String())
		}
	}
	return strings.Join(names, " or ")
}

// A node is one compiled subschema of the fast engine. Keywords are grouped
// by the kind of instance they constrain, so the validator skips whole
// groups with one nil check.
type node struct {
	// always is +1 for a schema that accepts everything (true, {}), -1 for
	// one that accepts nothing (false), 0 otherwise.
	always int8
	// onlyRef marks a node whose sole assertion is ref.
	onlyRef bool
	types   typeSet
	ref     *node

	enum *enumRule
	cnst *enumRule
	obj  *objectRules
	arr  *arrayRules
	str  *stringRules
	num  *numberRules
	comp *compRules
}

// enumRule holds enum or const (a one-value enum): the accepted values'
// canonical encodings.
type enumRule struct {
	isConst bool
	canon   []string            // canonical encodings, in schema order
	set     map[string]struct{} // the same, for large enums
	raw     []string            // the values as written, for messages
}

type objectRules struct {
	props      map[string]propRule
	names      []string // property names in schema order, for messages
	patterns   []patternRule
	additional *node // nil when absent
	propNames  *node
	required   []int // slots of required names
	slotNames  []string
	minProps   int // -1 when absent
	maxProps   int
	depReq     []dependentRequired
	depSchemas []dependentSchema
}

// A propRule is what the schema says about one member name: its subschema
// (nil when the name is only listed in required or dependencies) and the
// slot that records whether the member was seen.
type propRule struct {
	n    *node
	slot int
}

type patternRule struct {
	re *regexp.Regexp
	n  *node
}

type dependentRequired struct {
	slot     int
	required []int
}

type dependentSchema struct {
	slot int
	n    *node
}

type arrayRules struct {
	prefix      []*node
	items       *node
	contains    *node
	minContains int
	maxContains int // -1 when absent
	minItems    int
	maxItems    int // -1 when absent
	unique      bool
}

type stringRules struct {
	minLen  int
	maxLen  int // -1 when absent
	pattern *regexp.Regexp
	format  *formatRule // nil unless the format is asserted
}

type numberRules struct {
	min, max, exMin, exMax, multipleOf *bound
}

// A bound is a number from the schema, exact and as written.
type bound struct {
	d   decimal
	raw string
}

type compRules struct {
	allOf, anyOf, oneOf []*node
	not                 *node
	ifN, thenN, elseN   *node
}
