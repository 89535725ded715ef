package jsonscan

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// differential checks every claim of the package on data against
// encoding/json's verdict and decoded values.
func differential(t *testing.T, data []byte) {
	t.Helper()
	ref := refScan(data)

	// Validity, UTF-8, duplicates and depth.
	strict := Scanner{Data: data, MaxDepth: 1 << 20, Flags: UTF8 | Duplicates}
	ok := strict.Document()
	dup, hasDup := strict.Duplicate()
	strict.Release()
	if want := ref.valid && utf8.Valid(data); ok != want {
		t.Fatalf("strict scan of %q: %v (%v at %d), encoding/json: valid %v, UTF-8 %v", data, ok, strict.Err().Kind, strict.Err().Offset, ref.valid, utf8.Valid(data))
	}
	if ok && (hasDup != ref.dup || hasDup && strict.KeyString(dup) != ref.dupKey) {
		t.Fatalf("duplicates in %q: %v %q, encoding/json: %v %q", data, hasDup, strict.KeyString(dup), ref.dup, ref.dupKey)
	}
	memberwise(t, data, ok, strict.Err(), hasDup, strict.KeyString(dup))
	lax := Scanner{Data: data, MaxDepth: 1 << 20}
	if ok := lax.Document(); ok != ref.valid {
		t.Fatalf("scan of %q: %v (%v at %d), encoding/json: %v", data, ok, lax.Err().Kind, lax.Err().Offset, ref.valid)
	}
	if e := lax.Err(); e.Offset < 0 || e.Offset > len(data) {
		t.Fatalf("scan of %q: error offset %d out of the text", data, e.Offset)
	}
	if !ref.valid {
		readersTerminate(t, data)
	} else {
		deep := Scanner{Data: data, MaxDepth: ref.depth, Flags: Duplicates}
		if !deep.Document() {
			t.Fatalf("scan of %q with MaxDepth %d: %v", data, ref.depth, deep.Err().Kind)
		}
		deep.Release()
		if ref.depth > 0 {
			shallow := Scanner{Data: data, MaxDepth: ref.depth - 1}
			if shallow.Document() || shallow.Err().Kind != TooDeep {
				t.Fatalf("scan of %q with MaxDepth %d: %v, want TooDeep", data, ref.depth-1, shallow.Err().Kind)
			}
		}
		// The readers, on valid text, find every value and decode it as
		// encoding/json does.
		i := SkipSpace(data, 0)
		got, end := readValue(t, data, i)
		if end != len(strings.TrimRight(string(data), " \t\r\n")) {
			t.Fatalf("SkipValue(%q, %d) = %d", data, i, end)
		}
		if !reflect.DeepEqual(got, ref.value) {
			t.Fatalf("readers decode %q as %#v, encoding/json as %#v", data, got, ref.value)
		}
	}

	// data as the contents of a string literal.
	lit := append(append([]byte{'"'}, data...), '"')
	var s string
	jerr := json.Unmarshal(lit, &s)
	u, ok := Unquote(lit)
	if ok != (jerr == nil) || ok && u != s {
		t.Fatalf("Unquote(%q) = %q, %v; encoding/json %q, %v", lit, u, ok, s, jerr)
	}
	u, ok = UnquoteStrict(lit)
	if ok != (jerr == nil && utf8.Valid(data)) || ok && u != s {
		t.Fatalf("UnquoteStrict(%q) = %q, %v", lit, u, ok)
	}
	if jerr == nil {
		checkString(t, lit, s)
	}

	// data as a number.
	var n int64
	nerr := json.Unmarshal(data, &n)
	if len(data) > 0 && (data[0] == '-' || data[0] >= '0' && data[0] <= '9') && SkipSpace(data, len(data)-1) != len(data) {
		got, ok := ParseInt(data)
		if ok != (nerr == nil) || ok && got != n {
			t.Fatalf("ParseInt(%q) = %d, %v; encoding/json %d, %v", data, got, ok, n, nerr)
		}
	}
}

// memberwise scans a top-level object member by member, with ObjectStart
// and ObjectNext as the strict decoder does, and checks that it reaches
// Document's verdict (the same error at the same offset, the same
// duplicate) and hands out the members EachMember finds.
func memberwise(t *testing.T, data []byte, wantOK bool, want Error, wantDup bool, wantKey string) {
	t.Helper()
	s := Scanner{Data: data, MaxDepth: 1 << 20, Flags: UTF8 | Duplicates}
	defer s.Release()
	s.SkipSpace()
	if s.Pos >= len(data) || data[s.Pos] != '{' {
		return
	}
	start := s.Pos
	var members []string
	it, ok := s.ObjectStart(1)
	for ok {
		k, vs, ve, more, mok := s.ObjectNext(&it)
		if !mok {
			ok = false
			break
		}
		if !more {
			break
		}
		members = append(members, s.KeyString(k)+"="+string(data[vs:ve]))
	}
	if ok {
		if s.SkipSpace(); s.Pos != len(data) {
			ok = s.Fail(TrailingData)
		}
	}
	dup, hasDup := s.Duplicate()
	if ok != wantOK || s.Err() != want || ok && (hasDup != wantDup || s.KeyString(dup) != wantKey) {
		t.Fatalf("member by member, %q: %v %+v dup %v %q; Document: %v %+v dup %v %q", data, ok, s.Err(), hasDup, s.KeyString(dup), wantOK, want, wantDup, wantKey)
	}
	if !ok {
		return
	}
	var read []string
	EachMember(data, start, func(key []byte, escaped bool, value []byte) bool {
		read = append(read, KeyString(key, escaped)+"="+string(value))
		return true
	})
	if strings.Join(members, "\n") != strings.Join(read, "\n") {
		t.Fatalf("members of %q: ObjectNext %q, EachMember %q", data, members, read)
	}
}

// readValue decodes the value at data[i] with the readers.
func readValue(t *testing.T, data []byte, i int) (any, int) {
	t.Helper()
	end := SkipValue(data, i)
	if end < 0 {
		t.Fatalf("SkipValue(%q, %d) = -1", data, i)
	}
	raw := data[i:end]
	switch data[i] {
	case '{':
		m := map[string]any{}
		ok := EachMember(data, i, func(key []byte, escaped bool, value []byte) bool {
			v, vend := readValue(t, data, offsetIn(data, value))
			if vend != offsetIn(data, value)+len(value) {
				t.Fatalf("member %q of %q: value %q ends at %d", key, data, value, vend)
			}
			k := KeyString(key, escaped)
			if !KeyEqual(key, escaped, k) {
				t.Fatalf("KeyEqual(%q, %v, %q) = false", key, escaped, k)
			}
			if _, dup := m[k]; !dup && string(Member(raw, k)) != string(value) {
				t.Fatalf("Member(%q, %q) = %q, want %q", raw, k, Member(raw, k), value)
			}
			m[k] = v
			return true
		})
		if !ok {
			t.Fatalf("EachMember over %q: malformed", raw)
		}
		return m, end
	case '[':
		l := []any{}
		ok := EachElement(data, i, func(elem []byte) bool {
			v, _ := readValue(t, data, offsetIn(data, elem))
			l = append(l, v)
			return true
		})
		if !ok {
			t.Fatalf("EachElement over %q: malformed", raw)
		}
		return l, end
	case '"':
		s, ok := Unquote(raw)
		if !ok {
			t.Fatalf("Unquote(%q) failed on valid JSON", raw)
		}
		checkString(t, raw, s)
		return s, end
	case 't', 'f':
		return raw[0] == 't', end
	case 'n':
		return nil, end
	}
	var n int64
	got, ok := ParseInt(raw)
	if err := json.Unmarshal(raw, &n); ok != (err == nil) || ok && got != n {
		t.Fatalf("ParseInt(%q) = %d, %v; encoding/json %d, %v", raw, got, ok, n, err)
	}
	return json.Number(raw), end
}

