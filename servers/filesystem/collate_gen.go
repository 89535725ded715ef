//go:build ignore

// collate_gen writes collate_table.bin, the weights of compareNames (see
// collate.go; the format is in collate_data.go), and collate_table.go,
// which embeds it and gives its sizes and checksum, from
// golang.org/x/text/collate's root collation (CLDR 23, what
// collate.New(language.English) uses). Run it with go generate (or go run
// collate_gen.go in this directory); it needs nothing but the module's
// own dependencies, takes about thirty seconds of CPU (shared among the
// CPUs), and writes the same files on
// every run (the code points are visited in order, and no map is iterated
// into the output): TestCollateTableGenerated checks that the committed
// files are what it writes.
//
// Nothing is copied: every weight is read from x/text at generation time.
// For each code point that NFD leaves alone, the x/text sort key of the
// code point alone gives its weights, level by level: primaries,
// secondaries, tertiaries. Because the levels are compared one after the
// other over the whole string, only each level's sequence matters, not
// which secondary came with which primary: element k of a character is
// (primary k, secondary k, tertiary k), each 0 where the level's list is
// shorter. A code point whose weights are x/text's implicit ones (Han,
// unassigned: computed from the code point) is not stored.
//
// Contractions (several characters weighed as one) are found by asking
// x/text for the key of each pair of a stored character and a candidate
// second character (combining marks, the Thai and Lao consonants, and
// the middle dot), then each found pair followed by a candidate, and
// with a candidate between (ྲཱྀ); where the key differs from the
// concatenation of the parts' keys (and from the other ways x/text could
// have weighed the parts), the sequence is a contraction. Pairs that
// x/text reorders (see reorders) are left out. The compatibility
// characters that x/text weighs by their decomposition with the marks'
// classes (collSplit) are found by putting U+0334 after each.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// Must agree with collate.go.
const (
	collFallback  = 0xFFFFFFFF
	expansionFlag = 1 << 31
	blockBits     = 7
	maxSecondary  = 1<<9 - 1
	maxTertiary   = 1<<5 - 1
)

// A weigher weighs strings with a collator of its own (a Collator is
// not safe for concurrent use).
type weigher struct {
	col *collate.Collator
	buf collate.Buffer
}

func newWeigher() *weigher { return &weigher{col: collate.New(language.English)} }

var main0 = newWeigher() // main's

type levels struct{ p, s, t []int }

// weigh returns the weights of s with main's weigher.
func weigh(s string) levels { return main0.weigh(s) }

// weigh returns the weights of s, level by level, from its x/text key.
func (w *weigher) weigh(s string) levels {
	w.buf.Reset()
	k := w.col.KeyFromString(&w.buf, s)
	var l levels
	i := 0
	for ; k[i] != 0 || k[i+1] != 0; i += 2 {
		if k[i]&0x80 != 0 {
			l.p = append(l.p, int(k[i]&0x7F)<<16|int(k[i+1])<<8|int(k[i+2]))
			i++
		} else {
			l.p = append(l.p, int(k[i])<<8|int(k[i+1]))
		}
	}
	for i += 2; k[i] != 0 || k[i+1] != 0; i += 2 {
		l.s = append(l.s, int(k[i])<<8|int(k[i+1]))
	}
	for i += 2; i < len(k); i++ {
		l.t = append(l.t, int(k[i]))
	}
	return l
}

func (l levels) equal(m levels) bool {
	return slices.Equal(l.p, m.p) && slices.Equal(l.s, m.s) && slices.Equal(l.t, m.t)
}

func concat(a, b levels) levels {
	return levels{append(slices.Clone(a.p), b.p...), append(slices.Clone(a.s), b.s...), append(slices.Clone(a.t), b.t...)}
}

// implicitPrimary is x/text's primary weight for a code point it has no
// weight for (collate.go has the same).
func implicitPrimary(r rune) int {
	if unicode.Is(unicode.Ideographic, r) {
		if r >= 0x4E00 && r <= 0x9FFF || r >= 0xF900 && r <= 0xFAFF {
			return int(r) + 0x10000
		}
		return int(r) + 0x20000
	}
	return int(r) + 0x50000
}

const minImplicit = 0x10000

// outDir is where the files are written (the test that checks that the
// committed files are the generator's writes them elsewhere).
var outDir = flag.String("o", ".", "the `directory` to write collate_table.go and collate_table.bin in")

