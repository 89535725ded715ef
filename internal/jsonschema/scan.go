package jsonschema

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// This file reads JSON text in place. The validator never builds a tree of
// the instance: it walks the bytes, and these helpers find where values end,
// decode strings and numbers, and check syntax. Functions named skip* assume
// the input is well formed (checkSyntax has been run); they never fail.

// checkSyntax reports whether data is exactly one well-formed JSON value with
// nesting no deeper than maxDepth (arrays and objects; the outermost counts
// as 1). It never allocates unless it fails.
func checkSyntax(data []byte, maxDepth int) error {
	i := skipWS(data, 0)
	if i == len(data) {
		return errors.New("empty JSON text")
	}
	end, err := syntaxValue(data, i, 1, maxDepth)
	if err != nil {
		return err
	}
	if end = skipWS(data, end); end != len(data) {
		return syntaxErr(data, end, "unexpected data after the top-level value")
	}
	return nil
}

func syntaxErr(data []byte, i int, what string) error {
	if i >= len(data) {
		return fmt.Errorf("invalid JSON: %s at end of input", what)
	}
	return fmt.Errorf("invalid JSON at offset %d: %s", i, what)
}

func syntaxValue(d []byte, i, depth, maxDepth int) (int, error) {
	if i >= len(d) {
		return i, syntaxErr(d, i, "value expected")
	}
	switch c := d[i]; c {
	case '"':
		return syntaxString(d, i)
	case '{', '[':
		if depth > maxDepth {
			return i, fmt.Errorf("invalid JSON: nesting deeper than %d", maxDepth)
		}
		return syntaxContainer(d, i, depth, maxDepth)
	case 't':
		return syntaxLiteral(d, i, "true")
	case 'f':
		return syntaxLiteral(d, i, "false")
	case 'n':
		return syntaxLiteral(d, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return syntaxNumber(d, i)
		}
		return i, syntaxErr(d, i, "unexpected character "+strconv.QuoteRune(rune(c)))
	}
}

func syntaxContainer(d []byte, i, depth, maxDepth int) (int, error) {
	closer := byte(']')
	if d[i] == '{' {
		closer = '}'
	}
	i = skipWS(d, i+1)
	if i < len(d) && d[i] == closer {
		return i + 1, nil
	}
	for {
		var err error
		if closer == '}' {
			if i >= len(d) || d[i] != '"' {
				return i, syntaxErr(d, i, "object key expected")
			}
			if i, err = syntaxString(d, i); err != nil {
				return i, err
			}
			if i = skipWS(d, i); i >= len(d) || d[i] != ':' {
				return i, syntaxErr(d, i, "':' expected")
			}
			i = skipWS(d, i+1)
		}
		if i, err = syntaxValue(d, i, depth+1, maxDepth); err != nil {
			return i, err
		}
		i = skipWS(d, i)
		if i >= len(d) {
			return i, syntaxErr(d, i, "',' or closing bracket expected")
		}
		if d[i] == closer {
			return i + 1, nil
		}
		if d[i] != ',' {
			return i, syntaxErr(d, i, "',' or closing bracket expected")
		}
		i = skipWS(d, i+1)
	}
}

func syntaxLiteral(d []byte, i int, lit string) (int, error) {
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return i, syntaxErr(d, i, "invalid literal")
	}
	return i + len(lit), nil
}

func syntaxString(d []byte, i int) (int, error) {
	for i++; i < len(d); {
		c := d[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(d) {
				return i, syntaxErr(d, i, "unterminated escape")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(d)-i < 6 || !isHex4(d[i+2:i+6]) {
					return i, syntaxErr(d, i, `invalid \u escape`)
				}
				i += 6
			default:
				return i, syntaxErr(d, i, "invalid escape")
			}
		case c < 0x20:
			return i, syntaxErr(d, i, "control character in string")
		default:
			i++
		}
	}
	return i, syntaxErr(d, i, "unterminated string")
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !isHex(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func syntaxNumber(d []byte, i int) (int, error) {
	start := i
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = skipDigits(d, i)
	default:
		return start, syntaxErr(d, i, "invalid number")
	}
	if i < len(d) && d[i] == '.' {
		if i+1 >= len(d) || d[i+1] < '0' || d[i+1] > '9' {
			return start, syntaxErr(d, i, "invalid number")
		}
		i = skipDigits(d, i+1)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return start, syntaxErr(d, i, "invalid number")
		}
		i = skipDigits(d, i)
	}
	return i, nil
}

func skipDigits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

func skipWS(d []byte, i int) int {
	for i < len(d) {
		switch d[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset just past the string starting at d[i] == '"'
// and whether the string contains escapes.
func skipString(d []byte, i int) (end int, escaped bool) {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			i++
		}
	}
	return i, escaped
}

// skipValue returns the offset just past the value starting at d[i].
func skipValue(d []byte, i int) int {
	switch d[i] {
	case '"':
		end, _ := skipString(d, i)
		return end
	case '{', '[':
		depth := 0
		for ; i < len(d); i++ {
			switch d[i] {
			case '"':
				end, _ := skipString(d, i)
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	case 't', 'n':
		return i + 4
	case 'f':
		return i + 5
	default:
		for i < len(d) {
			switch c := d[i]; {
			case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
				i++
			default:
				return i
			}
		}
		return i
	}
}

// kindAt names the JSON type of the value starting at d[i].
func kindAt(d []byte, i int) jsonKind {
	switch d[i] {
	case '{':
		return kindObject
	case '[':
		return kindArray
	case '"':
		return kindString
	case 't', 'f':
		return kindBoolean
	case 'n':
		return kindNull
	}
	return kindNumber
}

// appendUnescaped appends the decoded contents of the JSON string s (with
// its quotes) to buf. Invalid surrogate escapes decode to U+FFFD, as in
// encoding/json.
func appendUnescaped(buf, s []byte) []byte {
	s = s[1 : len(s)-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			buf = append(buf, s[i:j]...)
			i = j
			continue
		}
		switch s[i+1] {
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r := rune(hex4(s[i+2:]))
			i += 6
			if r >= 0xD800 && r < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if lo := rune(hex4(s[i+2:])); lo >= 0xDC00 && lo < 0xE000 {
					r = (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000
					i += 6
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default: // '"', '\\', '/'
			buf = append(buf, s[i+1])
		}
		i += 2
	}
	return buf
}

func hex4(b []byte) int {
	n := 0
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		n = n<<4 | int(c)
	}
	return n
}

// stringLength counts the code points of the JSON string s (with quotes)
// without decoding it, as encoding/json would after decoding.
func stringLength(s []byte, escaped bool) int {
	s = s[1 : len(s)-1]
	if !escaped {
		return utf8.RuneCount(s)
	}
	n := 0
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			_, size := utf8.DecodeRune(s[i:])
			i += size
			n++
			continue
		}
		if s[i+1] != 'u' {
			i += 2
			n++
			continue
		}
		r := hex4(s[i+2:])
		i += 6
		if r >= 0xD800 && r < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
			if lo := hex4(s[i+2:]); lo >= 0xDC00 && lo < 0xE000 {
				i += 6
			}
		}
		n++
	}
	return n
}
