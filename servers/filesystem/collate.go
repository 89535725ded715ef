package filesystem

// The official server sorts list_directory_with_sizes by name with
// a.name.localeCompare(b.name). Before issue 19 the package did that with
// golang.org/x/text/collate's root collation (collate.New(language.English):
// the Unicode Collation Algorithm with CLDR 23's root table at its defaults:
// three levels, punctuation and symbols not ignorable, no numeric
// ordering, no identical level: canonically equivalent strings compare
// equal), whose tables, with every locale's tailoring, weighed 1.7 MB of
// the mcpwire binary.
//
// compareNames is that comparison with a table of the root collation
// alone: collate_table.bin (see collate_data.go), written by
// collate_gen.go, which reads every weight from x/text at generation time
// (x/text is a test and generator dependency only). It orders names as x/text does (the tests compare the
// two on every table entry, on random and adversarial strings and by
// fuzzing), except in two corners (invalid UTF-8; combining marks out of
// canonical order) listed in docs/rough_edges.md, which the tests state
// as explicit tolerances.
//
// How: the input is decomposed (NFD, with golang.org/x/text/unicode/norm,
// which the package links anyway for resolve.go) and put in canonical
// order; each character, or each contraction (l· and the Cyrillic,
// Arabic, Indic, Thai, Lao and Tibetan sequences the table weighs as one,
// matched also when other combining marks come between, as the algorithm
// asks),
// gets collation elements from the table: each a primary weight (the
// letter), a secondary one (accents) and a tertiary one (case and
// variants). A code point the table does not hold (Han, unassigned, private
// use) gets x/text's implicit weight, computed from the code point. Two
// strings compare by their primaries, then their secondaries, then their
// tertiaries, zeros skipped.
//
// Cost: linear in the length of the names (a run of combining marks is
// put in order 30 at a time, as x/text does, so a long run cannot make
// it quadratic); the primary weights are compared a piece at a time, so
// names that differ early cost little; no allocation unless a name has
// more than 64 characters or collation elements (the buffers live on
// the stack).

import (
	"bytes"
	"encoding/binary"
	"slices"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

//go:generate go run collate_gen.go

// A table entry (one per code point: see collate_data.go) is 0 (ignorable),
// collFallback (the implicit weight), an expansion (expansionFlag, the
// index of its first word in the expansions in bits 8–30, the count of elements in bits
// 0–7; each element there is two words: the primary weight, then the
// secondary rank << 8 | the tertiary weight), or one packed collation
// element: the primary weight in bits 14–29, the rank of the secondary
// weight in bits 5–13, the tertiary weight in bits 0–4.
const (
	collFallback  = 0xFFFFFFFF
	expansionFlag = 1 << 31
	blockBits     = 7 // the index has an entry for each 1<<blockBits code points
	tertiaryLower = 2 // the tertiary weight of lowercase and uncased letters
	maxCombining  = 30
	invalidByte   = -2 // an nfdRune for a byte that is not valid UTF-8
	takenRune     = -1 // an nfdRune taken by a contraction
)

// A colElem is a collation element: its primary weight, the rank of its
// secondary weight and its tertiary weight.
type colElem struct {
	p uint32
	s uint16
	t uint8
}

// compareNames compares a and b as x/text's root collation does (see
// above): -1, 0 or +1.
func compareNames(a, b string) int {
	// Skip the common prefix of ASCII characters, up to one that cannot
	// be part of a contraction or of a reordering with what follows.
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] && a[i] < utf8.RuneSelf {
		i++
	}
	if i > 0 && (i < len(a) && a[i] >= utf8.RuneSelf || i < len(b) && b[i] >= utf8.RuneSelf) {
		i-- // what follows may be a combining mark, or · after l
	}
	a, b = a[i:], b[i:]
	if isASCII(a) && isASCII(b) {
		return compareASCII(a, b)
	}
	// Most names differ in their primary weights, and early: compare
	// those a piece at a time first.
	var ea, eb [64]colElem
	var rs [64]nfdRune
	pa, pb := primaries{s: a}, primaries{s: b}
	for {
		x, okx := pa.next(&ea, &rs)
		y, oky := pb.next(&eb, &rs)
		if !okx || !oky {
			break // a piece with more than 64 elements: weigh the whole
		}
		if x != y {
			return cmp3(x, y)
		}
		if x == 0 {
			break
		}
	}
	return compareAll(a, b)
}

// compareAll compares a and b at all levels. (A function of its own, so
// that compareNames does not clear its buffers when the primary weights
// decide.)
//
//go:noinline
func compareAll(a, b string) int {
	var ea, eb [64]colElem
	var ra, rb [64]nfdRune
	return compareElems(appendElems(ea[:0], ra[:0], a), appendElems(eb[:0], rb[:0], b))
}

