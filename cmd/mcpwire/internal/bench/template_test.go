package bench

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func expand(t *testing.T, args string, c *Call) string {
	t.Helper()
	tmpl, err := CompileTemplate(json.RawMessage(args))
	if err != nil {
		t.Fatalf("CompileTemplate(%s): %v", args, err)
	}
	out := tmpl.Expand(nil, c)
	if !json.Valid(out) {
		t.Fatalf("Expand(%s) = %s: not JSON", args, out)
	}
	return string(out)
}

func TestTemplateExpand(t *testing.T) {
	c := &Call{Seq: 42, Session: 3, Rand: rand.New(rand.NewPCG(1, 2))}
	for _, tc := range []struct{ args, want string }{
		{`{}`, `{}`},
		{`{"a":1,"b":[true,null,"x"],"c":{"d":2.5e3}}`, `{"a":1,"b":[true,null,"x"],"c":{"d":2.5e3}}`},
		{`{"n":"{{seq}}"}`, `{"n":42}`},
		{`{"n":"{{ seq }}"}`, `{"n":42}`},
		{`{"s":"{{session}}"}`, `{"s":3}`},
		{`{"q":"user-{{seq}}-{{session}}"}`, `{"q":"user-42-3"}`},
		{`{"r":"{{rand 7 7}}"}`, `{"r":7}`},
		{`{"r":"x{{rand -3 -3}}"}`, `{"r":"x-3"}`},
		{`{"c":"{{choice only}}"}`, `{"c":"only"}`},
		{`{"c":"{{choice a\"b}}"}`, `{"c":"a\"b"}`},
		{`{"lit":"{{{{seq}}"}`, `{"lit":"{{seq}}"}`},
		{`{"k\"ey":"<&>{{seq}}"}`, `{"k\"ey":"\u003c\u0026\u003e42"}`},
		{`{"deep":[{"x":["{{seq}}"]}]}`, `{"deep":[{"x":[42]}]}`},
		{`{"two":"{{seq}}{{seq}}"}`, `{"two":"4242"}`},
	} {
		if got := expand(t, tc.args, c); got != tc.want {
			t.Errorf("Expand(%s) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestTemplateRandom(t *testing.T) {
	tmpl, err := CompileTemplate(json.RawMessage(`{"r":"{{rand 1 6}}","s":"{{randstr 8}}","c":"{{choice a|b|c}}","u":"{{uuid}}"}`))
	if err != nil {
		t.Fatal(err)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[float64]bool{}
	c := &Call{Rand: rand.New(rand.NewPCG(7, 7))}
	var buf []byte
	for i := range 600 {
		c.Seq = int64(i)
		buf = tmpl.Expand(buf[:0], c)
		var v struct {
			R    float64
			S, C string
			U    string
		}
		if err := json.Unmarshal(buf, &v); err != nil {
			t.Fatalf("%s: %v", buf, err)
		}
		if v.R < 1 || v.R > 6 || v.R != float64(int(v.R)) {
			t.Fatalf("rand 1 6 gave %v", v.R)
		}
		seen[v.R] = true
		if len(v.S) != 8 || strings.Trim(v.S, alnum) != "" {
			t.Fatalf("randstr 8 gave %q", v.S)
		}
		if v.C != "a" && v.C != "b" && v.C != "c" {
			t.Fatalf("choice gave %q", v.C)
		}
		if !uuid.MatchString(v.U) {
			t.Fatalf("uuid gave %q", v.U)
		}
	}
	if len(seen) != 6 {
		t.Errorf("rand 1 6 gave only %v in 600 calls", seen)
	}
	// The same seed, the same arguments.
	a := tmpl.Expand(nil, &Call{Rand: rand.New(rand.NewPCG(9, 1))})
	b := tmpl.Expand(nil, &Call{Rand: rand.New(rand.NewPCG(9, 1))})
	if string(a) != string(b) {
		t.Errorf("same seed, different arguments: %s and %s", a, b)
	}
}

func TestTemplateStaticIsNotCopied(t *testing.T) {
	tmpl, err := CompileTemplate(json.RawMessage(`{"a": [1, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !tmpl.Static() {
		t.Fatal("a template without placeholders is not static")
	}
	if n := testing.AllocsPerRun(100, func() { tmpl.Expand(nil, &Call{}) }); n != 0 {
		t.Errorf("Expand of a static template allocates %v times", n)
	}
	dyn, _ := CompileTemplate(json.RawMessage(`{"a": "{{seq}} {{rand 1 9}}"}`))
	c := &Call{Rand: rand.New(rand.NewPCG(1, 1))}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { c.Seq++; buf = dyn.Expand(buf[:0], c) }); n != 0 {
		t.Errorf("Expand into a buffer allocates %v times", n)
	}
}

func TestTemplateErrors(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"a":"{{nope}}"}`, "unknown placeholder {{nope}}"},
		{`{"a":"{{seq"}`, "not closed"},
		{`{"a":"{{seq 1}}"}`, "takes no argument"},
		{`{"a":"{{rand 1}}"}`, "two integers"},
		{`{"a":"{{rand 5 1}}"}`, "5 is more than 1"},
		{`{"a":"{{rand x y}}"}`, "want two integers"},
		{`{"a":"{{randstr -1}}"}`, "want a length"},
		{`{"a":"{{randstr 99999999}}"}`, "want a length"},
		{`{"a":"{{choice}}"}`, "words separated by |"},
		{`[1]`, "want a JSON object"},
		{`{"a":1} {}`, "want one JSON object"},
		{`{"a":"` + strings.Repeat("{{seq}}", DefaultMaxPlaceholders+1) + `"}`, "more than 1024 placeholders"},
	} {
		_, err := CompileTemplate(json.RawMessage(tc.args))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CompileTemplate(%.60s) = %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

// FuzzTemplate checks that whatever a template compiles from, its
// expansions are valid JSON objects, and that literal text survives.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"{{seq}}"}`, `{"a":"x{{choice a|b}}y","b":["{{rand 1 9}}"]}`, `{"a":"{{{{"}`, `{"u":"{{uuid}}{{randstr 3}}"}`, `{"a":"{{rand -9223372036854775808 9223372036854775807}}"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		if !json.Valid([]byte(args)) {
			return
		}
		tmpl, err := CompileTemplate(json.RawMessage(args))
		if err != nil {
			return
		}
		c := &Call{Seq: 12, Session: 1, Rand: rand.New(rand.NewPCG(1, 2))}
		out := tmpl.Expand(nil, c)
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("CompileTemplate(%s).Expand = %s: %v", args, out, err)
		}
		if !strings.Contains(args, "{{") {
			var in map[string]any
			json.Unmarshal([]byte(args), &in)
			a, _ := json.Marshal(in)
			b, _ := json.Marshal(v)
			if string(a) != string(b) {
				t.Fatalf("static template %s expanded to %s", args, out)
			}
		}
	})
}
