package frontmatter

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The block structure of the YAML: mappings and sequences nested by
// indentation. The parser reads line by line; a value that spans lines
// (a quoted, plain or block scalar, a flow collection) takes the lines
// that belong to it, all of them more indented than the node that owns
// it.

// A line is one line of the frontmatter.
type line struct {
	n       int    // its number, from 1
	indent  int    // the spaces that begin it
	text    string // what follows them
	raw     string // the whole line, without its line break
	empty   bool   // it has only spaces and tabs
	comment bool   // its first character after the spaces is #
}

// A parser reads the lines of one frontmatter.
type parser struct {
	lines []line
	i     int // the next line to read
	depth int // the mappings and sequences open
	nodes int // the values read
}

// newParser splits yaml (valid UTF-8) into lines, refusing the characters
// YAML does not allow in a stream.
func newParser(yaml string) (*parser, error) {
	p := &parser{}
	for n, raw := range strings.Split(strings.TrimSuffix(yaml, "\n"), "\n") {
		raw = strings.TrimSuffix(raw, "\r")
		if err := printable(raw, n+1); err != nil {
			return nil, err
		}
		indent := len(raw) - len(strings.TrimLeft(raw, " "))
		text := raw[indent:]
		p.lines = append(p.lines, line{
			n: n + 1, indent: indent, text: text, raw: raw,
			empty:   strings.Trim(raw, " \t") == "",
			comment: strings.HasPrefix(text, "#"),
		})
	}
	return p, nil
}

// printable refuses the characters that YAML excludes from a stream: the
// C0 controls but tab, DEL, the C1 controls but NEL, and a stray carriage
// return (a line break of its own, which would make lines differ between
// readers).
func printable(s string, n int) error {
	for i, r := range s {
		switch {
		case r == '\t':
		case r == '\r':
			return &Error{Line: n, Msg: "a carriage return that does not end the line"}
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f && r != 0x85:
			return &Error{Line: n, Msg: fmt.Sprintf("the control character %U at byte %d", r, i)}
		case r == 0xFEFF:
			return &Error{Line: n, Msg: "a byte order mark inside the frontmatter"}
		}
	}
	return nil
}

// errorf returns an error about line l.
func errorf(l *line, format string, args ...any) error {
	return &Error{Line: l.n, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) eof() bool  { return p.i >= len(p.lines) }
func (p *parser) cur() *line { return &p.lines[p.i] }

// skip passes the empty and comment lines.
func (p *parser) skip() {
	for !p.eof() && (p.cur().empty || p.cur().comment) {
		p.i++
	}
}

// node counts a value read, against MaxNodes.
func (p *parser) node(l *line) error {
	if p.nodes++; p.nodes > MaxNodes {
		return errorf(l, "more than %d values", MaxNodes)
	}
	return nil
}

// enter opens a mapping or sequence, against MaxDepth; leave closes it.
func (p *parser) enter(l *line) error {
	if p.depth++; p.depth > MaxDepth {
		return errorf(l, "mappings and sequences nested more than %d deep", MaxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// document reads the whole frontmatter, which must be a mapping.
func (p *parser) document() (any, error) {
	p.skip()
	if p.eof() {
		return nil, &Error{Msg: "the frontmatter is empty: it must be a mapping of keys to values"}
	}
	l := p.cur()
	if err := noTab(l); err != nil {
		return nil, err
	}
	if _, _, _, ok, err := splitKey(l.text, l); err != nil {
		return nil, err
	} else if !ok {
		return nil, errorf(l, "the frontmatter must be a mapping of keys to values (key: value)")
	}
	v, err := p.mapping(l.indent)
	if err != nil {
		return nil, err
	}
	p.skip()
	if !p.eof() {
		return nil, errorf(p.cur(), "unexpected indentation: the line belongs to no key")
	}
	return v, nil
}

// noTab refuses a structural line indented with a tab, which YAML
// forbids.
func noTab(l *line) error {
	if strings.HasPrefix(l.text, "\t") {
		return errorf(l, "a tab in the indentation (YAML indents with spaces)")
	}
	return nil
}

// isSeqItem reports whether text begins a block sequence item: "-" then
// a space, a tab or the end.
func isSeqItem(text string) bool {
	return text == "-" || strings.HasPrefix(text, "- ") || strings.HasPrefix(text, "-\t")
}

// splitKey splits text as "key: rest". It reports ok false when text is
// not a mapping entry; quoted tells whether the key was quoted (and so is
// decoded already).
func splitKey(text string, l *line) (key, rest string, quoted, ok bool, err error) {
	if text == "" || text[0] == '#' || isSeqItem(text) {
		return "", "", false, false, nil
	}
	switch c := text[0]; {
	case c == '"' || c == '\'':
		end := closeQuote(text, 1, c)
		if end < 0 {
			return "", "", false, false, nil // a quoted value over several lines
		}
		after := strings.TrimLeft(text[end+1:], " \t")
		if !strings.HasPrefix(after, ":") || len(after) > 1 && after[1] != ' ' && after[1] != '\t' {
			return "", "", false, false, nil
		}
		k, err := unquote(text[:end+1], l)
		if err != nil {
			return "", "", false, false, err
		}
		return k, strings.TrimLeft(after[1:], " \t"), true, true, nil
	case c == '?' && (len(text) == 1 || text[1] == ' ' || text[1] == '\t'):
		return "", "", false, false, errorf(l, "complex keys (?) are not supported")
	case c == '[' || c == '{':
		return "", "", false, false, nil // a flow collection: never a key here
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '#':
			if i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
				return "", "", false, false, nil
			}
		case ':':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t' {
				k := strings.TrimRight(text[:i], " \t")
				if k == "" {
					return "", "", false, false, errorf(l, "a key is empty")
				}
				return k, strings.TrimLeft(text[i+1:], " \t"), false, true, nil
			}
		}
	}
	return "", "", false, false, nil
}

// keyString returns a plain key as a string, refusing one that YAML would
// read as something else (a number, a boolean, null) or that begins with
// an indicator.
func keyString(k string, l *line) (string, error) {
	if strings.ContainsRune("&*!|>%@`", rune(k[0])) {
		return "", errorf(l, "the key %q begins with %q, which YAML reserves: quote it", k, k[0])
	}
	if _, ok := resolve(k).(string); !ok {
		return "", errorf(l, "the key %q is not a string: quote it", k)
	}
	return k, nil
}

// mapping reads the block mapping whose keys are indented by ind.
func (p *parser) mapping(ind int) (any, error) {
	first := p.cur()
	if err := p.enter(first); err != nil {
		return nil, err
	}
	defer p.leave()
	obj := &object{}
	for {
		p.skip()
		if p.eof() {
			break
		}
		l := p.cur()
		if l.indent < ind {
			break
		}
		if l.indent > ind {
			return nil, errorf(l, "unexpected indentation")
		}
		if err := noTab(l); err != nil {
			return nil, err
		}
		if isSeqItem(l.text) {
			return nil, errorf(l, "a sequence item where a key was expected")
		}
		k, rest, quoted, ok, err := splitKey(l.text, l)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorf(l, "expected a key and a colon (key: value)")
		}
		if !quoted {
			if k, err = keyString(k, l); err != nil {
				return nil, err
			}
		}
		if obj.has(k) {
			return nil, errorf(l, "the key %q appears twice", k)
		}
		p.i++
		v, err := p.value(rest, ind, l, true)
		if err != nil {
			return nil, err
		}
		if err := p.node(l); err != nil {
			return nil, err
		}
		obj.add(k, v)
	}
	return obj, nil
}

// sequence reads the block sequence whose dashes are indented by ind.
func (p *parser) sequence(ind int) (any, error) {
	if err := p.enter(p.cur()); err != nil {
		return nil, err
	}
	defer p.leave()
	arr := []any{}
	for {
		p.skip()
		if p.eof() {
			break
		}
		l := p.cur()
		if l.indent < ind {
			break
		}
		if l.indent > ind {
			return nil, errorf(l, "unexpected indentation")
		}
		if err := noTab(l); err != nil {
			return nil, err
		}
		if !isSeqItem(l.text) {
			break // a key of the mapping that owns a sequence at its own indentation
		}
		rest := strings.TrimLeft(l.text[1:], " \t")
		col := ind + len(l.text) - len(rest) // where rest begins
		var v any
		var err error
		_, _, _, isKey, kerr := splitKey(rest, l)
		switch {
		case kerr != nil:
			return nil, kerr
		case rest == "" || rest[0] == '#':
			p.i++
			v, err = p.nested(ind)
		case isKey || isSeqItem(rest):
			// A compact mapping or sequence: the rest of the line is a
			// node of its own, indented by col.
			p.lines[p.i] = line{n: l.n, indent: col, text: rest, raw: strings.Repeat(" ", col) + rest}
			v, err = p.block(col, ind)
		default:
			p.i++
			v, err = p.inline(rest, ind, l)
		}
		if err != nil {
			return nil, err
		}
		if err := p.node(l); err != nil {
			return nil, err
		}
		arr = append(arr, v)
	}
	return arr, nil
}

