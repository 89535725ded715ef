package jsonschema

import (
	"strconv"
	"unicode/utf8"
)

// Inferred schemas are built as ordered objects, so that their JSON is
// deterministic and reads in a sensible order ("type" first, properties in
// field order), which map[string]any could not give.

// obj is a JSON object with ordered members.
type obj []kv

type kv struct {
	k string
	v any // string, bool, int, []string, []any, obj, or rawJSON
}

// rawJSON is a JSON value used as written.
type rawJSON []byte

// rawObj turns the raw JSON object of a TypeSchemas entry into an obj
// whose members are raw, so that its keywords can be adjusted. A value
// that is not an object is kept whole.
func rawObj(raw []byte) any {
	if checkSyntax(raw, MaxInstanceDepth) != nil {
		return rawJSON(raw) // reported when the whole schema is compiled
	}
	t, err := parseTree(raw)
	if err != nil || t.kind != kindObject {
		return rawJSON(raw)
	}
	o := make(obj, len(t.keys))
	for i, k := range t.keys {
		o[i] = kv{k, rawJSON(t.vals[i].raw)}
	}
	return o
}

// appendJSON appends the JSON encoding of v.
func appendJSON(buf []byte, v any) []byte {
	switch v := v.(type) {
	case obj:
		buf = append(buf, '{')
		for i, m := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, m.k)
			buf = append(buf, ':')
			buf = appendJSON(buf, m.v)
		}
		return append(buf, '}')
	case []any:
		buf = append(buf, '[')
		for i, e := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSON(buf, e)
		}
		return append(buf, ']')
	case []string:
		buf = append(buf, '[')
		for i, e := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, e)
		}
		return append(buf, ']')
	case string:
		return appendJSONString(buf, v)
	case int:
		return strconv.AppendInt(buf, int64(v), 10)
	case bool:
		return strconv.AppendBool(buf, v)
	case rawJSON:
		return append(buf, v...)
	}
	return append(buf, "null"...)
}

// appendJSONString quotes s, escaping only what JSON requires (and invalid
// UTF-8, as U+FFFD), so descriptions stay readable.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c == '\n':
			buf = append(buf, '\\', 'n')
		case c == '\t':
			buf = append(buf, '\\', 't')
		case c == '\r':
			buf = append(buf, '\\', 'r')
		case c < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xF])
		case c < utf8.RuneSelf:
			buf = append(buf, c)
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			buf = utf8.AppendRune(buf, r)
			i += size
			continue
		}
		i++
	}
	return append(buf, '"')
}
