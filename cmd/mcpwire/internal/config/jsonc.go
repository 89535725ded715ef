package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The hosts' files are JSON, and VS Code's (and Cursor's) are JSON with
// comments: // and /* */ comments, and a comma after the last member or
// element. parse reads either into a tree of values that remember where
// they start, so that an error can name the line and column of what is
// wrong, in the file as the user sees it. Members are kept in order, with
// duplicates: the reader of each object decides whether a repeated name
// is an error (it is, in the parts of a file mcpwire reads).

// maxDepth bounds the nesting of a configuration file.
const maxDepth = 128

// A value is a parsed JSON value and its position.
type value struct {
	kind    byte // '{' object, '[' array, '"' string, '0' number, 't' boolean, 'n' null
	off     int  // offset of its first byte
	str     string
	num     string // the number's text
	boolean bool
	members []member // object, in order
	elems   []*value // array
}

// A member is one name and value of an object.
type member struct {
	name string
	off  int // offset of the name
	val  *value
}

// kindName names the kind of v for error messages, with an article.
func (v *value) kindName() string {
	switch v.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't':
		return "a boolean"
	}
	return "null"
}

// get returns the value of the member name of object v, or nil.
func (v *value) get(name string) *value {
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].name == name {
			return v.members[i].val
		}
	}
	return nil
}

// A SyntaxError is a file that is not valid JSON (or JSON with comments,
// where the host allows them), with the position of the mistake.
type SyntaxError struct {
	Line, Col int // from 1; columns count characters, not bytes
	Msg       string
}

// Error returns "line L, column C: MSG".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// lineCol returns the line and column (from 1, in characters) of offset
// off of data.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = bytes.Count(before, []byte{'\n'}) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// parser reads one JSON text.
type parser struct {
	data     []byte
	pos      int
	comments bool // comments and trailing commas are allowed
	depth    int
}

// parse parses data, a JSON text; with comments, JSON with comments and
// trailing commas.
func parse(data []byte, comments bool) (*value, error) {
	p := &parser{data: data, comments: comments}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) { // a byte order mark, as editors on Windows write
		p.pos = 3
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos == len(p.data) {
		return nil, p.errorf(p.pos, "the file is empty; want a JSON object")
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos < len(p.data) {
		return nil, p.errorf(p.pos, "unexpected %s after the top-level value", p.describe(p.pos))
	}
	return v, nil
}

func (p *parser) errorf(off int, format string, args ...any) error {
	line, col := lineCol(p.data, off)
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// describe names the character at off for an error message.
func (p *parser) describe(off int) string {
	if off >= len(p.data) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.data[off:])
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", p.data[off])
	}
	return fmt.Sprintf("%q", r)
}

// space skips white space and, if allowed, comments.
func (p *parser) space() error {
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.comments && p.pos+1 < len(p.data) && p.data[p.pos+1] == '/':
			end := bytes.IndexByte(p.data[p.pos:], '\n')
			if end < 0 {
				p.pos = len(p.data)
			} else {
				p.pos += end + 1
			}
		case c == '/' && p.comments && p.pos+1 < len(p.data) && p.data[p.pos+1] == '*':
			end := bytes.Index(p.data[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errorf(p.pos, "a /* comment is not closed")
			}
			p.pos += 2 + end + 2
		case c == '/':
			if !p.comments {
				return p.errorf(p.pos, "comments are not allowed in this file (its host reads plain JSON)")
			}
			return p.errorf(p.pos, "unexpected %s", p.describe(p.pos))
		default:
			return nil
		}
	}
	return nil
}

// value parses the value at p.pos, after white space.
func (p *parser) value() (*value, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf(p.pos, "unexpected end of file; want a value")
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &value{kind: '"', off: start, str: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case bytes.HasPrefix(p.data[p.pos:], []byte("true")):
		p.pos += 4
		return &value{kind: 't', off: start, boolean: true}, nil
	case bytes.HasPrefix(p.data[p.pos:], []byte("false")):
		p.pos += 5
		return &value{kind: 't', off: start}, nil
	case bytes.HasPrefix(p.data[p.pos:], []byte("null")):
		p.pos += 4
		return &value{kind: 'n', off: start}, nil
	}
	return nil, p.errorf(p.pos, "unexpected %s; want a value", p.describe(p.pos))
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf(p.pos, "values nested more than %d deep", maxDepth)
	}
	return nil
}

func (p *parser) object() (*value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	v := &value{kind: '{', off: p.pos}
	p.pos++     // {
	comma := -1 // the offset of the comma after the last member, if any
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			if comma >= 0 && !p.comments {
				return nil, p.errorf(comma, "a comma after the last member is not allowed in this file (its host reads plain JSON)")
			}
			p.pos++
			return v, nil
		}
		if p.pos >= len(p.data) {
			return nil, p.notClosed(v, "object")
		}
		if len(v.members) > 0 && comma < 0 {
			return nil, p.errorf(p.pos, "unexpected %s; want , or } after an object member", p.describe(p.pos))
		}
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf(p.pos, "unexpected %s; want a member name in double quotes", p.describe(p.pos))
		}
		nameOff := p.pos
		name, err := p.string()
		if err != nil {
			return nil, err
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf(p.pos, "unexpected %s; want : after the member name %q", p.describe(p.pos), name)
		}
		p.pos++
		if err := p.space(); err != nil {
			return nil, err
		}
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		v.members = append(v.members, member{name: name, off: nameOff, val: val})
		if comma, err = p.comma(); err != nil {
			return nil, err
		}
	}
}

func (p *parser) array() (*value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	v := &value{kind: '[', off: p.pos}
	p.pos++ // [
	comma := -1
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			if comma >= 0 && !p.comments {
				return nil, p.errorf(comma, "a comma after the last element is not allowed in this file (its host reads plain JSON)")
			}
			p.pos++
			return v, nil
		}
		if p.pos >= len(p.data) {
			return nil, p.notClosed(v, "array")
		}
		if len(v.elems) > 0 && comma < 0 {
			return nil, p.errorf(p.pos, "unexpected %s; want , or ] after an array element", p.describe(p.pos))
		}
		e, err := p.value()
		if err != nil {
			return nil, err
		}
		v.elems = append(v.elems, e)
		if comma, err = p.comma(); err != nil {
			return nil, err
		}
	}
}

// notClosed reports the end of the file inside v.
func (p *parser) notClosed(v *value, what string) error {
	line, col := lineCol(p.data, v.off)
	return p.errorf(p.pos, "unexpected end of file: the %s opened at line %d, column %d is not closed", what, line, col)
}

// comma skips white space and a comma after a member or element, and
// returns the comma's offset, or -1 if there is none.
func (p *parser) comma() (int, error) {
	if err := p.space(); err != nil {
		return -1, err
	}
	if p.pos < len(p.data) && p.data[p.pos] == ',' {
		p.pos++
		return p.pos - 1, nil
	}
	return -1, nil
}

// string parses the string at p.pos and returns its value.
func (p *parser) string() (string, error) {
	start := p.pos
	i := p.pos + 1
	for ; i < len(p.data); i++ {
		switch c := p.data[i]; {
		case c == '\\':
			i++
		case c == '"':
			var s string
			if err := json.Unmarshal(p.data[start:i+1], &s); err != nil {
				return "", p.errorf(start, "invalid string: %s", trimJSONPrefix(err))
			}
			p.pos = i + 1
			return s, nil
		case c < 0x20:
			return "", p.errorf(i, "a control character (0x%02x) in a string; write it escaped", c)
		}
	}
	return "", p.errorf(start, "a string is not closed")
}

// number parses the number at p.pos.
func (p *parser) number() (*value, error) {
	start := p.pos
	i := p.pos
	for i < len(p.data) && bytes.IndexByte([]byte("+-0123456789.eE"), p.data[i]) >= 0 {
		i++
	}
	text := p.data[start:i]
	if !json.Valid(text) {
		return nil, p.errorf(start, "invalid number %q", text)
	}
	p.pos = i
	return &value{kind: '0', off: start, num: string(text)}, nil
}

// trimJSONPrefix returns err's message without "json: ".
func trimJSONPrefix(err error) string {
	s := err.Error()
	if len(s) > 6 && s[:6] == "json: " {
		return s[6:]
	}
	return s
}
