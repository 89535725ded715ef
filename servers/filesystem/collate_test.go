package filesystem

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// The tests compare compareNames with golang.org/x/text/collate's root
// collation, which the package used before (the tests may import it: it
// is not linked into the package then). Where the two may differ (see
// docs/rough_edges.md) the tests say so with tolerated, and check that
// the difference is only there.

// TestCollateTablesNotLinked: the package must not link
// golang.org/x/text/collate, whose tables weigh 1.7 MB of the mcpwire
// binary (issue 19). Its tests may import it: they compare with it.
func TestCollateTablesNotLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "golang.org/x/text/collate" || p == "golang.org/x/text/internal/colltab" || p == "golang.org/x/text/language" {
			t.Errorf("the package links %s", p)
		}
	}
}

// TestCollateDataChecksum: collData (collate_table.bin) has the length
// its sizes give and the checksum the generator wrote for it (a file
// truncated or changed by hand, or a line-ending conversion, fails).
func TestCollateDataChecksum(t *testing.T) {
	if len(collData) != collDataLen {
		t.Errorf("collate_table.bin: %d bytes, the sizes of collate_table.go say %d", len(collData), collDataLen)
	}
	if sum := fmt.Sprintf("%x", sha256.Sum256([]byte(collData))); sum != collDataSHA256 {
		t.Errorf("collate_table.bin: SHA-256 %s, collate_table.go says %s", sum, collDataSHA256)
	}
}

// TestCollateTableGenerated runs the generator (about thirty seconds of CPU) into a
// temporary directory when collate_gen.go or golang.org/x/text differ
// from what the committed tables record: the committed collate_table.go
// and collate_table.bin must then be what it writes. (-short skips that
// run; MCPWIRE_COLLATE_REGENERATE=1 forces it.)
func TestCollateTableGenerated(t *testing.T) {
	src, err := os.ReadFile("collate_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	genSum := fmt.Sprintf("%x", sha256.Sum256(src))
	// The version the build uses, as the generator reads it (a test
	// binary's build information does not always name its modules).
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "golang.org/x/text").Output()
	if err != nil {
		t.Fatalf("go list -m golang.org/x/text: %v", err)
	}
	xtext := strings.TrimSpace(string(out))
	if genSum == collGenSHA256 && xtext == collXTextVersion && os.Getenv("MCPWIRE_COLLATE_REGENERATE") == "" {
		// The generator and its input are those the committed tables
		// were written from (and TestCollateDataChecksum holds the
		// data to its checksum): running it again, about thirty seconds
		// of CPU, would write the same bytes.
		t.Logf("collate_gen.go and golang.org/x/text %s are unchanged since the tables were written (MCPWIRE_COLLATE_REGENERATE=1 runs the generator anyway)", xtext)
		return
	}
	if testing.Short() {
		t.Skipf("collate_gen.go (SHA-256 %s, tables from %s) or golang.org/x/text (%s, tables from %s) changed: runs the generator (about thirty seconds of CPU)", genSum, collGenSHA256, xtext, collXTextVersion)
	}
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command("go", "run", "collate_gen.go", "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run collate_gen.go: %v\n%s", err, out)
	}
	for _, name := range []string{"collate_table.go", "collate_table.bin"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what collate_gen.go writes (%d bytes, the generator's %d): run go generate", name, len(got), len(want))
		}
	}
}

var xcol = collate.New(language.English)

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// xcompare is x/text's comparison. (A Collator is not safe for
// concurrent use: the tests that use it do not run in parallel.)
func xcompare(a, b string) int { return xcol.CompareString(a, b) }

