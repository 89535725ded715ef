package frontmatter

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// cases are YAML frontmatters and the JSON they read as ("" when they
// must be refused), shared with the differential test against the yaml
// package that the conformance suite uses.
var cases = []struct {
	name, yaml, json string
}{
	{"minimal", "name: pdf\ndescription: Extract text", `{"name":"pdf","description":"Extract text"}`},
	{"order kept", "b: 1\na: 2", `{"b":1,"a":2}`},
	{"core schema", "n: ~\nb: true\nB: False\ni: -042\no: 0o17\nx: 0x1F\nf: 1.50\ne: 1e3\ns: yes\nd: 2024-01-02\nv: 1.2.3",
		`{"n":null,"b":true,"B":false,"i":-42,"o":15,"x":31,"f":1.5,"e":1000,"s":"yes","d":"2024-01-02","v":"1.2.3"}`},
	{"empty value is null", "a:\nb: x", `{"a":null,"b":"x"}`},
	{"comments", "# lead\nname: x # trailing\n  # indented\ndescription: 'a # b'", `{"name":"x","description":"a # b"}`},
	{"hash without space", "a: b#c", `{"a":"b#c"}`},
	{"nested mapping", "metadata:\n  version: \"2.1.0\"\n  author: me", `{"metadata":{"version":"2.1.0","author":"me"}}`},
	{"sequence at key indentation", "tools:\n- Bash\n- Read\nname: x", `{"tools":["Bash","Read"],"name":"x"}`},
	{"indented sequence", "tools:\n  - Bash\n  -   Read", `{"tools":["Bash","Read"]}`},
	{"compact mappings in a sequence", "items:\n  - name: a\n    n: 1\n  - name: b", `{"items":[{"name":"a","n":1},{"name":"b"}]}`},
	{"nested sequence", "m:\n- - a\n  - b\n- c", `{"m":[["a","b"],"c"]}`},
	{"empty item", "m:\n-\n- x", `{"m":[null,"x"]}`},
	{"multi-line plain", "description: one\n  two\n\n  three\nname: x", `{"description":"one two\nthree","name":"x"}`},
	{"plain on next line", "description:\n  one\n  two", `{"description":"one two"}`},
	{"single quoted", "a: 'it''s'\nb: '  x  '", `{"a":"it's","b":"  x  "}`},
	{"single quoted folded", "a: 'one\n   two\n\n   three'", `{"a":"one two\nthree"}`},
	{"double quoted escapes", `a: "tab\there\nnl \"q\" \\ \x41 \u00e9 \U0001F600 \uD83D\uDE00 \/"`,
		`{"a":"tab\there\nnl \"q\" \\ A é 😀 😀 /"}`},
	{"double quoted folded", "a: \"one  \n  two\\\n  three\\ \n  four\"", `{"a":"one twothree  four"}`},
	{"quoted key", "\"a b\": 1\n'c': 2", `{"a b":1,"c":2}`},
	{"literal", "a: |\n  line 1\n    indented\n\n  line 3\nb: x", `{"a":"line 1\n  indented\n\nline 3\n","b":"x"}`},
	{"literal strip", "a: |-\n  x\n\n", `{"a":"x"}`},
	{"literal keep", "a: |+\n  x\n\n", `{"a":"x\n\n"}`},
	{"literal explicit indent", "a: |2\n    x\n  y\n", `{"a":"  x\ny\n"}`},
	{"folded", "a: >\n  one\n  two\n\n  three\n    more\n  four\n", `{"a":"one two\nthree\n  more\nfour\n"}`},
	{"folded strip", "a: >-\n  one\n  two\n", `{"a":"one two"}`},
	{"empty literal", "a: |\nb: 1", `{"a":"","b":1}`},
	{"flow sequence", "a: [x, 'y', \"z\", 1, [2], {k: v}]", `{"a":["x","y","z",1,[2],{"k":"v"}]}`},
	{"flow over lines", "a: [x,\n  y, # c\n  z]\nb: {p: 1,\n  q: two words}", `{"a":["x","y","z"],"b":{"p":1,"q":"two words"}}`},
	{"flow empty", "a: []\nb: {}", `{"a":[],"b":{}}`},
	{"flow trailing comma", "a: [x, y,]", `{"a":["x","y"]}`},
	{"url value", "homepage: https://example.com/a:b", `{"homepage":"https://example.com/a:b"}`},
	{"crlf", "name: x\r\ndescription: y\r\n", `{"name":"x","description":"y"}`},
	{"unicode", "description: Résumé — ünïcode ✓", `{"description":"Résumé — ünïcode ✓"}`},
	{"indented document", "  a: 1\n  b: 2", `{"a":1,"b":2}`},

	{"refused: not a mapping", "just text", ""},
	{"refused: sequence document", "- a", ""},
	{"refused: duplicate key", "a: 1\na: 2", ""},
	{"refused: anchor", "a: &x 1\nb: *x", ""},
	{"refused: alias", "b: *x", ""},
	{"refused: tag", "a: !!str 1", ""},
	{"refused: colon in plain", "description: use when: asked", ""},
	{"refused: trailing colon in plain", "description: ends with:", ""},
	{"refused: tab indentation", "a:\n\tb: 1", ""},
	{"refused: bad indentation", "a: 1\n  b: 2", ""},
	{"refused: unclosed quote", "a: \"x", ""},
	{"refused: unclosed flow", "a: [x", ""},
	{"refused: infinity", "a: .inf", ""},
	{"refused: huge float", "a: 1e400", ""},
	{"refused: non-string key", "1: a", ""},
	{"refused: null key", "~: a", ""},
	{"refused: complex key", "? a\n: b", ""},
	{"refused: bad escape", `a: "\q"`, ""},
	{"refused: lone surrogate", `a: "\uD83D"`, ""},
	{"refused: control character", "a: b\x01", ""},
	{"refused: text after quote", "a: 'x' y", ""},
	{"refused: sequence after key", "a: - b", ""},
	{"refused: reserved indicator", "a: @x", ""},
	{"refused: mapping in flow sequence", "a: [k: v]", ""},
	{"refused: flow key without value", "a: {k}", ""},
	{"refused: empty", "", ""},
	{"refused: comments only", "# nothing", ""},
}