// primaries yields the primary weights of s, weighing it a piece at a
// time. A piece ends before an ASCII character: no contraction has one
// after its first character, and none is reordered, so the elements of
// the pieces are those of the whole.
type primaries struct {
	s    string
	k, n int // the piece's elements not yet read: buf[k:n]
}

// next returns the next nonzero primary weight, or 0 at the end; buf and
// rs are buffers for the piece's elements and decomposition (kept by the
// caller, so that they stay on its stack). It returns false if a piece
// has more elements than buf holds.
func (p *primaries) next(buf *[64]colElem, rs *[64]nfdRune) (uint32, bool) {
	for {
		for p.k < p.n {
			w := buf[p.k].p
			p.k++
			if w != 0 {
				return w, true
			}
		}
		if p.s == "" {
			return 0, true
		}
		end := 1
		for end < len(p.s) && p.s[end] >= utf8.RuneSelf {
			end++
		}
		ces := appendElems(buf[:0], rs[:0], p.s[:end])
		if len(ces) > len(buf) {
			return 0, false
		}
		p.s, p.k, p.n = p.s[end:], 0, len(ces)
	}
}

// sortByName sorts list by name, stably, as compareNames orders names. It
// weighs each name once: a key of its primary weights orders most pairs,
// compareNames the names whose primaries are equal, and their places in
// list those that compare equal.
func sortByName[T any](list []T, name func(T) string) {
	var keys []byte                // the keys, one after the other
	ends := make([]int, len(list)) // the end of each key in keys
	order := make([]int32, len(list))
	for i, v := range list {
		keys = appendPrimaryKey(keys, name(v))
		ends[i], order[i] = len(keys), int32(i)
	}
	key := func(i int32) []byte {
		if i == 0 {
			return keys[:ends[0]]
		}
		return keys[ends[i-1]:ends[i]]
	}
	slices.SortFunc(order, func(i, j int32) int {
		if c := bytes.Compare(key(i), key(j)); c != 0 {
			return c
		}
		if c := compareNames(name(list[i]), name(list[j])); c != 0 {
			return c
		}
		return int(i - j)
	})
	sorted := make([]T, len(list))
	for k, i := range order {
		sorted[k] = list[i]
	}
	copy(list, sorted)
}

// appendPrimaryKey appends the primary weights of s, four bytes each, big
// endian: keys compare as the primary weights do.
func appendPrimaryKey(key []byte, s string) []byte {
	var ces [64]colElem
	var rs [64]nfdRune
	for _, e := range appendElems(ces[:0], rs[:0], s) {
		if e.p != 0 {
			key = binary.BigEndian.AppendUint32(key, e.p)
		}
	}
	return key
}

// asciiElems are the collation elements of the ASCII characters, each one
// element (or none: the controls other than \t to \r are ignorable).
var asciiElems = func() (t [utf8.RuneSelf]colElem) {
	for c := range t {
		var buf [1]colElem
		if ces := appendEntry(buf[:0], tableEntry(rune(c)), rune(c)); len(ces) == 1 {
			t[c] = ces[0]
		}
	}
	return t
}()

// compareASCII compares two ASCII strings.
func compareASCII(a, b string) int {
	for level := range 3 {
		i, j := 0, 0
		for {
			var x, y uint32
			for ; i < len(a); i++ {
				if x = weight(asciiElems[a[i]], level); x != 0 {
					break
				}
			}
			for ; j < len(b); j++ {
				if y = weight(asciiElems[b[j]], level); y != 0 {
					break
				}
			}
			if x != y {
				return cmp3(x, y) // a string that ends (0) sorts first
			}
			if x == 0 {
				break
			}
			i++
			j++
		}
	}
	return 0
}

func cmp3(x, y uint32) int {
	if x < y {
		return -1
	}
	return 1
}

// compareElems compares two strings' collation elements level by level,
// skipping the zero weights of each level.
func compareElems(a, b []colElem) int {
	for level := range 3 {
		i, j := 0, 0
		for {
			var x, y uint32
			for ; i < len(a); i++ {
				if x = weight(a[i], level); x != 0 {
					break
				}
			}
			for ; j < len(b); j++ {
				if y = weight(b[j], level); y != 0 {
					break
				}
			}
			if x != y {
				return cmp3(x, y)
			}
			if x == 0 {
				break
			}
			i++
			j++
		}
	}
	return 0
}

func weight(e colElem, level int) uint32 {
	switch level {
	case 0:
		return e.p
	case 1:
		return uint32(e.s)
	}
	return uint32(e.t)
}

