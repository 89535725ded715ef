package jsonrpc

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// unquote decodes the JSON string literal b (quotes included). It reports
// false if b is not a valid JSON string.
func unquote(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	b = b[1 : len(b)-1]
	i := 0
	for i < len(b) && strPlain[b[i]] {
		i++
	}
	if i == len(b) {
		return string(b), true
	}
	out := make([]byte, 0, len(b)+8)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '\\':
			if i+1 >= len(b) {
				return "", false
			}
			switch b[i+1] {
			case '"', '\\', '/':
				out = append(out, b[i+1])
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(b[i+2:])
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2, ok2 := lowSurrogate(b[i:]); ok2 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							i += 6
							out = utf8.AppendRune(out, dec)
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return "", false
			}
			i += 2
		case c == '"' || c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			out = append(out, b[i:i+size]...)
			i += size
		}
	}
	return string(out), true
}

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

func lowSurrogate(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	return hex4(b[2:])
}

const hexDigits = "0123456789abcdef"

// appendString appends s to b as a JSON string. Invalid UTF-8 is replaced
// by U+FFFD, so the output is always valid.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if strPlain[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// quoteForMessage quotes s for an error message, shortening long input.
func quoteForMessage(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strconv.Quote(s)
}

// Unquote decodes the JSON string literal b, quotes included, allocating
// only the result. It reports false if b is not a valid JSON string. It is
// exported for hand-written codecs of protocol types.
func Unquote(b []byte) (string, bool) { return unquote(b) }

// AppendString appends s to b as a JSON string literal. Invalid UTF-8 is
// replaced by U+FFFD, so the output is always valid JSON.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }
