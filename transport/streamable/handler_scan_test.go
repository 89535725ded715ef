package streamable

import "testing"

func TestMember(t *testing.T) {
	obj := []byte(` { "a" : 1, "b\u0022":"x", "_meta": {"k": [1, {"x":"}"}], "v": "2026-07-28"}, "s": "a\"b", "n": null, "t" : true } `)
	for _, tc := range []struct{ key, want string }{
		{"a", "1"},
		{`b"`, `"x"`},
		{"_meta", `{"k": [1, {"x":"}"}], "v": "2026-07-28"}`},
		{"s", `"a\"b"`},
		{"n", "null"},
		{"t", "true"},
		{"missing", ""},
	} {
		if got := string(member(obj, tc.key)); got != tc.want {
			t.Errorf("member %q = %q, want %q", tc.key, got, tc.want)
		}
	}
	if got := string(memberPath(obj, []string{"_meta", "v"})); got != `"2026-07-28"` {
		t.Errorf("path: %q", got)
	}
	for _, notObject := range []string{"", "[1]", `"x"`, "null", "{"} {
		if member([]byte(notObject), "a") != nil {
			t.Errorf("member of %q", notObject)
		}
	}
	if !stringEquals([]byte(`"a\"b"`), `a"b`) || stringEquals([]byte(`"ab"`), "a") || stringEquals([]byte(`1`), "1") {
		t.Error("stringEquals")
	}
}

// TestStringEqualsNeedsAClosedString: stringEquals took any value that
// starts with a quote for a string and compared what lay between its
// first and last bytes, so the unterminated "ab stood for "a", and "a"b"
// for a"b.
func TestStringEqualsNeedsAClosedString(t *testing.T) {
	for _, tc := range []struct{ raw, s string }{{`"ab`, "a"}, {`"a"b"`, `a"b`}, {`"" `, `"`}} {
		if stringEquals([]byte(tc.raw), tc.s) {
			t.Errorf("stringEquals(%s, %q) = true", tc.raw, tc.s)
		}
	}
}

func TestMemberAllocs(t *testing.T) {
	params := []byte(`{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	n := testing.AllocsPerRun(100, func() {
		meta := member(params, "_meta")
		if !stringEquals(member(meta, "io.modelcontextprotocol/protocolVersion"), "2026-07-28") {
			t.Fatal("no version")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func TestParamMatches(t *testing.T) {
	for _, tc := range []struct {
		v, text string
		want    bool
	}{
		{`"Hello"`, "Hello", true},
		{`"Hello"`, "hello", false},
		{`42`, "42", true},
		{`42`, "042", true},
		{`42.0`, "42", true},
		{`4.2e1`, "42", true},
		{`42`, "42.5", false},
		{`-1`, "-1", true},
		{`true`, "true", true},
		{`true`, "True", false},
		{`false`, "true", false},
		{`{}`, "{}", false},
	} {
		if got := paramMatches([]byte(tc.v), tc.text); got != tc.want {
			t.Errorf("paramMatches(%s, %q) = %v", tc.v, tc.text, got)
		}
	}
}

// BenchmarkPeek measures the reads a POST does before the request runs:
// the protocol version in _meta, the tool name, a header parameter.
func BenchmarkPeek(b *testing.B) {
	params := []byte(`{"name":"get_weather","arguments":{"location":"New York","units":{"system":"metric"}},"_meta":{"progressToken":1,` +
		`"io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	path := []string{"arguments", "units", "system"}
	b.ReportAllocs()
	for b.Loop() {
		meta := member(params, "_meta")
		if !stringEquals(member(meta, "io.modelcontextprotocol/protocolVersion"), "2026-07-28") || isNull(member(meta, "io.modelcontextprotocol/clientCapabilities")) {
			b.Fatal("no version")
		}
		if !stringEquals(member(params, "name"), "get_weather") || !stringEquals(memberPath(params, path), "metric") {
			b.Fatal("no name")
		}
	}
}
