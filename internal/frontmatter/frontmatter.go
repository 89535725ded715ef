// Package frontmatter reads the YAML frontmatter of a Markdown document,
// such as an Agent Skill's SKILL.md, and renders it as a JSON object: the
// form in which the Skills extension of MCP (SEP-2640) carries a skill's
// frontmatter "verbatim" in skills/list and skills/get.
//
// It reads the subset of YAML 1.2 that frontmatter is written in, and
// refuses the rest with an error that names the line:
//
//   - block mappings and sequences (a sequence may sit at its key's
//     indentation), nested by indentation with spaces;
//   - plain scalars (over several lines too), single- and double-quoted
//     scalars with every YAML escape, literal (|) and folded (>) block
//     scalars with their chomping and indentation indicators;
//   - flow sequences and mappings ([a, b], {k: v});
//   - comments and blank lines.
//
// Plain scalars resolve as the YAML 1.2 core schema says: null, true and
// false, integers (decimal, 0o octal, 0x hexadecimal) and floats;
// everything else is a string (so a date stays a string, and "yes" is not
// a boolean). Not read: anchors and aliases (which expand a small text
// into a large one), tags, complex keys, several documents, directives,
// keys that are not strings, duplicate keys, tabs in indentation, and
// numbers JSON cannot represent (.inf, .nan).
//
// Every input is bounded: the frontmatter (MaxBytes), the nesting depth
// (MaxDepth) and the number of values (MaxNodes). The package does no
// I/O.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Bounds of what the package reads.
const (
	// MaxBytes bounds the frontmatter block, between its --- lines.
	MaxBytes = 64 << 10
	// MaxDepth bounds the nesting of mappings and sequences.
	MaxDepth = 32
	// MaxNodes bounds the values of one frontmatter (scalars,
	// mappings and sequences).
	MaxNodes = 10_000
)

// ErrNone reports a document that does not begin with a frontmatter
// block: a line "---", the YAML, and a line "---".
var ErrNone = errors.New("frontmatter: the document does not begin with a --- delimited YAML frontmatter block")

// An Error is a frontmatter that cannot be read.
type Error struct {
	// Line is the line of the frontmatter (1 for the line after the
	// opening ---) where the problem is; 0 when it is about the whole.
	Line int
	// Msg says what is wrong.
	Msg string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return "frontmatter: " + e.Msg
	}
	return fmt.Sprintf("frontmatter: line %d: %s", e.Line, e.Msg)
}

// Split returns the frontmatter block of doc: the text between an opening
// line "---" (after an optional UTF-8 byte order mark) and the next line
// that is "---" followed only by spaces or tabs, without either line and
// without the line break before the closing one. It returns ErrNone when
// doc does not begin with such a block, and an *Error when the block is
// longer than MaxBytes.
func Split(doc []byte) ([]byte, error) {
	doc = bytes.TrimPrefix(doc, []byte("\uFEFF"))
	var rest []byte
	switch {
	case bytes.HasPrefix(doc, []byte("---\n")):
		rest = doc[4:]
	case bytes.HasPrefix(doc, []byte("---\r\n")):
		rest = doc[5:]
	default:
		return nil, ErrNone
	}
	// The block is empty when the closing line follows at once; otherwise
	// it ends at the line break before the closing line.
	if isClosing(rest) {
		return nil, nil
	}
	for i := 0; i < len(rest); {
		nl := bytes.IndexByte(rest[i:], '\n')
		if nl < 0 {
			break
		}
		end := i + nl // the line break before a candidate closing line
		if end > MaxBytes {
			break
		}
		if isClosing(rest[end+1:]) {
			return bytes.TrimSuffix(rest[:end], []byte("\r")), nil
		}
		i = end + 1
	}
	if len(rest) > MaxBytes {
		return nil, &Error{Msg: fmt.Sprintf("the frontmatter is not closed within %d bytes", MaxBytes)}
	}
	return nil, ErrNone
}

// isClosing reports whether b begins with a closing line: "---", then
// spaces or tabs, then a line break or the end.
func isClosing(b []byte) bool {
	if !bytes.HasPrefix(b, []byte("---")) {
		return false
	}
	i := 3
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i == len(b) || b[i] == '\n' || b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n'
}

// Parse reads the frontmatter of doc (see Split) and returns it as a
// compact JSON object, its members in the order written.
func Parse(doc []byte) ([]byte, error) {
	front, err := Split(doc)
	if err != nil {
		return nil, err
	}
	return ToJSON(front)
}

// ToJSON reads a YAML mapping (the frontmatter block, without its ---
// lines) and returns it as a compact JSON object, its members in the
// order written.
func ToJSON(yaml []byte) ([]byte, error) {
	if len(yaml) > MaxBytes {
		return nil, &Error{Msg: fmt.Sprintf("the frontmatter is %d bytes, more than %d", len(yaml), MaxBytes)}
	}
	if !utf8.Valid(yaml) {
		return nil, &Error{Msg: "the frontmatter is not valid UTF-8"}
	}
	p, err := newParser(string(yaml))
	if err != nil {
		return nil, err
	}
	v, err := p.document()
	if err != nil {
		return nil, err
	}
	return appendJSON(nil, v), nil
}