// An nfdRune is a character of a decomposed string and its canonical
// combining class.
type nfdRune struct {
	r   rune // or takenRune, invalidByte
	ccc uint8
	// part is 0 for a whole character. A compatibility character whose
	// decomposition ends in k combining marks (ﳲ = ـ + fatha + shadda)
	// and that x/text weighs by that decomposition (the split table,
	// found by collate_gen.go) comes in k+1 parts, so that the marks that
	// follow it are put in order with those it ends with, as x/text does:
	// the head (part headPart|k, weighed as the character less its last k
	// elements), then one part for each of the marks (part j: the element
	// j-th from the end), each with the mark's class.
	part uint8
}

const headPart = 0x80

// appendElems appends the collation elements of s; rs is a buffer for its
// decomposition.
func appendElems(ces []colElem, rs []nfdRune, s string) []colElem {
	rs = appendNFD(rs, s)
	for i := range rs {
		r := rs[i].r
		if r == takenRune {
			continue
		}
		if e, ok := contract(rs, i); ok {
			ces = appendEntry(ces, e, 0)
			continue
		}
		if r == invalidByte {
			ces = append(ces, colElem{uint32(implicitPrimary(utf8.RuneError)), collSecondaryCommon, tertiaryLower})
			continue
		}
		if x := rs[i]; x.part != 0 {
			ces = appendPart(ces, x)
			continue
		}
		ces = appendEntry(ces, tableEntry(r), r)
	}
	return ces
}

// appendPart appends the elements of a part of a character (see nfdRune).
func appendPart(ces []colElem, x nfdRune) []colElem {
	var buf [32]colElem
	es := appendEntry(buf[:0], tableEntry(x.r), x.r)
	k := int(x.part &^ headPart)
	if x.part&headPart != 0 {
		return append(ces, es[:max(len(es)-k, 0)]...)
	}
	if k <= len(es) {
		ces = append(ces, es[len(es)-k])
	}
	return ces
}

// contract finds the longest contraction that starts at rs[i]: the
// following characters, or combining marks further on that no mark of
// the same class precedes (the UCA's discontiguous match), which it takes.
func contract(rs []nfdRune, i int) (uint32, bool) {
	first := rs[i].r
	if first < 0 || contractionStarts[first&4095>>6]&(1<<(first&63)) == 0 {
		return 0, false // no contraction starts with first
	}
	cs := collData[collContractionsOff:collSplitOff] // (a local: loaded once)
	lo, hi := 0, collContractionCount                // the first contraction that starts with first
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); rune(word(cs, 16*m)) < first {
			lo = m + 1
		} else {
			hi = m
		}
	}
	var best collContraction
	found := false
	var bestAt [2]int
	for k := lo; k < collContractionCount && rune(word(cs, 16*k)) == first; k++ {
		c := collContraction{[3]rune{first, rune(word(cs, 16*k+4)), rune(word(cs, 16*k+8))}, 0}
		n := 2
		if c.runes[2] != 0 {
			n = 3
		}
		if found && n <= 2 {
			continue
		}
		var at [2]int
		last := i
		ok := true
		for m := 1; m < n && ok; m++ {
			at[m-1], ok = match(rs, last, c.runes[m])
			last = at[m-1]
		}
		if ok && (!found || n == 3) {
			c.entry = word(cs, 16*k+12)
			best, bestAt, found = c, at, true
		}
	}
	if !found {
		return 0, false
	}
	rs[bestAt[0]].r = takenRune
	if best.runes[2] != 0 {
		rs[bestAt[1]].r = takenRune
	}
	return best.entry, true
}

// contractionStarts has bit r&4095 set for the first character r of each
// contraction: a quick test that most characters fail.
var contractionStarts = func() (bits [64]uint64) {
	for k := range collContractionCount {
		r := contractionFirst(k) & 4095
		bits[r>>6] |= 1 << (r & 63)
	}
	return bits
}()

// match finds r after rs[last]: next to it, or a combining mark that no
// mark of the same or a higher class precedes, within maxCombining.
func match(rs []nfdRune, last int, r rune) (int, bool) {
	for j := last + 1; j < len(rs) && j <= last+maxCombining; j++ {
		if j > last+1 {
			if rs[j].ccc == 0 {
				break
			}
			if rs[j-1].r != takenRune && rs[j-1].ccc >= rs[j].ccc {
				continue // blocked
			}
		}
		if rs[j].r == r {
			return j, true
		}
		if rs[j].ccc == 0 {
			break
		}
	}
	return 0, false
}

