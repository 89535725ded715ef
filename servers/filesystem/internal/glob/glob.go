// Package glob matches slash-separated relative paths against glob
// patterns the way the npm package minimatch (version 10, option dot:true)
// does, which is what the official filesystem server uses for search_files
// and the exclude patterns of directory_tree.
//
// Supported: * and ? within a path segment, ** as a whole segment (zero or
// more segments; a trailing ** needs at least one), character classes
// [abc], [a-z], [!x], [^x] with the POSIX classes [:alpha:] and the like,
// backslash escapes, brace expansion ({a,b}, nested sets, {1..9},
// {01..10}, {a..e}, with steps), the extglobs @(a|b), ?(a|b), +(a|b) and
// *(a|b), a leading ! that negates the whole pattern, and a leading # that
// makes a comment (which matches nothing). Dots are not special: * matches
// .hidden as minimatch does with dot:true.
//
// Not supported: the negated extglob !(a|b) (Compile returns
// ErrUnsupported), and bash's {a},b} quirk of brace expansion. Matching
// runs on Go's regexp package, so no pattern can make it backtrack
// exponentially, and what brace expansion yields is bounded in count
// (DefaultMaxExpansions) and in bytes (DefaultMaxExpandedLength, a
// budget that CompileWithin shares between patterns); ? matches one
// character (minimatch matches one UTF-16 code unit, which differs only
// for characters outside the Basic Multilingual Plane).
package glob

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// DefaultMaxExpansions bounds the patterns one brace expansion may yield.
const DefaultMaxExpansions = 1024

// DefaultMaxPatternLength bounds the length of a pattern, in bytes.
const DefaultMaxPatternLength = 4096

// DefaultMaxExpandedLength bounds the total length, in bytes, of the
// patterns that brace expansion yields: what Compile compiles and Match
// tries (1024 patterns of 16 bytes, not 1024 of 4 KB). CompileWithin
// shares one such budget between several patterns.
const DefaultMaxExpandedLength = 16 << 10

// ErrTooLarge is wrapped by the error of Compile and CompileWithin for a
// pattern whose brace expansion goes beyond the budget of expanded bytes.
var ErrTooLarge = errors.New("glob: the braces expand to too many bytes of patterns")

// ErrUnsupported is wrapped by the error of Compile for a pattern that
// uses a feature this package lacks.
var ErrUnsupported = errors.New("glob: unsupported pattern")

// A Pattern is a compiled glob pattern. It is safe for concurrent use.
type Pattern struct {
	negate  bool
	comment bool // # ...: matches nothing
	empty   bool // "": matches only ""
	set     [][]segment
}

// segment is one path segment of a pattern: a literal, a regular
// expression, or a globstar (**).
type segment struct {
	globstar bool
	any      bool           // stars only: any non-empty part
	suffix   string         // *.ext: any part ending so
	lit      string         // a literal
	re       *regexp.Regexp // anything else
}

func (s segment) match(part string) bool {
	switch {
	case s.re != nil:
		return s.re.MatchString(part)
	case s.any:
		return part != ""
	case s.suffix != "":
		return strings.HasSuffix(part, s.suffix)
	}
	return s.lit == part
}

// Compile compiles a pattern.
func Compile(pattern string) (*Pattern, error) {
	budget := DefaultMaxExpandedLength
	return CompileWithin(pattern, &budget)
}

// CompileWithin compiles a pattern whose brace expansion may yield at
// most *budget bytes of patterns, and takes them from *budget: patterns
// compiled within one budget (the exclude patterns of one call) cost
// what one pattern may cost.
func CompileWithin(pattern string, budget *int) (*Pattern, error) {
	if len(pattern) > DefaultMaxPatternLength {
		return nil, fmt.Errorf("glob: pattern is %d bytes long, more than the limit of %d", len(pattern), DefaultMaxPatternLength)
	}
	p := &Pattern{}
	if strings.HasPrefix(pattern, "#") {
		p.comment = true
		return p, nil
	}
	if pattern == "" {
		p.empty = true
		return p, nil
	}
	n := 0
	for n < len(pattern) && pattern[n] == '!' {
		n++
	}
	p.negate = n%2 == 1
	pattern = pattern[n:]
	expanded, err := expandBraces(pattern, DefaultMaxExpansions, max(*budget, 0))
	if err != nil {
		return nil, err
	}
	size := 0
	for _, e := range expanded {
		size += len(e)
	}
	if size > *budget {
		return nil, fmt.Errorf("%w (more than the %d left of %d)", ErrTooLarge, *budget, DefaultMaxExpandedLength)
	}
	*budget -= size
	seen := make(map[string]bool, len(expanded))
	compiled := map[string]segment{} // the expansions share most segments: each is compiled once
	for _, e := range expanded {
		if seen[e] {
			continue
		}
		seen[e] = true
		var segs []segment
		for _, part := range optimize(splitSlashes(e)) {
			s, ok := compiled[part]
			if !ok {
				if s, err = compileSegment(part); err != nil {
					return nil, err
				}
				compiled[part] = s
			}
			segs = append(segs, s)
		}
		p.set = append(p.set, segs)
	}
	return p, nil
}

