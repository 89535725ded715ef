package jsonschema

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

func TestCheckSyntaxAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`null`, `true`, `false`, `0`, `-0`, `1.5e+3`, `-12.0E-2`, `""`, `"a\"b\\c\/\b\f\n\r\t\u00e9\uD83D\uDE00"`,
		`[]`, `[1,[2,[3]]]`, `{}`, `{"a":{"b":[null]}}`, " \t\n\r[ 1 , 2 ]\n",
		``, ` `, `nul`, `nulll`, `tru`, `True`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`,
		`"abc`, `"\x"`, `"\u12"`, `"\u12G4"`, "\"a\tb\"", `[1,]`, `[,1]`, `{"a"}`, `{"a":1,}`, `{a:1}`, `{"a" 1}`,
		`[1 2]`, `{"a":1 "b":2}`, `[1]]`, `{}}`, `1 2`, `"\`,
	} {
		got := checkSyntax([]byte(in), 64) == nil
		if want := json.Valid([]byte(in)); got != want {
			t.Errorf("checkSyntax(%q) valid = %v, encoding/json says %v", in, got, want)
		}
	}
}

func TestCheckSyntaxDepth(t *testing.T) {
	nest := func(n int) []byte { return []byte(strings.Repeat(`{"a":[`, n) + strings.Repeat(`]}`, n)) }
	if err := checkSyntax(nest(32), 64); err != nil {
		t.Errorf("depth 64: %v", err)
	}
	if err := checkSyntax(nest(33), 64); err == nil || !strings.Contains(err.Error(), "nesting deeper than 64") {
		t.Errorf("depth 66: %v", err)
	}
}

// TestInvalidUTF8ReadsAsReplacementChar: checkSyntax accepts invalid UTF-8
// in strings, as encoding/json does, but the engine compared such strings
// and member names byte for byte where encoding/json (and the full engine)
// read each bad byte as U+FFFD: "\xff" was not the enum value "\ufffd",
// and a member "\xff" escaped a property "\ufffd" of the schema.
func TestInvalidUTF8ReadsAsReplacementChar(t *testing.T) {
	for _, tc := range []struct {
		schema, instance string
		valid            bool
	}{
		{`{"enum":["\ufffd"]}`, "\"\xff\"", true},
		{`{"const":"a\ufffd\n"}`, "\"a\xff\\n\"", true},
		{`{"properties":{"\ufffd":{"type":"string"}}}`, "{\"\xff\":1}", false},
		{`{"type":"array","uniqueItems":true}`, "[\"\xff\",\"\xfe\"]", false},
		{`{"type":"string","maxLength":1}`, "\"\xff\"", true},
	} {
		s := MustCompile(tc.schema)
		if err := s.Validate(json.RawMessage(tc.instance)); (err == nil) != tc.valid {
			t.Errorf("%s against %q: %v, want valid %v", tc.schema, tc.instance, err, tc.valid)
		}
		full, err := compileFull(t, s.raw, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := full.Validate([]byte(tc.instance)); (err == nil) != tc.valid {
			t.Errorf("full engine: %s against %q: %v, want valid %v", tc.schema, tc.instance, err, tc.valid)
		}
	}
}

func TestDecimal(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		cmp  int
	}{
		{"1", "1.0", 0}, {"10", "1e1", 0}, {"0.05", "5e-2", 0}, {"-0", "0", 0}, {"0.000", "-0e5", 0},
		{"1", "2", -1}, {"-1", "1", -1}, {"-2", "-1", -1}, {"0", "0.0001", -1}, {"-0.0001", "0", -1},
		{"99", "100", -1}, {"1.23", "1.3", -1}, {"123456789012345678901", "123456789012345678902", -1},
		{"1e400", "1e401", -1}, {"1e-400", "0", 1}, {"9007199254740993", "9007199254740992", 1},
	} {
		a, _ := parseDecimal([]byte(tc.a), nil)
		b, _ := parseDecimal([]byte(tc.b), nil)
		if got := cmpDecimal(a, b); got != tc.cmp {
			t.Errorf("cmp(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.cmp)
		}
		if got := cmpDecimal(b, a); got != -tc.cmp {
			t.Errorf("cmp(%s, %s) = %d, want %d", tc.b, tc.a, got, -tc.cmp)
		}
	}
	for _, tc := range []struct {
		x, m     string
		multiple bool
	}{
		{"10", "5", true}, {"10", "3", false}, {"0", "7", true}, {"-9", "3", true}, {"7.5", "2.5", true},
		{"0.0075", "0.0001", true}, {"0.00751", "0.0001", false}, {"1e308", "0.123456789", false},
		{"4.5e20", "1.5", true}, {"1e100", "1024", true}, {"1e100", "3", false}, {"3e-3", "1e-3", true},
		{"1", "1e-400", true}, {"1e-400", "1", false}, {"123456789123456789123", "3", true},
	} {
		x, _ := parseDecimal([]byte(tc.x), nil)
		m, _ := parseDecimal([]byte(tc.m), nil)
		if got, ok := isMultiple(x, m); !ok || got != tc.multiple {
			t.Errorf("isMultiple(%s, %s) = %v, %v; want %v", tc.x, tc.m, got, ok, tc.multiple)
		}
	}
	huge, _ := parseDecimal([]byte(strings.Repeat("7", maxMultipleDigits+1)), nil)
	three, _ := parseDecimal([]byte("3"), nil)
	if _, ok := isMultiple(huge, three); ok {
		t.Error("isMultiple should refuse a number with too many digits")
	}
}

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`1.50`, `15e1`}, {`-0.0`, `0`}, {`"a\u0041\n\/"`, `"aA\u000a/"`}, {`"\u0001"`, `"\u0001"`},
		{` [ 1 , { "b" : 2 , "a" : [ ] } ] `, `[1e1,{"a":[],"b":2e1}]`}, {`{}`, `{}`}, {`{"k":null}`, `{"k":null}`},
		{`"\ud800"`, `"` + string(utf8.RuneError) + `"`},
	} {
		got, end := appendCanonical(nil, []byte(tc.in), jsonscan.SkipSpace([]byte(tc.in), 0))
		if string(got) != tc.want {
			t.Errorf("canonical(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if strings.TrimSpace(tc.in[end:]) != "" {
			t.Errorf("canonical(%s) stopped at %d", tc.in, end)
		}
	}
}

func TestUniqueItemsManyItems(t *testing.T) {
	s := MustCompile(`{"uniqueItems":true}`)
	items := make([]string, 30)
	for i := range items {
		items[i] = `{"n":` + strconv.Itoa(i) + `}`
	}
	distinct := json.RawMessage(`[` + strings.Join(items, ",") + `]`)
	if err := s.Validate(distinct); err != nil {
		t.Error(err)
	}
	items[29] = `{"n":4.0}`
	dup := json.RawMessage(`[` + strings.Join(items, ",") + `]`)
	if got := errString(s.Validate(dup)); got != "instance: items 4 and 29 are equal, but uniqueItems is set" {
		t.Error(got)
	}
}

func BenchmarkCheckSyntax(b *testing.B) {
	for _, tc := range []struct{ name, in string }{
		{"medium", mediumInstance},
		{"schema", mediumSchema},
		{"escaped", `{"text":"line\none\ttab \u00e9\ud83d\ude00 \\ end","n":[1,2.5,-3e2]}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			in := []byte(tc.in)
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if err := checkSyntax(in, MaxInstanceDepth); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
