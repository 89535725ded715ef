package frontmatter

import (
	"strconv"
	"unicode/utf8"
)

// An object is a mapping, its members in the order written.
type object struct {
	keys []string
	vals []any
	set  map[string]bool
}

func (o *object) has(k string) bool { return o.set[k] }

func (o *object) add(k string, v any) {
	if o.set == nil {
		o.set = make(map[string]bool)
	}
	o.set[k] = true
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// appendJSON appends the compact JSON of v: nil, a bool, a string, a
// number, a []any or an *object.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case number:
		return append(b, v...)
	case string:
		return appendString(b, v)
	case []any:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, x)
		}
		return append(b, ']')
	case *object:
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendJSON(b, v.vals[i])
		}
		return append(b, '}')
	}
	panic("frontmatter: no JSON for a value of this type")
}

// appendString appends s (valid UTF-8) as a JSON string: the quote, the
// backslash and the control characters escaped, everything else as it is.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s[i:])
			b = append(b, s[i:i+size]...)
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}