// tolerated reports why compareNames may order a and b otherwise than
// x/text does (docs/rough_edges.md), or "" if it may not. Each reason is
// checked: the order must then be x/text's order of other strings.
func tolerated(a, b string, got int) string {
	// Invalid UTF-8: x/text sometimes weighs a truncated sequence as one
	// invalid character, sometimes as one per byte (depending on what
	// follows); compareNames always as one per byte, which is x/text's
	// order when each invalid byte stands alone.
	if !utf8.ValidString(a) || !utf8.ValidString(b) {
		if got == sign(xcompare(splitInvalid(a), splitInvalid(b))) {
			return "invalid UTF-8"
		}
		return ""
	}
	// x/text matches contractions before it puts combining marks in
	// canonical order, so strings whose marks are out of that order (in
	// neither NFC nor NFD) may not sort as their canonical equivalents;
	// compareNames gives canonically equivalent strings the same order,
	// x/text's order of their NFD forms.
	if outOfOrder(a) || outOfOrder(b) {
		if got == sign(xcompare(norm.NFD.String(a), norm.NFD.String(b))) {
			return "combining marks out of canonical order"
		}
	}
	return ""
}

// splitInvalid writes each byte that is not part of valid UTF-8 as \xff,
// which x/text weighs as one invalid character.
func splitInvalid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteByte(0xFF)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func outOfOrder(s string) bool { return !norm.NFC.IsNormalString(s) && !norm.NFD.IsNormalString(s) }

// check compares compareNames(a, b) with x/text, both ways.
func check(t testing.TB, a, b string) {
	t.Helper()
	got, want := compareNames(a, b), sign(xcompare(a, b))
	if got != want && tolerated(a, b, got) == "" {
		t.Errorf("compareNames(%+q, %+q) = %d, x/text %d", a, b, got, want)
	}
	if rev := compareNames(b, a); rev != -got {
		t.Errorf("compareNames(%+q, %+q) = %d, reversed %d", a, b, got, rev)
	}
}

// checkSorted sorts names with compareNames, then checks that x/text
// gives each neighbour the same sign: with two consistent orders, this is
// agreement on every pair.
func checkSorted(t *testing.T, names []string) {
	t.Helper()
	names = slices.Clone(names)
	slices.SortStableFunc(names, compareNames)
	bad := 0
	for i := 1; i < len(names); i++ {
		a, b := names[i-1], names[i]
		if got, want := compareNames(a, b), sign(xcompare(a, b)); got != want && tolerated(a, b, got) == "" {
			if bad++; bad <= 20 {
				t.Errorf("compareNames(%+q, %+q) = %d, x/text %d", a, b, got, want)
			}
		}
	}
	if bad > 20 {
		t.Errorf("… %d differences in all", bad)
	}
}

// TestCompareNamesEveryCodePoint compares with x/text on every code point
// alone, and on each after "a" and before "b" for those of the table.
func TestCompareNamesEveryCodePoint(t *testing.T) {
	var names []string
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		names = append(names, string(r))
		if testing.Short() && r > 0x30000 {
			break
		}
	}
	checkSorted(t, names)
	names = names[:0]
	for r := rune(0); r < 0x30000; r++ {
		if utf8.ValidRune(r) && tableEntry(r) != collFallback {
			names = append(names, "a"+string(r), string(r)+"b")
		}
	}
	checkSorted(t, names)
}

// contractionAt returns contraction k of the table (compareNames reads
// the contractions in place: only the tests list them).
func contractionAt(k int) collContraction {
	off := collContractionsOff + 16*k
	return collContraction{
		runes: [3]rune{rune(collWord(off)), rune(collWord(off + 4)), rune(collWord(off + 8))},
		entry: collWord(off + 12),
	}
}

