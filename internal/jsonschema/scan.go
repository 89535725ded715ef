package jsonschema

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// This file reads JSON text in place. The validator never builds a tree of
// the instance: it walks the bytes with the readers of internal/jsonscan,
// which find where values end and decode strings as encoding/json does.
// They assume the text is well formed (checkSyntax has been run). What is
// the engine's own: the wording of syntax errors, the JSON kinds of
// values, and helpers that take string literals with their quotes.

// checkSyntax reports whether data is exactly one well-formed JSON value with
// nesting no deeper than maxDepth (arrays and objects; the outermost counts
// as 1). It never allocates unless it fails. Like encoding/json, it accepts
// invalid UTF-8 in strings, which then reads as U+FFFD.
func checkSyntax(data []byte, maxDepth int) error {
	s := jsonscan.Scanner{Data: data, MaxDepth: maxDepth}
	if s.Document() {
		return nil
	}
	e := s.Err()
	var what string
	switch e.Kind {
	case jsonscan.TooDeep:
		return fmt.Errorf("invalid JSON: nesting deeper than %d", maxDepth)
	case jsonscan.UnexpectedEOF:
		if jsonscan.SkipSpace(data, 0) == len(data) {
			return errors.New("empty JSON text")
		}
		what = "value expected"
	case jsonscan.UnexpectedChar:
		what = "unexpected character " + strconv.QuoteRune(rune(data[e.Offset]))
	case jsonscan.UnterminatedString:
		what = "unterminated string"
		if e.Offset < len(data) {
			what = "unterminated escape"
		}
	case jsonscan.UnterminatedArray, jsonscan.ArraySeparator, jsonscan.UnterminatedObject, jsonscan.ObjectSeparator:
		what = "',' or closing bracket expected"
	case jsonscan.ExpectedKey:
		what = "object key expected"
	case jsonscan.ExpectedColon:
		what = "':' expected"
	case jsonscan.TrailingData:
		what = "unexpected data after the top-level value"
	default:
		what = e.Kind.String()
	}
	if e.Offset >= len(data) {
		return fmt.Errorf("invalid JSON: %s at end of input", what)
	}
	return fmt.Errorf("invalid JSON at offset %d: %s", e.Offset, what)
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

// appendUnescaped appends the value of the JSON string s (with its quotes)
// to buf, decoded as encoding/json decodes it.
func appendUnescaped(buf, s []byte) []byte {
	buf, _ = jsonscan.AppendUnescaped(buf, s[1:len(s)-1])
	return buf
}

// stringLength counts the code points of the JSON string s (with quotes)
// without decoding it, as encoding/json would after decoding.
func stringLength(s []byte, escaped bool) int { return jsonscan.StringLen(s[1:len(s)-1], escaped) }
