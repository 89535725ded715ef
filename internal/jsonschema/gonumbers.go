package jsonschema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// JSON numbers and Go's. JSON Schema calls 1.0 and 1e1 integers, and
// bounds them exactly; encoding/json decodes into a Go integer only a
// number written without a fraction or an exponent, and refuses one
// beyond the Go type's range in words that name neither the argument nor
// the bound. This file holds both halves of the bridge: the bounds that
// inferred schemas give Go's numeric types, and [Numbers], which rewrites
// the integers of a JSON value bound for a Go type so that encoding/json
// takes them, or reports those that do not fit.

// MaxSafeInteger is 2^53-1, the largest integer that a JSON reader
// holding numbers as IEEE 754 doubles (JavaScript, and most JSON
// libraries by default) reads, and so writes, exactly (RFC 7493, I-JSON,
// section 2.2). [InferOptions.SafeIntegers] bounds 64-bit integer types
// to ±MaxSafeInteger.
const MaxSafeInteger = 1<<53 - 1

// maxFloat32 is the bound of float32 as inferred schemas write it and
// messages quote it: the shortest form of math.MaxFloat32 as a float64.
var maxFloat32 = strconv.FormatFloat(math.MaxFloat32, 'g', -1, 64)

// intBounds returns the range of the Go integer kind k of the given bits,
// as JSON numbers; safe narrows 64-bit kinds to ±MaxSafeInteger.
func intBounds(k reflect.Kind, bits int, safe bool) (lo, hi string) {
	signed := k >= reflect.Int && k <= reflect.Int64
	if safe && bits == 64 {
		if signed {
			return "-9007199254740991", "9007199254740991"
		}
		return "0", "9007199254740991"
	}
	if signed {
		return strconv.FormatInt(-1<<(bits-1), 10), strconv.FormatInt(1<<(bits-1)-1, 10)
	}
	return "0", strconv.FormatUint(1<<bits-1, 10)
}

// numberSchema returns the inferred schema of a Go numeric type t.
func (in *inferrer) numberSchema(t reflect.Type) obj {
	switch t.Kind() {
	case reflect.Float32:
		return obj{{"type", "number"}, {"minimum", rawJSON("-" + maxFloat32)}, {"maximum", rawJSON(maxFloat32)}}
	case reflect.Float64:
		return obj{{"type", "number"}}
	}
	lo, hi := intBounds(t.Kind(), t.Bits(), in.opts.SafeIntegers)
	return obj{{"type", "integer"}, {"minimum", rawJSON(lo)}, {"maximum", rawJSON(hi)}}
}

// Numbers knows where, in the JSON encoding of a Go type, encoding/json
// decodes numbers into Go integers and floats. Make one with [NumbersOf]
// once per type; it is safe for concurrent use.
type Numbers struct {
	root *numNode
}

type numKind uint8

const (
	numInt numKind = iota
	numUint
	numFloat
	numStruct // an object matched to fields
	numMap    // an object whose every member is elem
	numElems  // an array whose every element is elem
)

// A numNode is what a JSON value means to a Go type that holds numbers
// somewhere; nil stands for every other type.
type numNode struct {
	kind   numKind
	typ    string // the Go type, for messages
	lo, hi string // the range of numInt, numUint and numFloat, as written
	loD    decimal
	hiD    decimal
	minI   int64  // the range of numInt and numUint again, for plain integers
	maxU   uint64 //
	bits   int    // of numFloat
	length int    // of a Go array (encoding/json drops the elements past it); -1 for a slice
	fields []numField
	elem   *numNode
}