// TestCompareNamesContractions compares with x/text on every contraction:
// alone, in NFC, with a mark between, before a letter.
func TestCompareNamesContractions(t *testing.T) {
	var names []string
	for k := range collContractionCount {
		c := contractionAt(k)
		// compareNames weighs names in pieces that end before an ASCII
		// character, and skips a common ASCII prefix but its last
		// character: both need this.
		if c.runes[1] < utf8.RuneSelf || c.runes[2] != 0 && c.runes[2] < utf8.RuneSelf {
			t.Errorf("contraction %U: an ASCII character after the first", c.runes)
		}
		s := string(c.runes[0]) + string(c.runes[1])
		if c.runes[2] != 0 {
			s += string(c.runes[2])
		}
		rs := []rune(s)
		names = append(names, s, s+"a", norm.NFC.String(s), string(rs[0]), string(rs[:len(rs)-1]),
			string(rs[0])+"\u0323"+string(rs[1:]), string(rs[0])+"\u0301"+string(rs[1:]), string(rs[0])+"\u0334"+string(rs[1:]))
	}
	checkSorted(t, names)
	for i := 1; i < len(names); i++ {
		check(t, names[i-1], names[i])
	}
}

// TestCompareNamesCompatMarks compares with x/text on every character
// whose compatibility decomposition ends in a combining mark, alone and
// followed by marks: x/text puts the marks of some (collSplit) in order
// with those that follow.
func TestCompareNamesCompatMarks(t *testing.T) {
	var names []string
	for r := rune(0xA0); r < 0x30000; r++ {
		s := string(r)
		d := []rune(norm.NFKD.String(s))
		if norm.NFD.String(s) != s || len(d) < 2 || norm.NFD.PropertiesString(string(d[len(d)-1])).CCC() == 0 {
			continue
		}
		for _, m := range []rune{0x316, 0x323, 0x332, 0x301, 0x334, 0x345, 0x64b, 0x650, 0x651, 0x655, 0x5b0, 0x9bc} {
			names = append(names, s, s+string(m), s+string(m)+"a", string(d)+string(m), s+string(m)+"\u0334", s+"\u0334"+string(m))
		}
	}
	if len(names) < 1000 {
		t.Fatalf("only %d names", len(names))
	}
	checkSorted(t, names)
}

// Pools of characters for random names.
var (
	latin1   = runeRange(0xA0, 0xFF)
	marks    = runeRange(0x300, 0x36F)
	cjk      = append(append(runeRange(0x4E00, 0x4E80), runeRange(0x3040, 0x30FF)...), 0x3400, 0x20000, 0xF900, 0xAC00, 0xD55C, 0x1100, 0x1161, 0x11A8)
	emoji    = append(runeRange(0x1F600, 0x1F64F), 0x1F468, 0x200D, 0x1F469, 0xFE0F, 0x2764, 0x1F3FB, 0x1F1EB, 0x1F1F7)
	scripts  = []rune("абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВЙЁЇїўӑαβγδΩάἀאבגשעربيةकखगि्ািกเแโใไะาำ่้ሀᎠ")
	punct    = []rune(" !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~‐–—‘’“”…‹›«»·•′″§¶†‡※")
	digits   = []rune("0123456789٠١٢٣٤٥٦٧٨٩۰०१२३߀𝟎𝟏①½²³¹")
	cased    = []rune("aAbBzZéÉøØßẞǅǆǄıİſK")
	compat   = []rune("ﬁﬀ㎏㍱ℌℍ⑴⒜ｱｶﾞｶ゙ＡａＢ ﭤﷺ﹏")
	specials = []rune{0x00AD, 0x200B, 0x200C, 0x200D, 0xFEFF, 0x0000, 0x0009, 0x007F, 0xFFFD, 0xFFFE, 0xE000, 0x10FFFF, 0xE0001, 0xE0100}
)

func runeRange(lo, hi rune) []rune {
	var rs []rune
	for r := lo; r <= hi; r++ {
		rs = append(rs, r)
	}
	return rs
}

