package jsonschema

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A ValidationError is returned by [Schema.Validate] when an instance does
// not conform. It lists every violation found (up to a cap), each with the
// location of the offending value.
//
// Its message is meant to be read by people and by language models, who
// use it to correct a tool call:
//
//	instance/text: expected string, got number 5; instance: missing required property "count"
//
// Use [ValidationError.Message] to name the root something more telling,
// such as "arguments".
type ValidationError struct {
	// Violations in the order they were found.
	Violations []Violation
	// Omitted counts violations that were found but not listed.
	Omitted int
}

// A Violation is one reason an instance is invalid.
type Violation struct {
	// Pointer is the RFC 6901 JSON pointer of the offending value within
	// the instance; "" is the instance itself.
	Pointer string
	// Message says what is wrong, without the location.
	Message string

	typeMismatch bool // the value has a type the schema does not allow
}

// Error implements error, naming the instance root "instance".
func (e *ValidationError) Error() string { return e.Message("instance") }

// Message renders the violations as one line, each as
// "root<pointer>: message", separated by "; ".
func (e *ValidationError) Message(root string) string {
	var b strings.Builder
	for k, v := range e.Violations {
		if k > 0 {
			b.WriteString("; ")
		}
		b.WriteString(root)
		b.WriteString(v.Pointer)
		b.WriteString(": ")
		b.WriteString(v.Message)
	}
	if e.Omitted > 0 {
		b.WriteString("; and ")
		b.WriteString(plural(e.Omitted, "more violation", "more violations"))
	}
	return b.String()
}

// add records a violation at the current location.
func (s *state) add(msg string, typeMismatch bool) {
	if len(s.errs) >= maxViolations {
		s.dropped++
		return
	}
	s.errs = append(s.errs, Violation{Pointer: s.pointer(), Message: msg, typeMismatch: typeMismatch})
}

// pointer renders the current instance location.
func (s *state) pointer() string {
	if len(s.path) == 0 {
		return ""
	}
	var b strings.Builder
	for _, seg := range s.path {
		b.WriteByte('/')
		if seg.index >= 0 {
			b.WriteString(strconv.Itoa(seg.index))
		} else {
			b.WriteString(escapePointer(seg.key))
		}
	}
	return b.String()
}

// describe names the type of a raw JSON value, with the value itself when
// it is a short scalar: `number 5`, `string "abc"`, `object`.
func describe(raw []byte) string {
	switch kindAt(raw, 0) {
	case kindObject:
		return "object"
	case kindArray:
		return "array"
	case kindNull:
		return "null"
	case kindBoolean:
		return "boolean " + string(raw)
	case kindString:
		return "string " + clip(string(raw))
	}
	return "number " + clip(string(raw))
}

// Clip shortens a raw JSON value quoted in a violation's message to 40
// bytes (on a character boundary) and an ellipsis; the full engine quotes
// values the same way.
func Clip(s string) string { return clip(s) }

// clip shortens a raw value for a message.
func clip(s string) string {
	const limit = 40
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// allowedList tells a model which names it may use instead of an
// unexpected one.
func allowedList(o *objectRules) string {
	if len(o.patterns) > 0 {
		return ""
	}
	if len(o.names) == 0 {
		return " (no properties are allowed)"
	}
	const show = 20
	var b strings.Builder
	b.WriteString(" (allowed: ")
	for k, name := range o.names[:min(len(o.names), show)] {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(name))
	}
	if len(o.names) > show {
		b.WriteString(", …")
	}
	b.WriteByte(')')
	return b.String()
}