// nested reads the node on the lines after its owner's (indented by
// owner), or null when none is more indented.
func (p *parser) nested(owner int) (any, error) {
	p.skip()
	if p.eof() || p.cur().indent <= owner {
		return nil, nil
	}
	return p.block(p.cur().indent, owner)
}

// value reads the value of a mapping entry or sequence item: rest is what
// follows the key (or dash) on its line, which was line l; the entry is
// indented by owner. In a mapping (inMap), a sequence may follow at the
// key's own indentation.
func (p *parser) value(rest string, owner int, l *line, inMap bool) (any, error) {
	if rest != "" && rest[0] != '#' {
		return p.inline(rest, owner, l)
	}
	p.skip()
	if !p.eof() && inMap && p.cur().indent == owner && isSeqItem(p.cur().text) {
		return p.sequence(owner)
	}
	return p.nested(owner)
}

// block reads the node that begins on the current line, indented by ind,
// whose owner is indented by owner: a mapping, a sequence, or a scalar.
func (p *parser) block(ind, owner int) (any, error) {
	l := p.cur()
	if err := noTab(l); err != nil {
		return nil, err
	}
	if isSeqItem(l.text) {
		return p.sequence(ind)
	}
	if _, _, _, ok, err := splitKey(l.text, l); err != nil {
		return nil, err
	} else if ok {
		return p.mapping(ind)
	}
	p.i++
	return p.inline(l.text, owner, l)
}

// inline reads a value that begins in the text rest of line l (already
// passed), and may take more lines, more indented than owner.
func (p *parser) inline(rest string, owner int, l *line) (any, error) {
	c := rest[0]
	next := byte(' ')
	if len(rest) > 1 {
		next = rest[1]
	}
	spaceNext := next == ' ' || next == '\t'
	switch {
	case c == '|' || c == '>':
		return p.blockScalar(rest, owner, l)
	case c == '"' || c == '\'':
		return p.quoted(rest, owner, l)
	case c == '[' || c == '{':
		return p.flow(rest, owner, l)
	case c == '&' || c == '*':
		return nil, errorf(l, "anchors and aliases (& and *) are not supported")
	case c == '!':
		return nil, errorf(l, "tags (!) are not supported")
	case c == '%' || c == '@' || c == '`':
		return nil, errorf(l, "a plain value cannot begin with %q: quote it", c)
	case c == '-' && spaceNext:
		return nil, errorf(l, "a sequence cannot begin on the line of its key")
	case (c == '?' || c == ':') && spaceNext:
		return nil, errorf(l, "unexpected %q", c)
	}
	return p.plain(rest, owner, l)
}

// plain reads a plain scalar that begins with first on line l, and goes
// on over the lines more indented than owner.
func (p *parser) plain(first string, owner int, l *line) (any, error) {
	text, commented, err := plainLine(first, l)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(text)
	breaks, end := 0, p.i
	for j := p.i; j < len(p.lines) && !commented; j++ {
		n := &p.lines[j]
		if n.empty {
			breaks++
			continue
		}
		t := strings.TrimLeft(n.text, " \t")
		if n.indent <= owner || strings.HasPrefix(t, "#") {
			break
		}
		t, commented, err = plainLine(t, n)
		if err != nil {
			return nil, err
		}
		if breaks == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(strings.Repeat("\n", breaks))
		}
		b.WriteString(t)
		breaks, end = 0, j+1
	}
	p.i = end
	return scalar(b.String(), l)
}

// scalar resolves a plain scalar read on line l, refusing a number JSON
// cannot write.
func scalar(s string, l *line) (any, error) {
	v := resolve(s)
	if u, ok := v.(unrepresentable); ok {
		return nil, errorf(l, "%q is a number that JSON cannot write", string(u))
	}
	return v, nil
}

// plainLine returns the part of one line of a plain scalar before its
// comment, refusing ": ", which would make it a mapping.
func plainLine(t string, l *line) (string, bool, error) {
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '#':
			if i > 0 && (t[i-1] == ' ' || t[i-1] == '\t') {
				return strings.TrimRight(t[:i], " \t"), true, nil
			}
		case ':':
			if i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t' {
				return "", false, errorf(l, "a colon followed by a space or the end of the line cannot be part of a plain value: quote the value")
			}
		}
	}
	return strings.TrimRight(t, " \t"), false, nil
}

