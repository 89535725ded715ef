package jsonschema

import (
	"bytes"
	"slices"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// JSON Schema compares values by meaning, not spelling: 1 equals 1.0,
// "\u0041" equals "A", and objects are equal whatever their member order.
// enum, const and uniqueItems therefore compare canonical encodings:
//
//   - numbers as exact decimals (see decimal.appendCanonical);
//   - strings decoded, then re-quoted escaping only '"', '\\' and control
//     characters;
//   - objects with members sorted by canonical key;
//   - no whitespace.
//
// Two well-formed JSON values are equal in the JSON Schema sense exactly
// when their canonical encodings are equal bytes.

// appendCanonical appends the canonical encoding of the well-formed value
// starting at d[i] to buf and returns buf and the end of the value.
func appendCanonical(buf, d []byte, i int) ([]byte, int) {
	switch d[i] {
	case '"':
		end, escaped := jsonscan.SkipString(d, i)
		return appendCanonicalString(buf, d[i:end], escaped), end
	case 't', 'f', 'n':
		end := jsonscan.SkipValue(d, i)
		return append(buf, d[i:end]...), end
	case '[':
		buf = append(buf, '[')
		i = jsonscan.SkipSpace(d, i+1)
		for first := true; d[i] != ']'; first = false {
			if !first {
				buf = append(buf, ',')
			}
			buf, i = appendCanonical(buf, d, i)
			if i = jsonscan.SkipSpace(d, i); d[i] == ',' {
				i = jsonscan.SkipSpace(d, i+1)
			}
		}
		return append(buf, ']'), i + 1
	case '{':
		return appendCanonicalObject(buf, d, i)
	default:
		end := jsonscan.SkipValue(d, i)
		start := len(buf)
		dec, buf2 := parseDecimal(d[i:end], buf)
		// The digits were appended at start; encode after them, then move
		// the encoding down over them.
		enc := dec.appendCanonical(buf2)
		n := copy(enc[start:], enc[len(buf2):])
		return enc[:start+n], end
	}
}

// appendCanonicalString appends the canonical form of the JSON string s
// (with quotes).
func appendCanonicalString(buf, s []byte, escaped bool) []byte {
	if !escaped {
		return append(buf, s...)
	}
	start := len(buf)
	buf = appendUnescaped(buf, s)
	// Re-quote in place: decode into a scratch tail, then encode over it.
	raw := buf[start:]
	out := make([]byte, 0, len(raw)+2)
	out = append(out, '"')
	for _, c := range raw {
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			out = append(out, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xF])
		default:
			out = append(out, c)
		}
	}
	out = append(out, '"')
	return append(buf[:start], out...)
}

const hexDigit = "0123456789abcdef"

func appendCanonicalObject(buf, d []byte, i int) ([]byte, int) {
	type member struct{ start, keyEnd, end int }
	var ms []member
	start := len(buf)
	i = jsonscan.SkipSpace(d, i+1)
	for d[i] != '}' {
		m := member{start: len(buf)}
		end, escaped := jsonscan.SkipString(d, i)
		buf = appendCanonicalString(buf, d[i:end], escaped)
		m.keyEnd = len(buf)
		buf = append(buf, ':')
		i = jsonscan.SkipSpace(d, jsonscan.SkipSpace(d, end)+1)
		buf, i = appendCanonical(buf, d, i)
		m.end = len(buf)
		ms = append(ms, m)
		if i = jsonscan.SkipSpace(d, i); d[i] == ',' {
			i = jsonscan.SkipSpace(d, i+1)
		}
	}
	if len(ms) < 2 {
		if len(ms) == 0 {
			return append(buf, '{', '}'), i + 1
		}
		enc := append([]byte{'{'}, buf[start:]...)
		enc = append(enc, '}')
		return append(buf[:start], enc...), i + 1
	}
	slices.SortFunc(ms, func(a, b member) int {
		return bytes.Compare(buf[a.start:a.keyEnd], buf[b.start:b.keyEnd])
	})
	enc := make([]byte, 0, len(buf)-start+len(ms)+1)
	enc = append(enc, '{')
	for k, m := range ms {
		if k > 0 {
			enc = append(enc, ',')
		}
		enc = append(enc, buf[m.start:m.end]...)
	}
	enc = append(enc, '}')
	return append(buf[:start], enc...), i + 1
}