type numField struct {
	name string
	node *numNode // nil if the field holds no number
}

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself reports whether encoding/json hands values of t, or of
// *t, to a method instead of decoding them itself.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(jsonUnmarshalerType) || p.Implements(jsonUnmarshalerType) ||
		t.Implements(textUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// NumbersOf returns the numbers of t's JSON encoding, following
// encoding/json's rules: struct fields by name (exact, or else equal but
// for case, as encoding/json matches them; the ",string" option makes a
// number a string), pointers, slices, arrays and map values. Types that
// decode themselves (json.Unmarshaler, encoding.TextUnmarshaler) and
// interfaces are left alone. It returns nil if t holds no number.
func NumbersOf(t reflect.Type) *Numbers {
	memo := map[reflect.Type]*numNode{}
	root := numbersOf(t, memo)
	if root == nil || !holdsNumbers(root, map[*numNode]bool{}) {
		return nil
	}
	return &Numbers{root: root}
}

func numbersOf(t reflect.Type, memo map[reflect.Type]*numNode) *numNode {
	for {
		if t.Kind() == reflect.Interface || decodesItself(t) {
			return nil
		}
		if t.Kind() != reflect.Pointer {
			break
		}
		t = t.Elem()
	}
	if n, ok := memo[t]; ok {
		return n
	}
	n := &numNode{typ: t.String()}
	switch k := t.Kind(); k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n.kind = numInt
		if k >= reflect.Uint {
			n.kind = numUint
		}
		n.lo, n.hi = intBounds(k, t.Bits(), false)
		n.loD, _ = parseDecimal([]byte(n.lo), nil)
		n.hiD, _ = parseDecimal([]byte(n.hi), nil)
		n.minI, _ = strconv.ParseInt(n.lo, 10, 64)
		n.maxU, _ = strconv.ParseUint(n.hi, 10, 64)
		return n
	case reflect.Float32, reflect.Float64:
		n.kind, n.bits = numFloat, t.Bits()
		n.hi = strconv.FormatFloat(math.MaxFloat64, 'g', -1, 64)
		if k == reflect.Float32 {
			n.hi = maxFloat32
		}
		n.lo = "-" + n.hi
		return n
	case reflect.Struct:
		n.kind = numStruct
		memo[t] = n // before the fields: a recursive type meets itself
		for _, f := range structFields(t) {
			var fn *numNode
			if !f.quoted {
				fn = numbersOf(f.typ, memo)
			}
			n.fields = append(n.fields, numField{name: f.name, node: fn})
		}
		return n
	case reflect.Slice, reflect.Array, reflect.Map:
		n.kind, n.length = numElems, -1
		switch k {
		case reflect.Map:
			n.kind = numMap
		case reflect.Array:
			n.length = t.Len()
		}
		memo[t] = n
		n.elem = numbersOf(t.Elem(), memo)
		return n
	}
	return nil
}

// holdsNumbers reports whether a number is reachable from n.
func holdsNumbers(n *numNode, seen map[*numNode]bool) bool {
	if n == nil || seen[n] {
		return false
	}
	seen[n] = true
	switch n.kind {
	case numInt, numUint, numFloat:
		return true
	case numStruct:
		for _, f := range n.fields {
			if holdsNumbers(f.node, seen) {
				return true
			}
		}
		return false
	}
	return holdsNumbers(n.elem, seen)
}

// Normalize prepares data, a well-formed JSON value to be decoded by
// encoding/json into the type of p, for that decoding: every number bound
// for a Go integer that is an integer in JSON Schema's sense but is
// written with a fraction or an exponent (1.0, 1e1, -2.50e1) is rewritten
// as a plain integer, exactly, at any magnitude. A number bound for a Go
// integer that is not an integer, or for any Go number that is beyond its
// type's range, is a violation of the returned *ValidationError, which
// names its location, the number and the bound. changed is false, and out
// is data itself, when nothing needed rewriting. A nil *Numbers changes
// nothing.
//
// What is rewritten grows by at most the 20 digits of the largest uint64
// per number, and only numbers in range are rewritten.
func (p *Numbers) Normalize(data []byte) (out []byte, changed bool, err error) {
	if p == nil {
		return data, false, nil
	}
	w := &numWalker{data: data}
	i := jsonscan.SkipSpace(data, 0)
	if end := jsonscan.SkipValue(data, i); end > i {
		w.value(p.root, i, end)
	}
	if len(w.errs) > 0 {
		return data, false, &ValidationError{Violations: w.errs, Omitted: w.omitted}
	}
	if w.out == nil {
		return data, false, nil
	}
	return append(w.out, data[w.done:]...), true, nil
}

type numWalker struct {
	data    []byte
	out     []byte // the rewritten text, up to data[done]; nil if none yet
	done    int
	path    []string
	errs    []Violation
	omitted int
	digits  []byte
	key     []byte
}

// value walks data[i:end], a value bound for n.
func (w *numWalker) value(n *numNode, i, end int) {
	if n == nil {
		return
	}
	switch c := w.data[i]; n.kind {
	case numInt, numUint, numFloat:
		if c == '-' || c >= '0' && c <= '9' {
			w.number(n, i, end)
		}
	case numStruct, numMap:
		if c == '{' {
			w.object(n, i)
		}
	case numElems:
		if c == '[' {
			w.array(n, i)
		}
	}
}

