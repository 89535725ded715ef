package jsonrpc

import (
	"strconv"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// strPlain marks the bytes that may appear in a string as themselves:
// printable ASCII other than '"' and '\\'.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

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
func Unquote(b []byte) (string, bool) { return jsonscan.UnquoteStrict(b) }

// AppendString appends s to b as a JSON string literal. Invalid UTF-8 is
// replaced by U+FFFD, so the output is always valid JSON.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }
