package frontmatter

import "strings"

// Flow collections: [a, b] and {k: v}, over one line or several.

// flow reads a flow collection that begins with rest on line l and may go
// on over the lines more indented than owner.
func (p *parser) flow(rest string, owner int, l *line) (any, error) {
	parts := []string{rest}
	var sc flowScan
	done := sc.scan(rest)
	for !done {
		if p.eof() {
			return nil, errorf(l, "the flow collection is not closed")
		}
		n := p.cur()
		if !n.empty && n.indent <= owner {
			return nil, errorf(n, "the flow collection that begins on line %d is not closed (or goes on without indentation)", l.n)
		}
		parts = append(parts, n.raw)
		p.i++
		done = sc.scan(n.raw)
	}
	f := &flowParser{p: p, s: strings.Join(parts, "\n"), l: l}
	v, err := f.node()
	if err != nil {
		return nil, err
	}
	f.space()
	if f.i < len(f.s) {
		return nil, errorf(l, "unexpected text after the flow collection: %q", clip(f.s[f.i:]))
	}
	return v, nil
}

// flowScan finds, line by line, where a flow collection closes.
type flowScan struct {
	depth int
	quote byte // the quote open, or 0
}

// scan reads one line; it reports whether the collection closed on it.
func (sc *flowScan) scan(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case sc.quote == '"' && c == '\\':
			i++
		case sc.quote != 0 && c == sc.quote:
			if c == '\'' && i+1 < len(s) && s[i+1] == '\'' {
				i++
			} else {
				sc.quote = 0
			}
		case sc.quote != 0:
		case c == '"' || c == '\'':
			sc.quote = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return false // a comment ends the line
		case c == '[' || c == '{':
			sc.depth++
		case c == ']' || c == '}':
			if sc.depth--; sc.depth == 0 {
				return true
			}
		}
	}
	return false
}

// A flowParser reads one flow collection, whose lines are joined in s.
type flowParser struct {
	p *parser
	s string
	i int
	l *line // the line it begins on, for errors
}

// space passes white space, line breaks and comments.
func (f *flowParser) space() {
	for f.i < len(f.s) {
		switch c := f.s[f.i]; {
		case c == ' ' || c == '\t' || c == '\n':
			f.i++
		case c == '#' && (f.i == 0 || strings.ContainsRune(" \t\n", rune(f.s[f.i-1]))):
			for f.i < len(f.s) && f.s[f.i] != '\n' {
				f.i++
			}
		default:
			return
		}
	}
}

// node reads one value.
func (f *flowParser) node() (any, error) {
	f.space()
	if f.i >= len(f.s) {
		return nil, errorf(f.l, "a flow collection ends early")
	}
	if err := f.p.node(f.l); err != nil {
		return nil, err
	}
	switch c := f.s[f.i]; c {
	case '[':
		return f.sequence()
	case '{':
		return f.mapping()
	case '"', '\'':
		return f.quoted()
	case '&', '*', '!', '%', '@', '`', '|', '>':
		return nil, errorf(f.l, "%q cannot begin a value in a flow collection (anchors, aliases, tags and block scalars are not supported)", c)
	case ']', '}', ',', ':':
		return nil, errorf(f.l, "expected a value, found %q", c)
	}
	return f.plain()
}

func (f *flowParser) sequence() (any, error) {
	if err := f.p.enter(f.l); err != nil {
		return nil, err
	}
	defer f.p.leave()
	f.i++ // [
	arr := []any{}
	for {
		f.space()
		if f.i < len(f.s) && f.s[f.i] == ']' {
			f.i++
			return arr, nil
		}
		v, err := f.node()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		f.space()
		switch {
		case f.i >= len(f.s):
			return nil, errorf(f.l, "the flow sequence is not closed")
		case f.s[f.i] == ',':
			f.i++
		case f.s[f.i] == ']':
		case f.s[f.i] == ':':
			return nil, errorf(f.l, "mappings inside flow sequences are not supported")
		default:
			return nil, errorf(f.l, "expected , or ] in a flow sequence, found %q", f.s[f.i])
		}
	}
}

