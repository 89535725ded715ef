package jsonscan

import (
	"bytes"
	"unicode/utf8"
)

// The readers walk text that has been validated, finding where values end
// without checking them again. On text that is not JSON they stay within
// it and stop: they report it as malformed or return an offset in it, and
// never panic or loop.

// SkipSpace returns the offset of the first byte at or after i that is
// not JSON whitespace.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipString returns the offset just past the string literal at b[i]
// ('"'), and whether its contents are escaped: not the value byte for
// byte (an escape, or invalid UTF-8). end is -1 if the string does not
// end.
func SkipString(b []byte, i int) (end int, escaped bool) {
	for i++; i < len(b); {
		c := b[i]
		switch {
		case plain[c]:
			i++
		case c == '"':
			return i + 1, escaped
		case c == '\\':
			escaped = true
			i += 2
		case c < utf8.RuneSelf || escaped:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			escaped = r == utf8.RuneError && size == 1
			i += size
		}
	}
	return -1, false
}

// skipString returns the offset just past the string literal at b[i], or
// -1.
func skipString(b []byte, i int) int {
	start := i
	for i++; ; i++ {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		i += q
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for j := i - 1; j > start && b[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
	}
}

// structural marks the bytes that matter when skipping an array or object.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// numeric marks the bytes a number is made of.
var numeric = [256]bool{'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true,
	'7': true, '8': true, '9': true, '-': true, '+': true, '.': true, 'e': true, 'E': true}

// SkipValue returns the offset just past the value that starts at b[i],
// or -1 if it finds no end: at i there is no value, a literal is
// misspelled, or a string, array or object does not end.
func SkipValue(b []byte, i int) int {
	if i < 0 || i >= len(b) {
		return -1
	}
	switch c := b[i]; c {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			for i++; i < len(b) && !structural[b[i]]; i++ {
			}
		}
		return -1
	case 't':
		return skipLiteral(b, i, "true")
	case 'f':
		return skipLiteral(b, i, "false")
	case 'n':
		return skipLiteral(b, i, "null")
	default:
		if c != '-' && (c < '0' || c > '9') {
			return -1
		}
		for i++; i < len(b) && numeric[b[i]]; i++ {
		}
		return i
	}
}

func skipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// An Object walks the members of a validated JSON object in place.
//
//	obj, ok := jsonscan.ObjectAt(data, jsonscan.SkipSpace(data, 0))
//	for key, escaped, value, ok := obj.Next(); ok; key, escaped, value, ok = obj.Next() {
//		...
//	}
//	if obj.Malformed() { ... }
type Object struct {
	b     []byte
	i     int
	state uint8
}

const (
	objFirst uint8 = iota // before the first member
	objAfter              // after a member's value
	objEnd                // past the closing brace
	objBad                // malformed
)

// ObjectAt returns an Object walking the object at b[i], or false if b[i]
// is not '{'.
func ObjectAt(b []byte, i int) (Object, bool) {
	if i < 0 || i >= len(b) || b[i] != '{' {
		return Object{}, false
	}
	o := Object{b: b, i: SkipSpace(b, i+1)}
	if o.i < len(b) && b[o.i] == '}' {
		o.i++
		o.state = objEnd
	}
	return o, true
}

// Next returns the next member: its key (the contents between the
// quotes, escaped as for KeyString) and its value. ok is false after the
// last member, or when the object turns out malformed.
func (o *Object) Next() (key []byte, escaped bool, value []byte, ok bool) {
	b, i := o.b, o.i
	switch o.state {
	case objAfter:
		i = SkipSpace(b, i)
		if i >= len(b) {
			break
		}
		if b[i] == '}' {
			o.i, o.state = i+1, objEnd
			return nil, false, nil, false
		}
		if b[i] != ',' {
			break
		}
		i = SkipSpace(b, i+1)
		fallthrough
	case objFirst:
		if i >= len(b) || b[i] != '"' {
			break
		}
		end, esc := SkipString(b, i)
		if end < 0 {
			break
		}
		key, escaped = b[i+1:end-1], esc
		if i = SkipSpace(b, end); i >= len(b) || b[i] != ':' {
			break
		}
		i = SkipSpace(b, i+1)
		vend := SkipValue(b, i)
		if vend < 0 {
			break
		}
		o.i, o.state = vend, objAfter
		return key, escaped, b[i:vend], true
	default:
		return nil, false, nil, false
	}
	o.i, o.state = i, objBad
	return nil, false, nil, false
}

// Malformed reports whether Next stopped because the object is not
// well-formed.
func (o *Object) Malformed() bool { return o.state == objBad }

// End returns the offset just past the object, once Next has returned its
// last member.
func (o *Object) End() int { return o.i }

// Member returns the value of the first member named name of the object
// obj (with optional whitespace around it), or nil when obj is not an
// object, has no such member, or is malformed before it.
func Member(obj []byte, name string) []byte {
	o, ok := ObjectAt(obj, SkipSpace(obj, 0))
	if !ok {
		return nil
	}
	for {
		key, escaped, value, ok := o.Next()
		if !ok {
			return nil
		}
		if KeyEqual(key, escaped, name) {
			return value
		}
	}
}

// An Array walks the elements of a validated JSON array in place, as an
// Object walks members.
type Array struct {
	b     []byte
	i     int
	state uint8
}

// ArrayAt returns an Array walking the array at b[i], or false if b[i] is
// not '['.
func ArrayAt(b []byte, i int) (Array, bool) {
	if i < 0 || i >= len(b) || b[i] != '[' {
		return Array{}, false
	}
	a := Array{b: b, i: SkipSpace(b, i+1)}
	if a.i < len(b) && b[a.i] == ']' {
		a.i++
		a.state = objEnd
	}
	return a, true
}

// Next returns the next element; ok is false after the last one, or when
// the array turns out malformed.
func (a *Array) Next() (elem []byte, ok bool) {
	b, i := a.b, a.i
	switch a.state {
	case objAfter:
		i = SkipSpace(b, i)
		if i >= len(b) {
			break
		}
		if b[i] == ']' {
			a.i, a.state = i+1, objEnd
			return nil, false
		}
		if b[i] != ',' {
			break
		}
		i = SkipSpace(b, i+1)
		fallthrough
	case objFirst:
		end := SkipValue(b, i)
		if end < 0 {
			break
		}
		a.i, a.state = end, objAfter
		return b[i:end], true
	default:
		return nil, false
	}
	a.i, a.state = i, objBad
	return nil, false
}

// Malformed reports whether Next stopped because the array is not
// well-formed.
func (a *Array) Malformed() bool { return a.state == objBad }

// End returns the offset just past the array, once Next has returned its
// last element.
func (a *Array) End() int { return a.i }