// MustCompile is Compile that panics on an error; for patterns known
// to be valid.
func MustCompile(pattern string) *Pattern {
	p, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return p
}

// Match reports whether the slash-separated relative path matches.
func (p *Pattern) Match(path string) bool {
	switch {
	case p.comment:
		return false
	case p.empty:
		return path == ""
	}
	parts := splitSlashes(path)
	for _, segs := range p.set {
		if matchParts(segs, parts) {
			return !p.negate
		}
	}
	return p.negate
}

// splitSlashes splits on runs of slashes, as minimatch does.
func splitSlashes(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '/')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s = strings.TrimLeft(s[i:], "/")
	}
}

// optimize collapses adjacent ** segments and removes "x/.." pairs,
// minimatch's first level of optimization.
func optimize(parts []string) []string {
	var out []string
	for _, part := range parts {
		prev := ""
		if len(out) > 0 {
			prev = out[len(out)-1]
		}
		if part == "**" && prev == "**" && len(out) > 0 {
			continue
		}
		if part == ".." && len(out) > 0 && prev != ".." && prev != "." && prev != "**" {
			out = out[:len(out)-1]
			continue
		}
		out = append(out, part)
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// matchParts matches path parts against pattern segments: ** matches
// zero or more parts, except at the end of the pattern, where it needs
// at least one.
func matchParts(segs []segment, parts []string) bool {
	// Without a globstar, the lengths must agree.
	if countStars(segs) == 0 {
		if len(segs) != len(parts) {
			return false
		}
		for i, s := range segs {
			if !s.match(parts[i]) {
				return false
			}
		}
		return true
	}
	if stars := countStars(segs); stars == 1 {
		return matchOneStar(segs, parts)
	}
	// memo[i][j]: segs[i:] against parts[j:] (0 unknown, 1 yes, 2 no).
	memo := make([]uint8, (len(segs)+1)*(len(parts)+1))
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		k := i*(len(parts)+1) + j
		if memo[k] != 0 {
			return memo[k] == 1
		}
		var ok bool
		switch {
		case i == len(segs):
			ok = j == len(parts)
		case segs[i].globstar && i == len(segs)-1:
			ok = j < len(parts)
		case segs[i].globstar:
			for n := j; n <= len(parts) && !ok; n++ {
				ok = rec(i+1, n)
			}
		default:
			ok = j < len(parts) && segs[i].match(parts[j]) && rec(i+1, j+1)
		}
		memo[k] = 2
		if ok {
			memo[k] = 1
		}
		return ok
	}
	return rec(0, 0)
}

func countStars(segs []segment) int {
	n := 0
	for _, s := range segs {
		if s.globstar {
			n++
		}
	}
	return n
}

// matchOneStar matches a pattern with one ** without allocating: the
// segments before it match the first parts, those after it the last
// ones, and ** what lies between (at least one part when it ends the
// pattern).
func matchOneStar(segs []segment, parts []string) bool {
	k := 0
	for !segs[k].globstar {
		k++
	}
	head, tail := segs[:k], segs[k+1:]
	between := len(parts) - len(head) - len(tail)
	if between < 0 || len(tail) == 0 && between == 0 {
		return false
	}
	for i, s := range head {
		if !s.match(parts[i]) {
			return false
		}
	}
	for i, s := range tail {
		if !s.match(parts[len(parts)-len(tail)+i]) {
			return false
		}
	}
	return true
}