// randomName draws a name of up to maxLen characters from the pools,
// sometimes with invalid bytes.
func randomName(r *rand.Rand, maxLen int) string {
	pools := [][]rune{latin1, marks, cjk, emoji, scripts, punct, digits, cased, compat, specials}
	var b strings.Builder
	for range r.Intn(maxLen + 1) {
		switch k := r.Intn(20); {
		case k < 8:
			b.WriteByte(byte(0x20 + r.Intn(0x5F)))
		case k == 8 && r.Intn(4) == 0:
			b.WriteString([]string{"\xff", "\xc3", "\xe6\x97", "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf"}[r.Intn(6)])
		default:
			p := pools[r.Intn(len(pools))]
			b.WriteRune(p[r.Intn(len(p))])
		}
	}
	return b.String()
}

// TestCompareNamesRandom compares with x/text on random names: pairs, and
// the neighbours after sorting.
func TestCompareNamesRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	names := make([]string, n)
	for i := range names {
		names[i] = randomName(r, 8)
		if i%10 == 0 {
			names[i] = randomName(r, 80)
		}
	}
	checkSorted(t, names)
	for i := range names {
		a, b := names[i], names[r.Intn(len(names))]
		if r.Intn(3) == 0 { // names that differ little
			b = a + randomName(r, 2)
		}
		check(t, a, b)
	}
}

// TestCompareNamesAdversarial compares with x/text on names made to
// trouble a comparator: canonical equivalents, marks in any order, long
// runs of marks, contractions split by marks, ignorables, long names.
func TestCompareNamesAdversarial(t *testing.T) {
	long := strings.Repeat("é", 127)
	names := []string{
		"", "a", "A", "é", "e\u0301", "E\u0301", "e\u0301\u0323", "e\u0323\u0301", "ẹ\u0301", "é\u0323",
		"a\u0308\u0301", "a\u0301\u0308", "ǘ", "ü\u0301", "u\u0308\u0301", "u\u0301\u0308",
		"l·", "L·", "l\u0323·", "ŀ", "Ŀ", "l·l", "й", "и\u0306", "и\u0323\u0306", "и\u0306\u0323", "ӣ\u0306",
		"เก", "เ", "ก", "เกา", "\u0e40\u0e01\u0e48", "ໂກ", "ක\u0dd9\u0dcf\u0dca", "\u0dd9\u0dcf\u0dca", "\u0cc6\u0cc2\u0cd5",
		"a\u00adb", "ab", "a\u200db", "\u00ad", "\x00", "a\x00b", "a\tb", "a\u0345", "a\u034f\u0301", "a\u0301\u034f",
		"가", "각", "\u1100\u1161", "\u1100\u1161\u11a8", "갂", "힣",
		"日本", "日本語", "中", "丁", "㐀", "\U00020000", "豈", "\U0002F800",
		"😀", "😀😀", "👨\u200d👩", "👍🏻", "🇫🇷", "❤\ufe0f", "❤",
		"\ufffd", "\xff", "\xff\xff", "\xe6\x97", "\xe6\x97a", "a\xff", "a\ufffd", "\xed\xa0\x80", "\xf4\x90\x80\x80",
		"\uE000", "\U0010FFFF", "\uFFFE", "\U000E0001", "\U000E0100", "\u0378",
		"ﬁ", "fi", "FI", "㎏", "kg", "①", "1", "½", "1/2", "ｶﾞ", "ガ", "カ\u3099",
		long, long + "a", norm.NFD.String(long), strings.Repeat("a", 255), strings.Repeat("a", 254) + "b", strings.Repeat("日", 85),
		"a" + strings.Repeat("\u0301", 30), "a" + strings.Repeat("\u0301", 31), "a" + strings.Repeat("\u0301\u0323", 20),
		"file10.txt", "file9.txt", "File9.txt", "file-9.txt", "file_9.txt", ".hidden", "~backup", "#temp#",
	}
	for _, a := range names {
		for _, b := range names {
			check(t, a, b)
		}
	}
}