// quoted reads a single- or double-quoted scalar that begins with rest on
// line l and may go on over the lines more indented than owner.
func (p *parser) quoted(rest string, owner int, l *line) (any, error) {
	q := rest[0]
	parts := []string{rest}
	end := closeQuote(rest, 1, q)
	last := l
	for end < 0 {
		if p.eof() {
			return nil, errorf(l, "the quoted value is not closed")
		}
		n := p.cur()
		if !n.empty && n.indent <= owner {
			return nil, errorf(n, "the quoted value that begins on line %d is not closed (or goes on without indentation)", l.n)
		}
		parts = append(parts, n.raw)
		p.i++
		last = n
		end = closeQuote(n.raw, 0, q)
	}
	tail := parts[len(parts)-1]
	after := strings.TrimLeft(tail[end+1:], " \t")
	if after != "" && after[0] != '#' {
		return nil, errorf(last, "unexpected text after the quoted value: %q", clip(after))
	}
	parts[len(parts)-1] = tail[:end+1]
	return unquote(strings.Join(parts, "\n"), l)
}

// closeQuote returns the index in s, from i, of the quote q that closes a
// quoted scalar, or -1 when s does not hold it. In double quotes a
// backslash escapes the next character; in single quotes ” is a quote.
func closeQuote(s string, i int, q byte) int {
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case q == '"' && c == '\\':
			i++
		case c == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case c == q:
			return i
		}
	}
	return -1
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	cut := 40
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// blockScalar reads a literal (|) or folded (>) block scalar whose header
// is the text h on line l; its lines are more indented than owner.
func (p *parser) blockScalar(h string, owner int, l *line) (any, error) {
	folded := h[0] == '>'
	chomp, explicit := byte(0), 0
	h = h[1:]
	for range 2 {
		switch {
		case h == "":
		case (h[0] == '-' || h[0] == '+') && chomp == 0:
			chomp, h = h[0], h[1:]
		case h[0] >= '1' && h[0] <= '9' && explicit == 0:
			explicit, h = int(h[0]-'0'), h[1:]
		}
	}
	if t := strings.TrimLeft(h, " \t"); h != "" && h[0] != ' ' && h[0] != '\t' || t != "" && t[0] != '#' {
		return nil, errorf(l, "unexpected text after the block scalar indicator: %q", clip(h))
	}
	ind := owner + explicit
	if explicit == 0 {
		ind = -1
		for j := p.i; j < len(p.lines); j++ {
			if !p.lines[j].empty {
				ind = p.lines[j].indent
				break
			}
		}
		if ind <= owner {
			ind = owner + 1 // no content line: the scalar is empty
		}
	}
	var lines []string
	for ; !p.eof(); p.i++ {
		n := p.cur()
		if n.empty {
			if len(n.raw) > ind {
				lines = append(lines, n.raw[ind:])
			} else {
				lines = append(lines, "")
			}
			continue
		}
		if n.indent < ind {
			break
		}
		lines = append(lines, n.raw[ind:])
	}
	// Trailing empty lines are the chomping's.
	trailing := 0
	for len(lines) > 0 && strings.Trim(lines[len(lines)-1], " \t") == "" {
		lines = lines[:len(lines)-1]
		trailing++
	}
	var b strings.Builder
	if folded {
		fold(&b, lines)
	} else {
		b.WriteString(strings.Join(lines, "\n"))
	}
	// The last line of text ends with a break, even the last line of the
	// frontmatter (whose break Split leaves out), as YAML readers have it.
	broken := min(len(lines), 1)
	switch chomp {
	case '-':
	case '+':
		b.WriteString(strings.Repeat("\n", trailing+broken))
	default:
		b.WriteString(strings.Repeat("\n", broken))
	}
	return b.String(), nil
}

// fold writes the lines of a folded block scalar: a line break between
// two lines of text becomes a space, each empty line a line break, and
// the breaks around more-indented lines stay.
func fold(b *strings.Builder, lines []string) {
	const (
		none = iota
		text
		more
	)
	prev, empty := none, 0
	for _, s := range lines {
		if s == "" {
			empty++
			continue
		}
		kind := text
		if s[0] == ' ' || s[0] == '\t' {
			kind = more
		}
		switch {
		case prev == none:
			b.WriteString(strings.Repeat("\n", empty))
		case prev == text && kind == text && empty == 0:
			b.WriteByte(' ')
		case prev == text && kind == text:
			b.WriteString(strings.Repeat("\n", empty))
		default:
			b.WriteString(strings.Repeat("\n", empty+1))
		}
		b.WriteString(s)
		prev, empty = kind, 0
	}
}
