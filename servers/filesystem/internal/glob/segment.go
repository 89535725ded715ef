package glob

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// compileSegment compiles one path segment of a pattern.
func compileSegment(part string) (segment, error) {
	switch part {
	case "**":
		return segment{globstar: true}, nil
	case "":
		return segment{}, nil
	}
	p := &segParser{s: part}
	src, lit, magic, err := p.seq(false)
	if err != nil {
		return segment{}, err
	}
	if !magic {
		return segment{lit: lit}, nil
	}
	if strings.Trim(part, "*") == "" {
		return segment{any: true}, nil // a segment of stars only: anything but an empty part
	}
	// *.ext, the commonest pattern, is a suffix test (as in minimatch).
	if ext := part[1:]; part[0] == '*' && !strings.ContainsAny(ext, `*?[\`) && !strings.Contains(ext, "(") {
		return segment{suffix: ext}, nil
	}
	re, err := regexp.Compile(`^(?s:` + src + `)$`)
	if err != nil {
		return segment{}, fmt.Errorf("glob: segment %q: %w", part, err)
	}
	return segment{re: re}, nil
}

// segParser turns a segment's glob into a regular expression (src) and,
// for a segment without magic, the literal it stands for (lit).
type segParser struct {
	s string
	i int
}

func isExtglob(c byte) bool {
	return c == '@' || c == '!' || c == '?' || c == '+' || c == '*'
}

// seq parses until the end of the segment, or, inside an extglob, until
// an unnested | or ).
func (p *segParser) seq(inExt bool) (src, lit string, magic bool, err error) {
	var re, l strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		if inExt && (c == '|' || c == ')') {
			break
		}
		switch {
		case c == '\\':
			if p.i == len(p.s)-1 {
				re.WriteString(`\\`)
				l.WriteByte('\\')
				p.i++
				continue
			}
			_, n := utf8.DecodeRuneInString(p.s[p.i+1:])
			esc := p.s[p.i+1 : p.i+1+n]
			re.WriteString(regexp.QuoteMeta(esc))
			l.WriteString(esc)
			p.i += 1 + n
		case isExtglob(c) && p.i+1 < len(p.s) && p.s[p.i+1] == '(':
			start := p.i
			p.i += 2
			var alts []string
			closed := false
			for {
				a, _, _, err := p.seq(true)
				if err != nil {
					return "", "", false, err
				}
				alts = append(alts, a)
				if p.i >= len(p.s) {
					break
				}
				if p.s[p.i] == ')' {
					p.i++
					closed = true
					break
				}
				p.i++ // |
			}
			if !closed { // not an extglob after all: the characters are literal
				p.i = start + 2
				re.WriteString(regexp.QuoteMeta(p.s[start : start+2]))
				l.WriteString(p.s[start : start+2])
				continue
			}
			body := "(?:" + strings.Join(alts, "|") + ")"
			switch c {
			case '@':
				re.WriteString(body)
			case '?':
				re.WriteString(body + "?")
			case '+':
				re.WriteString(body + "+")
			case '*':
				re.WriteString(body + "*")
			case '!':
				return "", "", false, fmt.Errorf("%w: the negated extglob !(...) in %q", ErrUnsupported, p.s)
			}
			magic = true
		case c == '*':
			for p.i < len(p.s) && p.s[p.i] == '*' && !(p.i+1 < len(p.s) && p.s[p.i+1] == '(') {
				p.i++
			}
			re.WriteString(".*")
			magic = true
		case c == '?':
			re.WriteString(".")
			p.i++
			magic = true
		case c == '[':
			csrc, clit, n, cmagic := parseClass(p.s, p.i)
			if n == 0 {
				re.WriteString(`\[`)
				l.WriteByte('[')
				p.i++
				continue
			}
			re.WriteString(csrc)
			l.WriteString(clit)
			magic = magic || cmagic
			p.i += n
		default:
			_, n := utf8.DecodeRuneInString(p.s[p.i:])
			re.WriteString(regexp.QuoteMeta(p.s[p.i : p.i+n]))
			l.WriteString(p.s[p.i : p.i+n])
			p.i += n
		}
	}
	return re.String(), l.String(), magic, nil
}

// posixClasses translates POSIX bracket classes as minimatch does, into
// Unicode categories; neg marks a class that is the complement of its
// translation.
var posixClasses = []struct {
	name, re string
	neg      bool
}{
	{"[:alnum:]", `\p{L}\p{Nl}\p{Nd}`, false},
	{"[:alpha:]", `\p{L}\p{Nl}`, false},
	{"[:ascii:]", `\x00-\x7f`, false},
	{"[:blank:]", `\p{Zs}\t`, false},
	{"[:cntrl:]", `\p{Cc}`, false},
	{"[:digit:]", `\p{Nd}`, false},
	{"[:graph:]", `\p{Z}\p{C}`, true},
	{"[:lower:]", `\p{Ll}`, false},
	{"[:print:]", `\p{C}`, false},
	{"[:punct:]", `\p{P}`, false},
	{"[:space:]", `\p{Z}\t\r\n\v\f`, false},
	{"[:upper:]", `\p{Lu}`, false},
	{"[:word:]", `\p{L}\p{Nl}\p{Nd}\p{Pc}`, false},
	{"[:xdigit:]", `A-Fa-f0-9`, false},
}

// classEscape escapes a character for use inside a Go character class.
func classEscape(r rune) string {
	switch r {
	case '[', ']', '\\', '-', '^':
		return `\` + string(r)
	}
	return string(r)
}

// never is a regular expression that matches nothing.
const never = `$.`

// parseClass parses the bracket expression at s[pos]. It returns the
// regular expression, the literal (when the class is one plain
// character), the bytes consumed (0: not a class, the [ is literal) and
// whether the class is magic.
func parseClass(s string, pos int) (src, lit string, consumed int, magic bool) {
	var ranges, negs []string
	i := pos + 1
	sawStart, escaping, negate := false, false, false
	var rangeStart rune = -1
	end := -1
loop:
	for i < len(s) {
		c, n := utf8.DecodeRuneInString(s[i:])
		if (c == '!' || c == '^') && i == pos+1 {
			negate = true
			i++
			continue
		}
		if c == ']' && sawStart && !escaping {
			end = i + 1
			break
		}
		sawStart = true
		if c == '\\' && !escaping {
			escaping = true
			i++
			continue
		}
		if c == '[' && !escaping {
			for _, pc := range posixClasses {
				if strings.HasPrefix(s[i:], pc.name) {
					if rangeStart >= 0 {
						return never, "", len(s) - pos, true
					}
					i += len(pc.name)
					if pc.neg {
						negs = append(negs, pc.re)
					} else {
						ranges = append(ranges, pc.re)
					}
					continue loop
				}
			}
		}
		escaping = false
		if rangeStart >= 0 {
			if c > rangeStart {
				ranges = append(ranges, classEscape(rangeStart)+"-"+classEscape(c))
			} else if c == rangeStart {
				ranges = append(ranges, classEscape(c))
			}
			rangeStart = -1
			i += n
			continue
		}
		if strings.HasPrefix(s[i+n:], "-]") {
			ranges = append(ranges, classEscape(c)+`\-`)
			i += n + 1
			continue
		}
		if strings.HasPrefix(s[i+n:], "-") {
			rangeStart = c
			i += n + 1
			continue
		}
		ranges = append(ranges, classEscape(c))
		i += n
	}
	if end < 0 {
		return "", "", 0, false
	}
	if len(ranges) == 0 && len(negs) == 0 {
		return never, "", len(s) - pos, true
	}
	if len(negs) == 0 && len(ranges) == 1 && !negate {
		r := strings.TrimPrefix(ranges[0], `\`)
		if utf8.RuneCountInString(r) == 1 {
			return regexp.QuoteMeta(r), r, end - pos, false
		}
	}
	not := ""
	if negate {
		not = "^"
	}
	sr := "[" + not + strings.Join(ranges, "") + "]"
	sn := ""
	if len(negs) > 0 {
		if negate {
			sn = "[" + strings.Join(negs, "") + "]"
		} else {
			sn = "[^" + strings.Join(negs, "") + "]"
		}
	}
	switch {
	case len(ranges) > 0 && len(negs) > 0:
		return "(?:" + sr + "|" + sn + ")", "", end - pos, true
	case len(ranges) > 0:
		return sr, "", end - pos, true
	}
	return sn, "", end - pos, true
}
