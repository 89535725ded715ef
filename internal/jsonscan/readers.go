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
	ascii := true // eight bytes at a time until the text turns out not to be ASCII
	for i++; i < len(b); {
		if ascii && i+8 <= len(b) {
			m := quoteOrBackslash(word(b, i)) | word(b, i)&highBits
			if m == 0 {
				i += 8
				continue
			}
			i += firstMarked(m)
		}
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
			ascii = false
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
	j := i + 1
	// Eight bytes at a time while the string is short; a long one is
	// searched for quotes instead.
	for n := 0; j+8 <= len(b); n++ {
		if n == 8 {
			return skipLongString(b, i, j)
		}
		m := quoteOrBackslash(word(b, j))
		if m == 0 {
			j += 8
			continue
		}
		j += firstMarked(m)
		if b[j] == '"' {
			return j + 1
		}
		j += 2
	}
	for ; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	return -1
}

// skipLongString goes on from b[j] with the string that starts at b[i]: a
// quote ends it unless an odd run of backslashes escapes it.
func skipLongString(b []byte, i, j int) int {
	for j < len(b) {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return -1
		}
		j += q
		n := 0
		for k := j - 1; k > i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
	return -1
}

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
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
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

// EachMember calls fn with the key (the contents between its quotes,
// escaped as for KeyString) and the value of each member of the object
// that starts at b[i], in order, until fn returns false. It reports false
// if there is no object at b[i] or it turns out malformed before fn
// stopped, and true otherwise.
func EachMember(b []byte, i int, fn func(key []byte, escaped bool, value []byte) bool) bool {
	if i < 0 || i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		end, escaped := SkipString(b, i)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		if i = SkipSpace(b, end); i >= len(b) || b[i] != ':' {
			return false
		}
		i = SkipSpace(b, i+1)
		vend := SkipValue(b, i)
		if vend < 0 {
			return false
		}
		if !fn(key, escaped, b[i:vend]) {
			return true
		}
		if i = SkipSpace(b, vend); i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
}

// Member returns the value of the first member named name of the object
// obj (with optional whitespace around it), or nil when obj is not an
// object, has no such member, or is malformed before it.
func Member(obj []byte, name string) []byte {
	var found []byte
	EachMember(obj, SkipSpace(obj, 0), func(key []byte, escaped bool, value []byte) bool {
		if KeyEqual(key, escaped, name) {
			found = value
			return false
		}
		return true
	})
	return found
}

// EachElement calls fn with each element of the array that starts at
// b[i], in order, until fn returns false. It reports false if there is no
// array at b[i] or it turns out malformed before fn stopped, and true
// otherwise.
func EachElement(b []byte, i int, fn func(elem []byte) bool) bool {
	if i < 0 || i >= len(b) || b[i] != '[' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for {
		end := SkipValue(b, i)
		if end < 0 {
			return false
		}
		if !fn(b[i:end]) {
			return true
		}
		if i = SkipSpace(b, end); i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case ']':
			return true
		default:
			return false
		}
	}
}