// TestCompareNamesTolerances: each tolerance of tolerated is met by a
// pair that x/text orders otherwise (so it is needed), and a reason does
// not excuse an order that is not the stated one.
func TestCompareNamesTolerances(t *testing.T) {
	for _, c := range []struct{ a, b, reason string }{
		{"\xe6\x97a", "\xe6\x97", "invalid UTF-8"},
		{"\u0c48", "\u0c46\u0301\u0c56", "combining marks out of canonical order"},
		{"\u0f71\u0f72", "\u0f71\u0301\u0f72", "combining marks out of canonical order"},
	} {
		got, x := compareNames(c.a, c.b), sign(xcompare(c.a, c.b))
		if got == x {
			t.Errorf("compareNames(%+q, %+q) = %d, as x/text: the tolerance %q is not needed here", c.a, c.b, got, c.reason)
		}
		if r := tolerated(c.a, c.b, got); r != c.reason {
			t.Errorf("tolerated(%+q, %+q) = %q, want %q", c.a, c.b, r, c.reason)
		}
		if r := tolerated(c.a, c.b, -got); r != "" {
			t.Errorf("tolerated(%+q, %+q) with the other order = %q, want none", c.a, c.b, r)
		}
	}
	if r := tolerated("a", "b", 1); r != "" {
		t.Errorf("tolerated(a, b) = %q", r)
	}
}

// FuzzCollate compares the sign of compareNames with x/text's on any two
// strings (any bytes: a name on Linux can be any of them but / and NUL).
func FuzzCollate(f *testing.F) {
	for _, s := range [][2]string{{"", "a"}, {"a", "A"}, {"é", "e\u0301"}, {"l·", "L·"}, {"เก", "เ"}, {"日本", "😀"}, {"\xff", "\ufffd"}, {"a\u0301\u0323", "a\u0323\u0301"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		check(t, a, b)
	})
}

// TestCompareNamesNoAlloc: a comparison of names of usual length does
// not allocate.
func TestCompareNamesNoAlloc(t *testing.T) {
	pairs := [][2]string{{"report-2024.txt", "Report-2024.txt"}, {"résumé.pdf", "resume.pdf"}, {"日本語のファイル.txt", "файл.txt"}, {"😀 smile", "e\u0301clair"}}
	for _, p := range pairs {
		if n := testing.AllocsPerRun(100, func() { compareNames(p[0], p[1]) }); n != 0 {
			t.Errorf("compareNames(%+q, %+q): %v allocations", p[0], p[1], n)
		}
	}
}

// TestCompareNamesLinear: the work grows linearly with the length of the
// names, also for long runs of combining marks (counted in steps of the
// canonical ordering, which would be quadratic without a bound).
func TestCompareNamesLinear(t *testing.T) {
	for _, unit := range []string{"\u0301\u0323", "a", "\u0e40\u0e01", "l\u0323·"} {
		small, large := strings.Repeat(unit, 1000), strings.Repeat(unit, 10000)
		ns := elemCount(small)
		nl := elemCount(large)
		if nl > 11*ns {
			t.Errorf("%+q: %d elements for 1000 units, %d for 10000", unit, ns, nl)
		}
		steps := func(s string) int {
			var n int
			for _, x := range appendNFD(nil, s) {
				_ = x
				n++
			}
			return n
		}
		if steps(large) != 10*steps(small) {
			t.Errorf("%+q: decomposition not linear", unit)
		}
	}
	// The bound on reordering: a run of marks in decreasing class order is
	// reordered in parts of maxCombining.
	s := strings.Repeat("\u0301\u0323", 5000)
	rs := appendNFD(nil, s)
	for i := 0; i+2*maxCombining <= len(rs); i += maxCombining {
		if !slices.IsSortedFunc(rs[i:i+maxCombining], func(x, y nfdRune) int { return int(x.ccc) - int(y.ccc) }) {
			t.Fatalf("part at %d not in canonical order", i)
		}
	}
}

func elemCount(s string) int { return len(appendElems(nil, nil, s)) }