func (w *numWalker) object(n *numNode, i int) {
	d := w.data
	i = jsonscan.SkipSpace(d, i+1)
	for i < len(d) && d[i] == '"' {
		kend, escaped := jsonscan.SkipString(d, i)
		if kend < 0 {
			return
		}
		key := d[i+1 : kend-1]
		if escaped {
			w.key, _ = jsonscan.AppendUnescaped(w.key[:0], key)
			key = w.key
		}
		var elem *numNode
		if n.kind == numMap {
			elem = n.elem
		} else {
			elem = n.field(key)
		}
		if i = jsonscan.SkipSpace(d, kend); i >= len(d) || d[i] != ':' {
			return
		}
		i = jsonscan.SkipSpace(d, i+1)
		vend := jsonscan.SkipValue(d, i)
		if vend < 0 {
			return
		}
		if elem != nil {
			w.path = append(w.path, string(key))
			w.value(elem, i, vend)
			w.path = w.path[:len(w.path)-1]
		}
		if i = jsonscan.SkipSpace(d, vend); i < len(d) && d[i] == ',' {
			i = jsonscan.SkipSpace(d, i+1)
		}
	}
}

// field returns the node of the field that encoding/json decodes the
// member key into: the field of that name, or else the first whose name
// equals it but for case.
func (n *numNode) field(key []byte) *numNode {
	for _, f := range n.fields {
		if string(key) == f.name {
			return f.node
		}
	}
	for _, f := range n.fields {
		if bytes.EqualFold(key, []byte(f.name)) {
			return f.node
		}
	}
	return nil
}

func (w *numWalker) array(n *numNode, i int) {
	d := w.data
	i = jsonscan.SkipSpace(d, i+1)
	for k := 0; i < len(d) && d[i] != ']'; k++ {
		end := jsonscan.SkipValue(d, i)
		if end < 0 {
			return
		}
		if n.elem != nil && (n.length < 0 || k < n.length) {
			w.path = append(w.path, strconv.Itoa(k))
			w.value(n.elem, i, end)
			w.path = w.path[:len(w.path)-1]
		}
		if i = jsonscan.SkipSpace(d, end); i < len(d) && d[i] == ',' {
			i = jsonscan.SkipSpace(d, i+1)
		}
	}
}

// number checks data[i:end], a number bound for n, and rewrites it if it
// must be.
func (w *numWalker) number(n *numNode, i, end int) {
	lit := w.data[i:end]
	if n.kind == numFloat {
		if _, err := strconv.ParseFloat(string(lit), n.bits); err != nil {
			if lit[0] == '-' {
				w.fail(lit, "is less than the minimum "+n.lo, n)
			} else {
				w.fail(lit, "is greater than the maximum "+n.hi, n)
			}
		}
		return
	}
	// -0 is 0, which encoding/json takes for a signed integer only.
	negZero := n.kind == numUint && lit[0] == '-'
	if v, ok := jsonscan.ParseInt(lit); ok && !negZero {
		// A plain integer that fits an int64: compared as one.
		if v < n.minI {
			w.fail(lit, "is less than the minimum "+n.lo, n)
		} else if v > 0 && uint64(v) > n.maxU {
			w.fail(lit, "is greater than the maximum "+n.hi, n)
		}
		return
	}
	var x decimal
	x, w.digits = parseDecimal(lit, w.digits[:0])
	switch {
	case !x.isInteger():
		w.fail(lit, "is not an integer", n)
	case cmpDecimal(x, n.loD) < 0:
		w.fail(lit, "is less than the minimum "+n.lo, n)
	case cmpDecimal(x, n.hiD) > 0:
		w.fail(lit, "is greater than the maximum "+n.hi, n)
	case negZero || !jsonscan.IsInteger(lit):
		// In range, so at most 20 digits.
		if w.out == nil {
			w.out = make([]byte, 0, len(w.data)+20)
		}
		w.out = append(w.out, w.data[w.done:i]...)
		w.out = x.appendInteger(w.out)
		w.done = end
	}
}

// appendInteger appends d, an integer, in plain form.
func (d decimal) appendInteger(buf []byte) []byte {
	if d.isZero() {
		return append(buf, '0')
	}
	if d.neg {
		buf = append(buf, '-')
	}
	buf = append(buf, d.digits...)
	for range d.exp - len(d.digits) {
		buf = append(buf, '0')
	}
	return buf
}

func (w *numWalker) fail(lit []byte, what string, n *numNode) {
	if len(w.errs) >= maxViolations {
		w.omitted++
		return
	}
	var ptr []byte
	for _, p := range w.path {
		ptr = append(ptr, '/')
		ptr = append(ptr, escapePointer(p)...)
	}
	w.errs = append(w.errs, Violation{Pointer: string(ptr), Message: clip(string(lit)) + " " + what + " (Go " + n.typ + ")"})
}