// checkString checks the string readers on lit, a valid string literal
// whose value is s according to encoding/json.
func checkString(t *testing.T, lit []byte, s string) {
	t.Helper()
	end, escaped := SkipString(lit, 0)
	contents := lit[1 : len(lit)-1]
	switch {
	case end != len(lit):
		t.Fatalf("SkipString(%q) = %d", lit, end)
	case !escaped && string(contents) != s:
		t.Fatalf("SkipString(%q): not escaped, but its value is %q", lit, s)
	case KeyString(contents, escaped) != s:
		t.Fatalf("KeyString(%q, %v) = %q, want %q", contents, escaped, KeyString(contents, escaped), s)
	case !StringEqual(lit, s) || !KeyEqual(contents, escaped, s):
		t.Fatalf("StringEqual(%q, %q) = false", lit, s)
	case StringEqual(lit, s+"x"):
		t.Fatalf("StringEqual(%q, %q) = true", lit, s+"x")
	case StringLen(contents, escaped) != utf8.RuneCountInString(s):
		t.Fatalf("StringLen(%q) = %d, want %d", lit, StringLen(contents, escaped), utf8.RuneCountInString(s))
	}
	if got, _ := AppendUnescaped([]byte("x"), contents); string(got) != "x"+s {
		t.Fatalf("AppendUnescaped(%q) = %q", contents, got[1:])
	}
	sc := Scanner{Data: lit}
	if k, ok := sc.String(); !ok || k.Escaped != escaped || k.End != len(lit)-1 {
		t.Fatalf("Scanner.String(%q) = %+v, %v; SkipString says escaped %v", lit, k, ok, escaped)
	}
}

// offsetIn returns the offset of sub, a sub-slice of b, in b.
func offsetIn(b, sub []byte) int { return cap(b) - cap(sub) }

// readersTerminate walks invalid text with the readers from every offset:
// they must neither panic nor loop.
func readersTerminate(t *testing.T, data []byte) {
	t.Helper()
	for i := range data {
		end := SkipValue(data, i)
		if end > len(data) || end >= 0 && end <= i {
			t.Fatalf("SkipValue(%q, %d) = %d", data, i, end)
		}
		if e, _ := SkipString(data, i); e > len(data) {
			t.Fatalf("SkipString(%q, %d) = %d", data, i, e)
		}
		steps := 0
		EachMember(data, i, func([]byte, bool, []byte) bool {
			if steps++; steps > len(data) {
				t.Fatalf("EachMember over %q loops", data[i:])
			}
			return true
		})
		EachElement(data, i, func([]byte) bool {
			if steps++; steps > 2*len(data) {
				t.Fatalf("EachElement over %q loops", data[i:])
			}
			return true
		})
	}
	Member(data, "a")
	Unquote(data)
	StringEqual(data, "a")
	ParseInt(data)
}

// corpusInputs returns the []byte and string arguments of every file in
// the fuzz corpora of the module (testdata/fuzz/Fuzz*/...).
func corpusInputs(t *testing.T) map[string][]byte {
	t.Helper()
	inputs := map[string][]byte{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == ".cache") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.Contains(filepath.ToSlash(path), "/testdata/fuzz/") {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Split(string(text), "\n")
		if len(lines) == 0 || lines[0] != "go test fuzz v1" {
			return nil
		}
		for n, line := range lines[1:] {
			if v, ok := corpusValue(line); ok {
				inputs[path+":"+strconv.Itoa(n+2)] = v
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return inputs
}

// corpusValue reads one line of a corpus file, a []byte("...") or
// string("...") argument.
func corpusValue(line string) ([]byte, bool) {
	e, err := parser.ParseExpr(line)
	if err != nil {
		return nil, false
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, false
	}
	s, err := strconv.Unquote(lit.Value)
	return []byte(s), err == nil
}

// TestDifferentialCorpus holds the scanner to encoding/json on every
// input of the module's fuzz corpora and on the seeds of FuzzScanner.
func TestDifferentialCorpus(t *testing.T) {
	inputs := corpusInputs(t)
	if len(inputs) == 0 {
		t.Fatal("no fuzz corpus found")
	}
	for i, s := range seeds {
		inputs["seed "+strconv.Itoa(i)] = []byte(s)
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) { differential(t, data) })
	}
}