// TestSortByName: sortByName sorts as a stable sort with compareNames
// does, also names that compare equal and names with equal primaries.
func TestSortByName(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	type item struct {
		name string
		n    int
	}
	for range 20 {
		var list []item
		for i := range 2000 {
			name := randomName(r, 6)
			if i%5 == 0 && i > 0 { // equal, or equal primaries
				name = []string{list[i-1].name, strings.ToUpper(list[i-1].name), norm.NFD.String(list[i-1].name), list[i-1].name + "\u00ad"}[r.Intn(4)]
			}
			list = append(list, item{name, i})
		}
		want := slices.Clone(list)
		slices.SortStableFunc(want, func(a, b item) int { return compareNames(a.name, b.name) })
		sortByName(list, func(x item) string { return x.name })
		if !slices.Equal(list, want) {
			t.Fatalf("sortByName differs from a stable sort with compareNames")
		}
	}
}

// TestNFD compares the decomposition with the norm package's, for every
// code point (but those x/text weighs whole).
func TestNFD(t *testing.T) {
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if !utf8.ValidRune(c) {
			continue
		}
		var got []rune
		for _, x := range appendNFD(nil, string(c)+"\u0323") {
			if x.part == 0 || x.part&headPart != 0 { // the marks of a split character are parts of it
				got = append(got, x.r)
			}
		}
		want := []rune(norm.NFD.String(string(c) + "\u0323"))
		if tableEntry(c) != collFallback && norm.NFD.String(string(c)) != string(c) && !(c >= hangulBase && c < hangulBase+hangulCount) {
			// A character newer than x/text's table, which weighs it
			// whole.
			want = []rune(string(c) + "\u0323")
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%U: %U, norm %U", c, got, want)
		}
	}
}

// benchNames are pairs of names like those of a directory.
func benchNames() [][2]string {
	r := rand.New(rand.NewSource(6))
	words := []string{"report", "Report", "data", "image", "IMG", "notes", "résumé", "café", "Überblick", "año", "日本語", "файл", "draft", "final", "v2", "backup", "README", "test_", "a-b", "x.y"}
	exts := []string{".txt", ".md", ".go", ".JPG", ".pdf", ""}
	pairs := make([][2]string, 1000)
	for i := range pairs {
		for k := range 2 {
			pairs[i][k] = fmt.Sprintf("%s %s%d%s", words[r.Intn(len(words))], words[r.Intn(len(words))], r.Intn(1000), exts[r.Intn(len(exts))])
		}
	}
	return pairs
}

// BenchmarkCompare compares two names: compareNames, and x/text's
// collator (what the package did before).
func BenchmarkCompare(b *testing.B) {
	pairs := benchNames()
	for _, c := range []struct {
		name string
		cmp  func(a, b string) int
	}{
		{"compareNames", compareNames},
		{"x-text-collate", collate.New(language.English).CompareString},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p := pairs[i%len(pairs)]
				c.cmp(p[0], p[1])
				i++
			}
		})
	}
}

// BenchmarkCompareScripts compares names that are mostly not ASCII (each
// character looked up in the table): accented Latin, Cyrillic, Greek,
// Thai, Hangul, Han, Arabic.
func BenchmarkCompareScripts(b *testing.B) {
	r := rand.New(rand.NewSource(7))
	words := []string{"résumé", "Ångström", "naïve", "Überblick", "año", "façade", "отчёт", "Файл", "ελληνικά", "Ωμέγα", "ภาษาไทย", "한국어", "日本語", "文件", "ملف", "Ðiều", "żółw", "Čeština"}
	pairs := make([][2]string, 1000)
	for i := range pairs {
		for k := range 2 {
			pairs[i][k] = fmt.Sprintf("%s_%s%d", words[r.Intn(len(words))], words[r.Intn(len(words))], r.Intn(100))
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := pairs[i%len(pairs)]
		compareNames(p[0], p[1])
		i++
	}
}