func main() {
	flag.Parse()
	common := weigh("a").s[0]
	lower := weigh("a").t[0]
	weights := map[rune]levels{}
	var runes []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue // surrogates
		}
		l := weigh(string(r))
		if norm.NFD.String(string(r)) != string(r) {
			// compareNames decomposes r, unless x/text has no weights for
			// it (a character newer than its table): x/text then gives r,
			// not its parts, an implicit weight. The table stores that
			// weight, which tells compareNames not to decompose r.
			if r < 0xAC00 || r > 0xD7A3 {
				if len(l.p) == 1 && l.p[0] == implicitPrimary(r) {
					weights[r] = l
					runes = append(runes, r)
				}
			}
			continue
		}
		if len(l.p) == 1 && l.p[0] == implicitPrimary(r) && slices.Equal(l.s, []int{common}) && slices.Equal(l.t, []int{lower}) {
			continue
		}
		weights[r] = l
		runes = append(runes, r)
	}

	// Contractions.
	var seconds []rune
	for r := range unicode.MaxRune + 1 {
		if _, ok := weights[r]; ok && (unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) ||
			r >= 0x0E01 && r <= 0x0E2E || r >= 0x0E81 && r <= 0x0EAE || r >= 0x0EDC && r <= 0x0EDF || r == 0x00B7 || r == 0x0387) {
			seconds = append(seconds, r)
		}
	}
	type contraction struct {
		s string
		l levels
	}
	// The pairs: most of the time, shared among the CPUs, each result in
	// its character's place (the order of runes).
	pairs := make([][]contraction, len(runes))
	var wg sync.WaitGroup
	for k, n := 0, runtime.NumCPU(); k < n; k++ {
		wg.Go(func() {
			w := newWeigher()
			for i := k; i < len(runes); i += n {
				a := runes[i]
				for _, b := range seconds {
					s := string(a) + string(b)
					if !norm.NFD.IsNormalString(s) || reorders(a, b) {
						continue
					}
					if l := w.weigh(s); !l.equal(concat(weights[a], weights[b])) {
						pairs[i] = append(pairs[i], contraction{s, l})
					}
				}
			}
		})
	}
	wg.Wait()
	var found []contraction
	for _, p := range pairs {
		found = append(found, p...)
	}
	for _, c := range slices.Clone(found) {
		for _, b := range seconds {
			s := c.s + string(b)
			if !norm.NFD.IsNormalString(s) || reorders(lastRune(c.s), b) {
				continue
			}
			if l := weigh(s); !l.equal(concat(c.l, weights[b])) {
				found = append(found, contraction{s, l})
			}
		}
	}
	// Three characters a b c weighed as one where a b is none, but a c
	// is (ྲཱྀ: U+0FB2 U+0F71 U+0F80).
	for _, c := range slices.Clone(found) {
		rs := []rune(c.s)
		if len(rs) != 2 {
			continue
		}
		for _, b := range seconds {
			s := string(rs[0]) + string(b) + string(rs[1])
			if !norm.NFD.IsNormalString(s) || reorders(rs[0], b) {
				continue
			}
			l := weigh(s)
			if l.equal(concat(c.l, weights[b])) || l.equal(concat(weigh(string(rs[0])+string(b)), weights[rs[1]])) ||
				l.equal(concat(concat(weights[rs[0]], weights[b]), weights[rs[1]])) ||
				l.equal(concat(weights[rs[0]], weigh(string(b)+string(rs[1])))) {
				continue
			}
			found = append(found, contraction{s, l})
		}
	}
	slices.SortFunc(found, func(a, b contraction) int { return cmpRunes(a.s, b.s) })
	found = slices.CompactFunc(found, func(a, b contraction) bool { return a.s == b.s })

	// Compatibility characters whose decomposition ends in combining
	// marks that x/text puts in order with the marks that follow (it
	// weighs them by their decomposition, the elements keeping the
	// marks' classes); compareNames weighs these in parts (see nfdRune).
	var split []rune
	for _, r := range runes {
		q := norm.NFKD.PropertiesString(string(r))
		if q.TrailCCC() == 0 || q.CCC() != 0 || norm.NFD.String(string(r)) != string(r) {
			continue
		}
		if l := weigh(string(r) + "\u0334"); !l.equal(concat(weights[r], weights['\u0334'])) {
			split = append(split, r)
		}
	}

	// Ranks of the secondary weights; primaries are x/text's.
	secs := map[int]bool{}
	check := func(l levels) {
		for _, w := range l.s {
			secs[w] = true
		}
		for _, w := range l.t {
			if w > maxTertiary {
				log.Fatalf("tertiary %d", w)
			}
		}
		for _, w := range l.p {
			if w >= minImplicit && w < 0x14E00 {
				log.Fatalf("primary %#x in the implicit range", w)
			}
		}
	}
	for _, r := range runes {
		check(weights[r])
	}
	for _, c := range found {
		check(c.l)
	}
	var sl []int
	for w := range secs {
		sl = append(sl, w)
	}
	slices.Sort(sl)
	srank := map[int]int{}
	for i, w := range sl {
		srank[w] = i + 1
	}
	if len(sl) > maxSecondary {
		log.Fatalf("%d secondaries", len(sl))
	}

	// Elements: inline (one element with a primary below minImplicit) or
	// an expansion: two words per element, the primary, then the
	// secondary rank << 8 | the tertiary.
	var expansions []uint32
	var entryOf func([][3]int) uint32
	expIndex := map[string]int{}
	elems := func(l levels) [][3]int {
		n := max(len(l.p), len(l.s), len(l.t))
		out := make([][3]int, n)
		for k := range out {
			if k < len(l.p) {
				out[k][0] = l.p[k]
			}
			if k < len(l.s) {
				out[k][1] = srank[l.s[k]]
			}
			if k < len(l.t) {
				out[k][2] = l.t[k]
			}
		}
		return out
	}
	// The elements of a character of split, which compareNames weighs in
	// parts, must be its true ones, not the levels zipped: those of the
	// characters of its decomposition, one each, with the character's
	// tertiary weights (x/text's way, checked against its key).
	splitElems := map[rune][][3]int{}
	for _, r := range split {
		var es [][3]int
		for _, x := range norm.NFKD.String(string(r)) {
			l := weigh(string(x))
			if len(l.s) > 1 || len(l.t) > 1 || len(l.p) > 1 {
				log.Fatalf("%U: part %U has not one element: %v", r, x, l)
			}
			e := [3]int{} // (an ignorable part gets a tertiary weight below)
			if len(l.p) == 1 {
				e[0] = l.p[0]
			}
			if len(l.s) == 1 {
				e[1] = l.s[0]
			}
			if len(l.t) == 1 {
				e[2] = l.t[0]
			}
			es = append(es, e)
		}
		l := weights[r]
		if len(l.t) != len(es) {
			log.Fatalf("%U: %d tertiaries for %d elements", r, len(l.t), len(es))
		}
		var back levels
		for k := range es {
			es[k][2] = l.t[k]
			if es[k][0] != 0 {
				back.p = append(back.p, es[k][0])
			}
			if es[k][1] != 0 {
				back.s = append(back.s, es[k][1])
			}
			back.t = append(back.t, es[k][2])
		}
		if !back.equal(l) {
			log.Fatalf("%U: elements %v are not its weights %v", r, es, l)
		}
		for k := range es {
			es[k][1] = srank[es[k][1]]
		}
		splitElems[r] = es
	}
	entry := func(l levels) uint32 {
		return entryOf(elems(l))
	}
	entryOf = func(es [][3]int) uint32 {
		switch {
		case len(es) == 0:
			return 0
		case len(es) == 1 && es[0][0] < minImplicit:
			return uint32(es[0][0])<<14 | uint32(es[0][1])<<5 | uint32(es[0][2])
		}
		var ws []uint32
		for _, e := range es {
			ws = append(ws, uint32(e[0]), uint32(e[1])<<8|uint32(e[2]))
		}
		key := fmt.Sprint(ws)
		i, ok := expIndex[key]
		if !ok {
			i = len(expansions)
			expIndex[key] = i
			expansions = append(expansions, ws...)
		}
		if len(es) > 0xFF || i >= 1<<23 {
			log.Fatal("expansion too large")
		}
		return expansionFlag | uint32(i)<<8 | uint32(len(es))
	}

	// The table: blocks of 1<<blockBits entries, equal blocks shared.
	var blocks []uint32
	blockOf := map[string]int{}
	var index []uint8
	for lo := rune(0); lo <= unicode.MaxRune; lo += 1 << blockBits {
		blk := make([]uint32, 1<<blockBits)
		for k := range blk {
			blk[k] = collFallback
			if es, ok := splitElems[lo+rune(k)]; ok {
				blk[k] = entryOf(es)
			} else if l, ok := weights[lo+rune(k)]; ok {
				blk[k] = entry(l)
			}
		}
		key := fmt.Sprint(blk)
		n, ok := blockOf[key]
		if !ok {
			n = len(blocks) >> blockBits
			blockOf[key] = n
			blocks = append(blocks, blk...)
		}
		if n > 0xFF {
			log.Fatal("more than 256 blocks: the index needs wider entries")
		}
		index = append(index, uint8(n))
	}
	// Trim the index: the blocks past the last stored one are all
	// fallback.
	last := len(index)
	for last > 0 && index[last-1] == index[len(index)-1] {
		last--
	}
	index = index[:last+1]

	// The data (see collate_data.go for the format): the blocks, the
	// expansions, the contractions, collSplit, then the index.
	var contractions []uint32 // (first: their entries may add expansions)
	for _, c := range found {
		rs := append([]rune(c.s), 0)
		contractions = append(contractions, uint32(rs[0]), uint32(rs[1]), uint32(rs[2]), entry(c.l))
	}
	var data []byte
	data = appendWords(data, blocks)
	data = appendWords(data, expansions)
	data = appendWords(data, contractions)
	for _, r := range split {
		data = binary.LittleEndian.AppendUint32(data, uint32(r))
	}
	data = append(data, index...)

	var b bytes.Buffer
	b.WriteString("// Code generated by collate_gen.go from golang.org/x/text/collate; DO NOT EDIT.\n\npackage filesystem\n\n")
	b.WriteString("import _ \"embed\"\n\n")
	b.WriteString("// collData is collate_table.bin, the tables of compareNames (see\n// collate_data.go).\n//\n//go:embed collate_table.bin\nvar collData string\n\n")
	b.WriteString("// The sizes of the tables in collData.\nconst (\n")
	fmt.Fprintf(&b, "\tcollBlockCount = %d // blocks of 1<<blockBits entries\n", len(blocks)>>blockBits)
	fmt.Fprintf(&b, "\tcollExpansionWords = %d\n", len(expansions))
	fmt.Fprintf(&b, "\tcollContractionCount = %d\n", len(found))
	fmt.Fprintf(&b, "\tcollSplitCount = %d\n", len(split))
	fmt.Fprintf(&b, "\tcollIndexLen = %d\n)\n\n", len(index))
	fmt.Fprintf(&b, "// collDataSHA256 is the SHA-256 of collData (checked by the tests).\nconst collDataSHA256 = \"%x\"\n\n", sha256.Sum256(data))
	fmt.Fprintf(&b, "// collSecondaryCommon is the rank of the common secondary weight.\nconst collSecondaryCommon = %d\n\n", srank[common])
	genSrc, err := os.ReadFile("collate_gen.go")
	if err != nil {
		log.Fatal(err)
	}
	xtext, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "golang.org/x/text").Output()
	if err != nil {
		log.Fatalf("go list -m golang.org/x/text: %v", err)
	}
	b.WriteString("// What the tables were generated from: the SHA-256 of collate_gen.go and\n// the version of golang.org/x/text. TestCollateTableGenerated runs the\n// generator again when either differs from the tree's.\nconst (\n")
	fmt.Fprintf(&b, "\tcollGenSHA256 = \"%x\"\n", sha256.Sum256(genSrc))
	fmt.Fprintf(&b, "\tcollXTextVersion = %q\n)\n", strings.TrimSpace(string(xtext)))
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*outDir, "collate_table.go"), src, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*outDir, "collate_table.bin"), data, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%d split, ", len(split))
	log.Printf("%d characters, %d contractions, %d expansion words, %d blocks, %d index entries, %d secondaries",
		len(runes), len(found), len(expansions), len(blocks)>>blockBits, len(index), len(sl))
}

// reorders reports whether x/text moves the elements of b before the last
// ones of a: a has a compatibility decomposition that ends in a combining
// mark of a higher class than b's (x/text orders the elements of
// combining marks by class, also those of a decomposition). The key of a
// followed by b is then not the concatenation of their keys, though they
// are no contraction. (compareNames does the same for the characters of
// collSplit: see nfdRune in collate.go.)
func reorders(a, b rune) bool {
	d := norm.NFKD.String(string(a))
	last, _ := utf8.DecodeLastRuneInString(d)
	cb := norm.NFD.PropertiesString(string(b)).CCC()
	return cb != 0 && norm.NFD.PropertiesString(string(last)).CCC() > cb
}

func cmpRunes(a, b string) int {
	return slices.Compare([]rune(a), []rune(b))
}

// appendWords appends ws, four bytes each, little endian.
func appendWords(data []byte, ws []uint32) []byte {
	for _, w := range ws {
		data = binary.LittleEndian.AppendUint32(data, w)
	}
	return data
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}