// appendNFD appends the canonical decomposition of s, in canonical order
// (a run of more than maxCombining combining marks is ordered in parts,
// as x/text does). An invalid byte is invalidByte.
func appendNFD(out []nfdRune, s string) []nfdRune {
	run := 0 // combining marks at the end of out
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			out = append(out, nfdRune{rune(c), 0, 0})
			run = 0
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			out = append(out, nfdRune{invalidByte, 0, 0})
			run = 0
			i++
			continue
		}
		if r >= hangulBase && r < hangulBase+hangulCount {
			// Hangul syllables decompose by arithmetic.
			x := r - hangulBase
			out = append(out, nfdRune{0x1100 + x/(21*28), 0, 0}, nfdRune{0x1161 + x%(21*28)/28, 0, 0})
			if t := x % 28; t != 0 {
				out = append(out, nfdRune{0x11A7 + t, 0, 0})
			}
			run = 0
		} else if p := norm.NFD.PropertiesString(s[i : i+n]); p.Decomposition() != nil && tableEntry(r) == collFallback {
			// (A character the table holds, though it decomposes, is one
			// newer than x/text's table: x/text weighs it, not its
			// parts.)
			d := p.Decomposition()
			for len(d) > 0 {
				q := norm.NFD.Properties(d)
				dr, m := utf8.DecodeRune(d)
				out, run = appendOrdered(out, nfdRune{dr, q.CCC(), 0}, run)
				d = d[m:]
			}
		} else {
			out, run = appendCompat(out, r, p.CCC(), s[i:i+n], run)
		}
		i += n
	}
	return out
}

// appendCompat appends r, in parts if it is a compatibility character
// whose decomposition ends in combining marks (see nfdRune).
func appendCompat(out []nfdRune, r rune, ccc uint8, s string, run int) ([]nfdRune, int) {
	q := norm.NFKD.PropertiesString(s)
	if q.TrailCCC() == 0 || ccc != 0 || !isSplit(r) {
		return appendOrdered(out, nfdRune{r, ccc, 0}, run)
	}
	var marks [4]uint8 // the classes of the last marks, last first
	k := 0
	for d := q.Decomposition(); len(d) > 0 && k < len(marks); {
		_, m := utf8.DecodeLastRune(d)
		c := norm.NFKD.Properties(d[len(d)-m:]).CCC()
		if c == 0 {
			break
		}
		marks[k] = c
		k++
		d = d[:len(d)-m]
	}
	out, run = appendOrdered(out, nfdRune{r, 0, headPart | uint8(k)}, run)
	for j := k; j > 0; j-- {
		out, run = appendOrdered(out, nfdRune{r, marks[j-1], uint8(j)}, run)
	}
	return out, run
}

const (
	hangulBase  = 0xAC00
	hangulCount = 19 * 21 * 28
)

// appendOrdered appends x, moving a combining mark before the marks of a
// higher class that precede it (canonical ordering), among the last run
// marks; it returns the new run.
func appendOrdered(out []nfdRune, x nfdRune, run int) ([]nfdRune, int) {
	out = append(out, x)
	if x.ccc == 0 {
		return out, 0
	}
	if run == maxCombining {
		run = 0 // start a new run: bounded work per mark
	}
	k := len(out) - 1
	for lo := k - run; k > lo && out[k-1].ccc > x.ccc; k-- {
		out[k] = out[k-1]
	}
	out[k] = x
	return out, run + 1
}

// appendEntry appends the collation elements of a table entry, that of r.
func appendEntry(ces []colElem, e uint32, r rune) []colElem {
	switch {
	case e == 0:
		return ces
	case e == collFallback:
		return append(ces, colElem{uint32(implicitPrimary(r)), collSecondaryCommon, tertiaryLower})
	case e&expansionFlag != 0:
		i, n := int(e>>8&0x7FFFFF), int(e&0xFF)
		for k := i; k < i+2*n; k += 2 {
			st := collExpansion(k + 1)
			ces = append(ces, colElem{collExpansion(k), uint16(st >> 8), uint8(st)})
		}
		return ces
	}
	return append(ces, colElem{e >> 14 & 0xFFFF, uint16(e >> 5 & 0x1FF), uint8(e & 0x1F)})
}

// implicitPrimary is x/text's primary weight for a code point its table
// does not hold: Han characters (the common ones first), then the others,
// in code point order.
func implicitPrimary(r rune) int {
	if unicode.Is(unicode.Ideographic, r) {
		if r >= 0x4E00 && r <= 0x9FFF || r >= 0xF900 && r <= 0xFAFF {
			return int(r) + 0x10000
		}
		return int(r) + 0x20000
	}
	return int(r) + 0x50000
}
