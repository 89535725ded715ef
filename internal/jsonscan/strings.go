package jsonscan

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote returns the value of the JSON string literal lit (quotes
// included), decoded as encoding/json decodes it: invalid UTF-8 and
// unpaired surrogate escapes become U+FFFD. It reports false if lit is not
// a string literal. It allocates only the result.
func Unquote(lit []byte) (string, bool) { return unquote(lit, false) }

// UnquoteStrict is Unquote, but reports false for invalid UTF-8 as well.
func UnquoteStrict(lit []byte) (string, bool) { return unquote(lit, true) }

func unquote(lit []byte, strict bool) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	s := lit[1 : len(lit)-1]
	if verbatim(s) {
		return string(s), true
	}
	var buf [64]byte
	out, ok := appendUnescaped(buf[:0], s, strict)
	if !ok {
		return "", false
	}
	return string(out), true
}

// AppendUnescaped appends to dst the value of the string whose contents
// (the text between the quotes) are s, decoded as by Unquote. It reports
// false, having appended part of it, if s is not the contents of a string
// literal.
func AppendUnescaped(dst, s []byte) ([]byte, bool) { return appendUnescaped(dst, s, false) }

// KeyString returns the value of a string given by its contents, as
// returned with escaped by SkipString, Object or Scanner (which then
// validated it).
func KeyString(s []byte, escaped bool) string {
	if !escaped {
		return string(s)
	}
	return decodeString(s)
}

func decodeString(s []byte) string {
	var buf [64]byte
	out, _ := appendUnescaped(buf[:0], s, false)
	return string(out)
}

// KeyEqual reports whether the string whose contents are s (escaped as
// for KeyString) stands for name. It does not allocate for keys of up to
// 64 bytes.
func KeyEqual(s []byte, escaped bool, name string) bool {
	if !escaped {
		return string(s) == name
	}
	return decodedEqual(s, name)
}

func decodedEqual(s []byte, name string) bool {
	if len(s) < len(name)/3 {
		return false // a value is at most three times its text (a bad byte is U+FFFD)
	}
	var buf [64]byte
	out, ok := appendUnescaped(buf[:0], s, false)
	return ok && string(out) == name
}

// StringEqual reports whether lit is a JSON string literal whose value is
// s.
func StringEqual(lit []byte, s string) bool {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return false
	}
	c := lit[1 : len(lit)-1]
	if verbatim(c) {
		return string(c) == s
	}
	return decodedEqual(c, s)
}

// StringLen returns the number of code points of the value of the string
// whose contents are s (escaped as for KeyString), without decoding it.
func StringLen(s []byte, escaped bool) int {
	if !escaped {
		return utf8.RuneCount(s)
	}
	n := 0
	for i := 0; i < len(s); n++ {
		switch c := s[i]; {
		case c < utf8.RuneSelf && c != '\\':
			i++
		case c >= utf8.RuneSelf:
			_, size := utf8.DecodeRune(s[i:]) // an invalid byte is one U+FFFD
			i += size
		case i+1 < len(s) && s[i+1] == 'u':
			r, _ := hex4(s[i+2:])
			i += 6
			if utf16.IsSurrogate(r) && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if r2, ok := hex4(s[i+2:]); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
					i += 6
				}
			}
		default:
			i += 2
		}
	}
	return n
}

// verbatim reports whether the string contents s are their value byte for
// byte: printable ASCII but '"' and '\\', and valid UTF-8.
func verbatim(s []byte) bool {
	for i := 0; i < len(s); {
		if plain[s[i]] {
			i++
			continue
		}
		if s[i] < utf8.RuneSelf {
			return false
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			return false
		}
		i += size
	}
	return true
}

// appendUnescaped appends the value of the string contents s to dst; ok
// is false when s is not the contents of a string literal, or, if strict,
// holds invalid UTF-8.
func appendUnescaped(dst, s []byte, strict bool) ([]byte, bool) {
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			j := i + 1
			for j < len(s) && plain[s[j]] {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return dst, false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					return dst, false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					// A pair decodes to one code point; anything else
					// is U+FFFD, and what follows is read on its own.
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if r2, ok := hex4(s[i+2:]); ok {
							if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
								dst = utf8.AppendRune(dst, pair)
								i += 6
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default:
				return dst, false
			}
			i += 2
		case c < utf8.RuneSelf: // '"' or a control character
			return dst, false
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				if strict {
					return dst, false
				}
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst, true
}

// hex4 decodes the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
