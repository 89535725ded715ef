package jsonscan

import (
	"strconv"
	"strings"
	"testing"
)

func TestScannerErrors(t *testing.T) {
	for _, tc := range []struct {
		in     string
		kind   Kind
		offset int
	}{
		{``, UnexpectedEOF, 0},
		{`  `, UnexpectedEOF, 2},
		{`x`, UnexpectedChar, 0},
		{`[1,]`, UnexpectedChar, 3},
		{`nul`, BadLiteral, 0},
		{`[truex]`, ArraySeparator, 5},
		{`-`, BadNumber, 1},
		{`01`, TrailingData, 1},
		{`1.`, BadNumber, 2},
		{`1.x`, BadNumber, 2},
		{`1e+`, BadNumber, 3},
		{`"abc`, UnterminatedString, 4},
		{`"a\`, UnterminatedString, 2},
		{`"\x"`, BadEscape, 1},
		{`"\u12G4"`, BadUnicodeEscape, 1},
		{"\"a\tb\"", ControlChar, 2},
		{`[1`, UnterminatedArray, 2},
		{`[1 2]`, ArraySeparator, 3},
		{`{`, ExpectedKey, 1},
		{`{"a":1,}`, ExpectedKey, 7},
		{`{a:1}`, ExpectedKey, 1},
		{`{"a" 1}`, ExpectedColon, 5},
		{`{"a":1`, UnterminatedObject, 6},
		{`{"a":1 "b":2}`, ObjectSeparator, 7},
		{`1 2`, TrailingData, 2},
		{"\xef\xbb\xbf{}", UnexpectedChar, 0},
		{strings.Repeat("[", 5) + strings.Repeat("]", 5), TooDeep, 4},
		{`{"a":{"b":{"c":{"d":{}}}}}`, TooDeep, 20},
		// Inside and after strings long enough to be read eight bytes at a
		// time: the offset is the byte's, not its word's.
		{`"` + strings.Repeat("a", 13) + "\x01" + `"`, ControlChar, 14},
		{`"` + strings.Repeat("a", 16) + `\q"`, BadEscape, 17},
		{`"` + strings.Repeat("a", 9) + `\n` + strings.Repeat("b", 9) + `\u00G0"`, BadUnicodeEscape, 21},
		{`"` + strings.Repeat("a", 9) + `\"` + strings.Repeat("b", 20), UnterminatedString, 32},
		{`"` + strings.Repeat("é", 6) + "\n", ControlChar, 13},
		{`"` + strings.Repeat("a", 20) + `\`, UnterminatedString, 21},
		{`"` + strings.Repeat("a", 20) + `\u12`, BadUnicodeEscape, 21},
		{`["` + strings.Repeat("a", 20) + `" "b"]`, ArraySeparator, 24},
		{`{"` + strings.Repeat("k", 20) + `" "b"}`, ExpectedColon, 24},
		// Each kind where a value is expected inside arrays and objects.
		{`[`, UnexpectedEOF, 1},
		{`{"a":`, UnexpectedEOF, 5},
		{`{"a":}`, UnexpectedChar, 5},
		{`[fals]`, BadLiteral, 1},
		{`{"a":nulL}`, BadLiteral, 5},
		{`[-x]`, BadNumber, 2},
		{`{"a":1e}`, BadNumber, 7},
		{`[1.5E-]`, BadNumber, 6},
		{`{"a":"b}`, UnterminatedString, 8},
		{`{"a":[1,{"b":[]`, UnterminatedObject, 15},
		{`[{"a":1}`, UnterminatedArray, 8},
		{`[1}`, ArraySeparator, 2},
		{`{"a":1]`, ObjectSeparator, 6},
		{`{"a":1,"b"`, ExpectedColon, 10},
		{`{"a":1,`, ExpectedKey, 7},
		{`[] []`, TrailingData, 3},
		{`{"a":[[[[]]]]}`, TooDeep, 8},
	} {
		s := Scanner{Data: []byte(tc.in), MaxDepth: 4}
		if s.Document() {
			t.Errorf("%q: valid", tc.in)
			continue
		}
		if e := s.Err(); e.Kind != tc.kind || e.Offset != tc.offset {
			t.Errorf("%q: %v at %d, want %v at %d", tc.in, e.Kind, e.Offset, tc.kind, tc.offset)
		}
		if tc.kind != TooDeep {
			// Member by member (as the strict decoder reads), the same error.
			memberwise(t, []byte(tc.in), false, Error{tc.kind, tc.offset}, false, "")
		}
	}
}

func TestScannerUTF8(t *testing.T) {
	for _, tc := range []struct {
		in     string
		offset int
	}{
		{"\"\xff\"", 1},
		{"\"a\xc3\"", 2},
		{"\"\xed\xa0\x80\"", 1}, // an encoded surrogate
		{"{\"\xdf\":0}", 2},
		{"\"" + strings.Repeat("a", 11) + "\xc0\x80\"", 12}, // overlong, after a word of ASCII
		{"[\"é\\n" + strings.Repeat("b", 10) + "\xf8\"]", 16},
		{"\"" + strings.Repeat("日", 3) + "\xe6\x97\"", 10}, // cut short
	} {
		lax := Scanner{Data: []byte(tc.in), MaxDepth: 8}
		if !lax.Document() {
			t.Errorf("%q without UTF8: %v", tc.in, lax.Err().Kind)
		}
		strict := Scanner{Data: []byte(tc.in), MaxDepth: 8, Flags: UTF8}
		ok := strict.Document()
		if e := strict.Err(); ok || e != (Error{InvalidUTF8, tc.offset}) {
			t.Errorf("%q with UTF8: %v at %d, want %v at %d", tc.in, e.Kind, e.Offset, InvalidUTF8, tc.offset)
		}
	}
}

// TestKindText checks that every kind has its own text.
func TestKindText(t *testing.T) {
	seen := map[string]Kind{}
	for k := NoError; k <= TooDeep; k++ {
		text := k.String()
		if prev, dup := seen[text]; dup || text == "" || text == "unknown error" {
			t.Errorf("kind %d: text %q (kind %d has it too: %v)", k, text, prev, dup)
		}
		seen[text] = k
	}
	if got := (TooDeep + 1).String(); got != "unknown error" {
		t.Errorf("a kind out of range reads %q", got)
	}
}

// manyMembers returns n members "k0":0, ... with the names in extra
// appended.
func manyMembers(n int, extra ...string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i) + ",")
	}
	for _, e := range extra {
		b.WriteString(e + ",")
	}
	return strings.TrimSuffix(b.String(), ",")
}

func TestScannerDuplicates(t *testing.T) {
	for _, tc := range []struct{ in, dup string }{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":1,"\u0061":2}`, "a"},
		{`{"a":{"a":1},"b":{"a":2}}`, ""},
		{`[{"x":1},{"x":2}]`, ""},
		{`{"a":{"b":1,"b":2},"c":1,"c":2}`, "b"},
		{`{"` + "\xff" + `":1,"\ufffd":2}`, "\ufffd"}, // both read as U+FFFD
		{`{` + manyMembers(40) + `}`, ""},
		{`{` + manyMembers(40, `"k3":0`) + `}`, "k3"},
		{`{` + manyMembers(40, `"k\u0033":0`) + `}`, "k3"},
		// The duplicate reported is the first in the text, though a big
		// object's keys are only compared when it closes.
		{`{` + manyMembers(20, `"k2":0`, `"z":{"y":1,"y":2}`) + `}`, "k2"},
		{`{` + manyMembers(20, `"z":{"y":1,"y":2}`, `"k2":0`) + `}`, "y"},
		{`{"a":1,"a":1,` + manyMembers(20, `"k2":0`) + `}`, "a"},
	} {
		s := Scanner{Data: []byte(tc.in), MaxDepth: 8, Flags: Duplicates}
		if !s.Document() {
			t.Errorf("%.40q: %v", tc.in, s.Err().Kind)
			continue
		}
		k, dup := s.Duplicate()
		if got := s.KeyString(k); dup != (tc.dup != "") || got != tc.dup {
			t.Errorf("%.60q: duplicate %v %q, want %q", tc.in, dup, got, tc.dup)
		}
		s.Release()
	}
}

func TestScannerAllocations(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{` + manyMembers(40) + `,"s":"a\u00e9\n"}}`)
	n := testing.AllocsPerRun(100, func() {
		s := Scanner{Data: data, MaxDepth: 8, Flags: UTF8 | Duplicates}
		if !s.Document() {
			t.Fatal(s.Err())
		}
		s.Release()
	})
	if n != 0 {
		t.Errorf("%v allocations per scan", n)
	}
}

func TestEachMember(t *testing.T) {
	in := []byte(` { "a" : 1 , "b\"c" : {"x":[1,"}"]} ,"":null, "d":"\u00e9" } `)
	var got []string
	ok := EachMember(in, SkipSpace(in, 0), func(key []byte, escaped bool, value []byte) bool {
		got = append(got, KeyString(key, escaped)+"="+string(value))
		return true
	})
	want := `a=1|b"c={"x":[1,"}"]}|=null|d="\u00e9"`
	if strings.Join(got, "|") != want || !ok {
		t.Errorf("members %q, ok %v", got, ok)
	}
	n := 0
	if !EachMember([]byte(`{"a":1,"b":2}`), 0, func([]byte, bool, []byte) bool { n++; return false }) || n != 1 {
		t.Errorf("EachMember went on after fn returned false, or failed: %d calls", n)
	}
	for _, bad := range []string{`{"a":1,}`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a":tru}`, `{"a":1"b":2}`, `{"a":[1}`, `{"a":1`, `{1:2}`, `[1]`, ``} {
		if EachMember([]byte(bad), 0, func([]byte, bool, []byte) bool { return true }) {
			t.Errorf("%s: not malformed", bad)
		}
	}
	if got := string(Member([]byte(`{"a":{"b":2},"b":3}`), "b")); got != "3" {
		t.Errorf("Member found %q", got)
	}
}

func TestEachElement(t *testing.T) {
	in := []byte(`[ 1 , "]" , [2,[3]] , {"a":[]} ]`)
	var got []string
	ok := EachElement(in, 0, func(elem []byte) bool {
		got = append(got, string(elem))
		return true
	})
	if strings.Join(got, "|") != `1|"]"|[2,[3]]|{"a":[]}` || !ok {
		t.Errorf("elements %q, ok %v", got, ok)
	}
	for _, bad := range []string{`[1,]`, `[,1]`, `[1 2]`, `[1`, `[x]`, `{}`} {
		if EachElement([]byte(bad), 0, func([]byte) bool { return true }) {
			t.Errorf("%s: not malformed", bad)
		}
	}
}

func TestReadersDoNotAllocate(t *testing.T) {
	params := []byte(`{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"k\u0065y":"v\u00e9"}`)
	n := testing.AllocsPerRun(100, func() {
		meta := Member(params, "_meta")
		if !StringEqual(Member(meta, "io.modelcontextprotocol/protocolVersion"), "2026-07-28") {
			t.Fatal("no version")
		}
		if !StringEqual(Member(params, "key"), "vé") {
			t.Fatal("no key")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations", n)
	}
}
