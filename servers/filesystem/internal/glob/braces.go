package glob

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Sentinels standing for escaped characters during brace expansion; a
// pattern cannot hold NUL (no file name can), so they never collide.
const (
	escSlash  = "\x00S\x00"
	escOpen   = "\x00O\x00"
	escClose  = "\x00C\x00"
	escComma  = "\x00M\x00"
	escPeriod = "\x00P\x00"
)

var (
	escaper   = strings.NewReplacer(`\\`, escSlash, `\{`, escOpen, `\}`, escClose, `\,`, escComma, `\.`, escPeriod)
	unescaper = strings.NewReplacer(escSlash, `\`, escOpen, "{", escClose, "}", escComma, ",", escPeriod, ".")

	// The sequence patterns, compiled at their first use rather than at
	// start-up: every run of the mcpwire command paid for them.
	seqs = sync.OnceValue(func() (r struct{ numeric, alpha, padded *regexp.Regexp }) {
		r.numeric = regexp.MustCompile(`^-?\d+\.\.-?\d+(?:\.\.-?\d+)?$`)
		r.alpha = regexp.MustCompile(`^[a-zA-Z]\.\.[a-zA-Z](?:\.\.-?\d+)?$`)
		r.padded = regexp.MustCompile(`^-?0\d`)
		return r
	})
)

// hasBraceSet reports whether s holds a { followed by a } on the same
// line with no { between: minimatch expands braces only then.
func hasBraceSet(s string) bool {
	open := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			open = i
		case '}':
			if open >= 0 {
				return true
			}
		case '\n', '\r':
			open = -1
		}
	}
	return false
}

// expandBraces expands the brace sets of a pattern the way the npm
// package brace-expansion does (bash's rules), yielding at most max
// patterns of maxBytes in all.
func expandBraces(s string, max, maxBytes int) ([]string, error) {
	if !hasBraceSet(s) {
		return []string{s}, nil
	}
	if strings.Contains(s, "\x00") {
		return nil, fmt.Errorf("glob: a pattern cannot contain NUL")
	}
	if strings.HasPrefix(s, "{}") {
		s = `\{\}` + s[2:]
	}
	e := &expander{max: max, maxBytes: maxBytes}
	out, err := e.expand(escaper.Replace(s), true)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i] = unescaper.Replace(out[i])
	}
	return out, nil
}

type expander struct {
	max      int // patterns
	maxBytes int // their total length
	depth    int
}

// group finds the first brace set of s whose braces match, skipping
// unmatched opening braces.
func group(s string) (pre, body, post string, ok bool) {
	var stack []int
	closeOf := map[int]int{}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			stack = append(stack, i)
		case '}':
			if len(stack) > 0 {
				closeOf[stack[len(stack)-1]] = i
				stack = stack[:len(stack)-1]
			}
		}
	}
	for i := 0; i < len(s); i++ {
		if c, found := closeOf[i]; found && s[i] == '{' {
			return s[:i], s[i+1 : c], s[c+1:], true
		}
	}
	return "", "", "", false
}

func (e *expander) combine(acc []string, pre string, values []string, dropEmpties bool) ([]string, error) {
	out := make([]string, 0, len(acc)*len(values))
	size := 0
	for _, a := range acc {
		prefix := a + pre
		for _, v := range values {
			if dropEmpties && prefix == "" && v == "" {
				continue
			}
			if len(out) >= e.max {
				return nil, fmt.Errorf("glob: the pattern's braces expand to more than %d patterns", e.max)
			}
			if size += len(prefix) + len(v); size > e.maxBytes {
				return nil, fmt.Errorf("%w (more than %d)", ErrTooLarge, e.maxBytes)
			}
			out = append(out, prefix+v)
		}
	}
	return out, nil
}

func (e *expander) expand(str string, isTop bool) ([]string, error) {
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > 100 {
		return nil, fmt.Errorf("glob: braces nested more than 100 deep")
	}
	acc := []string{""}
	dropEmpties, firstGroup := false, true
	for {
		pre, body, post, ok := group(str)
		if !ok {
			return e.combine(acc, str, []string{""}, dropEmpties)
		}
		if strings.HasSuffix(pre, "$") {
			var err error
			if acc, err = e.combine(acc, pre+"{"+body+"}", []string{""}, dropEmpties && post == ""); err != nil {
				return nil, err
			}
			firstGroup = false
			if post == "" {
				return acc, nil
			}
			str = post
			continue
		}
		numSeq, alSeq := seqs().numeric.MatchString(body), seqs().alpha.MatchString(body)
		isSeq := numSeq || alSeq
		if !isSeq && !strings.Contains(body, ",") {
			return e.combine(acc, pre+"{"+body+"}"+post, []string{""}, dropEmpties)
		}
		if firstGroup {
			dropEmpties = isTop && !isSeq
			firstGroup = false
		}
		var values []string
		if isSeq {
			var err error
			if values, err = e.sequence(body, alSeq); err != nil {
				return nil, err
			}
		} else {
			parts := commaParts(body)
			if len(parts) == 1 {
				inner, err := e.expand(parts[0], false)
				if err != nil {
					return nil, err
				}
				for i := range inner {
					inner[i] = "{" + inner[i] + "}"
				}
				if len(inner) == 1 {
					if acc, err = e.combine(acc, pre+inner[0], []string{""}, dropEmpties && post == ""); err != nil {
						return nil, err
					}
					if post == "" {
						return acc, nil
					}
					str = post
					continue
				}
				values = inner
			} else {
				for _, part := range parts {
					ex, err := e.expand(part, false)
					if err != nil {
						return nil, err
					}
					values = append(values, ex...)
					if len(values) > e.max {
						return nil, fmt.Errorf("glob: the pattern's braces expand to more than %d patterns", e.max)
					}
				}
			}
		}
		var err error
		if acc, err = e.combine(acc, pre, values, dropEmpties && post == ""); err != nil {
			return nil, err
		}
		if post == "" {
			return acc, nil
		}
		str = post
	}
}

// commaParts splits a set's body on its top-level commas.
func commaParts(s string) []string {
	var parts []string
	depth, start := 0, 0
	// Only braces that match count as nesting.
	matched := make([]bool, len(s))
	var stack []int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			stack = append(stack, i)
		case '}':
			if len(stack) > 0 {
				matched[stack[len(stack)-1]] = true
				matched[i] = true
				stack = stack[:len(stack)-1]
			}
		}
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '{' && matched[i]:
			depth++
		case s[i] == '}' && matched[i]:
			depth--
		case s[i] == ',' && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// numeric reads a sequence bound: a number, or the code of a character.
func numeric(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return int([]rune(s)[0])
}

func (e *expander) sequence(body string, alpha bool) ([]string, error) {
	n := strings.Split(body, "..")
	x, y := numeric(n[0]), numeric(n[1])
	width := max(len(n[0]), len(n[1]))
	incr := 1
	if len(n) == 3 {
		incr = max(abs(numeric(n[2])), 1)
	}
	reverse := y < x
	if reverse {
		incr = -incr
	}
	pad := false
	for _, part := range n {
		pad = pad || seqs().padded.MatchString(part)
	}
	var out []string
	for i := x; (!reverse && i <= y) || (reverse && i >= y); i += incr {
		if len(out) >= e.max {
			return nil, fmt.Errorf("glob: the sequence {%s} has more than %d values", body, e.max)
		}
		var c string
		if alpha {
			c = string(rune(i))
			if c == `\` {
				c = ""
			}
		} else {
			c = strconv.Itoa(i)
			if pad && len(c) < width {
				z := strings.Repeat("0", width-len(c))
				if i < 0 {
					c = "-" + z + c[1:]
				} else {
					c = z + c
				}
			}
		}
		out = append(out, c)
	}
	return out, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