func TestToJSON(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ToJSON([]byte(tc.yaml))
			if tc.json == "" {
				if err == nil {
					t.Fatalf("ToJSON(%q) = %s, want an error", tc.yaml, got)
				}
				var fe *Error
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not an *Error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ToJSON(%q): %v", tc.yaml, err)
			}
			if string(got) != tc.json {
				t.Errorf("ToJSON(%q)\n got %s\nwant %s", tc.yaml, got, tc.json)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON %s", got)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		doc, front string
		err        error
	}{
		{"---\nname: x\n---\nbody", "name: x", nil},
		{"\uFEFF---\r\nname: x\r\n---\r\nbody", "name: x", nil},
		{"---\nname: x\n---  \t\n", "name: x", nil},
		{"---\nname: x\n---", "name: x", nil},
		{"---\na: 1\n----\nb: 2\n---\n", "a: 1\n----\nb: 2", nil},
		{"---\na: 1\n--- x\n---\n", "a: 1\n--- x", nil},
		{"---\n---\nbody", "", nil},
		{"no frontmatter", "", ErrNone},
		{"--- \nname: x\n---\n", "", ErrNone},
		{"---\nname: x\n", "", ErrNone},
		{"\n---\nname: x\n---\n", "", ErrNone},
	} {
		front, err := Split([]byte(tc.doc))
		if !errors.Is(err, tc.err) || string(front) != tc.front {
			t.Errorf("Split(%q) = %q, %v; want %q, %v", tc.doc, front, err, tc.front, tc.err)
		}
	}
}

func TestBounds(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		big := "---\ndescription: " + strings.Repeat("x", MaxBytes) + "\n---\n"
		_, err := Parse([]byte(big))
		var fe *Error
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "65536") {
			t.Fatalf("Parse of a frontmatter over MaxBytes: %v", err)
		}
	})
	t.Run("depth", func(t *testing.T) {
		var b strings.Builder
		for i := range MaxDepth + 1 {
			b.WriteString(strings.Repeat(" ", i) + "k:\n")
		}
		b.WriteString(strings.Repeat(" ", MaxDepth+1) + "k: v\n")
		if _, err := ToJSON([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "nested") {
			t.Fatalf("ToJSON of mappings nested %d deep: %v", MaxDepth+2, err)
		}
		if _, err := ToJSON([]byte("a: " + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1))); err == nil || !strings.Contains(err.Error(), "nested") {
			t.Fatalf("ToJSON of flow sequences nested %d deep: %v", MaxDepth+1, err)
		}
	})
	t.Run("nodes", func(t *testing.T) {
		y := "a: [" + strings.Repeat("1,", MaxNodes) + "1]"
		if _, err := ToJSON([]byte(y)); err == nil || !strings.Contains(err.Error(), "values") {
			t.Fatalf("ToJSON of %d values: %v", MaxNodes+1, err)
		}
	})
	t.Run("invalid UTF-8", func(t *testing.T) {
		if _, err := ToJSON([]byte("a: \xff")); err == nil {
			t.Fatal("ToJSON accepted invalid UTF-8")
		}
	})
}

// FuzzToJSON checks that any input either fails with an *Error or gives
// valid JSON, and never panics or loops.
func FuzzToJSON(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.yaml)
	}
	f.Fuzz(func(t *testing.T, y string) {
		got, err := ToJSON([]byte(y))
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if !json.Valid(got) || got[0] != '{' {
			t.Fatalf("ToJSON(%q) = %s: not a JSON object", y, got)
		}
	})
}