func (f *flowParser) mapping() (any, error) {
	if err := f.p.enter(f.l); err != nil {
		return nil, err
	}
	defer f.p.leave()
	f.i++ // {
	obj := &object{}
	for {
		f.space()
		if f.i < len(f.s) && f.s[f.i] == '}' {
			f.i++
			return obj, nil
		}
		if f.i >= len(f.s) {
			return nil, errorf(f.l, "the flow mapping is not closed")
		}
		var k string
		switch c := f.s[f.i]; {
		case c == '"' || c == '\'':
			v, err := f.quoted()
			if err != nil {
				return nil, err
			}
			k = v.(string)
		case strings.IndexByte("[]{},:&*!%@`|>?#", c) >= 0:
			return nil, errorf(f.l, "%q cannot begin a key in a flow mapping", c)
		default:
			raw := f.plainText()
			var err error
			if k, err = keyString(raw, f.l); err != nil {
				return nil, err
			}
		}
		f.space()
		if f.i >= len(f.s) || f.s[f.i] != ':' {
			return nil, errorf(f.l, "the key %q of a flow mapping has no value (key: value)", k)
		}
		f.i++
		if obj.has(k) {
			return nil, errorf(f.l, "the key %q appears twice", k)
		}
		f.space()
		var v any
		if f.i < len(f.s) && f.s[f.i] != ',' && f.s[f.i] != '}' {
			var err error
			if v, err = f.node(); err != nil {
				return nil, err
			}
		}
		obj.add(k, v)
		f.space()
		switch {
		case f.i >= len(f.s):
			return nil, errorf(f.l, "the flow mapping is not closed")
		case f.s[f.i] == ',':
			f.i++
		case f.s[f.i] == '}':
		default:
			return nil, errorf(f.l, "expected , or } in a flow mapping, found %q", f.s[f.i])
		}
	}
}

// quoted reads a quoted scalar.
func (f *flowParser) quoted() (any, error) {
	q := f.s[f.i]
	end := closeQuote(f.s, f.i+1, q)
	if end < 0 {
		return nil, errorf(f.l, "a quoted value in the flow collection is not closed")
	}
	v, err := unquote(f.s[f.i:end+1], f.l)
	f.i = end + 1
	return v, err
}

// plainText reads the text of a plain scalar in a flow collection: up to
// a flow indicator, a ": ", or a comment; line breaks fold into spaces.
func (f *flowParser) plainText() string {
	start := f.i
	for f.i < len(f.s) {
		c := f.s[f.i]
		if strings.IndexByte(",[]{}", c) >= 0 {
			break
		}
		if c == ':' && (f.i+1 == len(f.s) || strings.IndexByte(" \t\n,[]{}", f.s[f.i+1]) >= 0) {
			break
		}
		if c == '#' && f.i > start && strings.IndexByte(" \t\n", f.s[f.i-1]) >= 0 {
			break
		}
		f.i++
	}
	return foldLines(strings.Split(f.s[start:f.i], "\n"))
}

// foldLines joins the lines of a plain scalar: each trimmed of its white
// space, joined by a space, or by one line break for each empty line
// between them.
func foldLines(lines []string) string {
	var b strings.Builder
	breaks, started := 0, false
	for _, s := range lines {
		s = strings.Trim(s, " \t")
		if s == "" {
			breaks++
			continue
		}
		switch {
		case !started:
		case breaks == 0:
			b.WriteByte(' ')
		default:
			b.WriteString(strings.Repeat("\n", breaks))
		}
		b.WriteString(s)
		breaks, started = 0, true
	}
	return b.String()
}

// plain reads a plain scalar.
func (f *flowParser) plain() (any, error) {
	return scalar(f.plainText(), f.l)
}
