package app

import (
	"slices"
	"testing"
)

func TestNearest(t *testing.T) {
	candidates := []string{"args", "config", "header", "json", "timeout", "trace", "url", "verbose"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"urll", []string{"url"}},
		{"arg", []string{"args"}},
		{"tiemout", []string{"timeout"}}, // a swap is one edit
		{"trcae", []string{"trace"}},
		{"jsno", []string{"json"}},
		{"url", nil}, // itself is not a suggestion
		{"frobnicate", nil},
		{"xy", nil}, // short names: one edit at most
		{"", nil},
	} {
		if got := Nearest(tc.name, candidates); !slices.Equal(got, tc.want) {
			t.Errorf("Nearest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := Nearest("echo1", []string{"echo", "echo2", "echoes"}); !slices.Equal(got, []string{"echo", "echo2"}) {
		t.Errorf("ties: %q", got)
	}
}

func TestPairsObject(t *testing.T) {
	for in, want := range map[string]string{
		"name=Ada":             `{"name":"Ada"}`,
		"text=hi,times=2":      `{"text":"hi","times":2}`,
		"a=1 b=true c=null d=": `{"a":1,"b":true,"c":null,"d":""}`,
		"q=it's":               `{"q":"it's"}`,
		`path="x"`:             `{"path":"\"x\""}`, // a JSON string is not a scalar of the three kinds: kept as typed
		"the.key-1=x":          `{"the.key-1":"x"}`,
		"name":                 "",
		"=x":                   "",
		"1a=x":                 "",
		`{"name": "Ada"}`:      "",
		"hello world":          "",
		"a=1,,b=2":             `{"a":1,"b":2}`,
	} {
		got, ok := PairsObject(in)
		if got != want || ok != (want != "") {
			t.Errorf("PairsObject(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got := ShellQuote(`{"q":"it's"}`); got != `'{"q":"it'\''s"}'` {
		t.Errorf("ShellQuote: %s", got)
	}
	if got := ShellQuote("./examples/hello"); got != "./examples/hello" {
		t.Errorf("ShellQuote: %s", got)
	}
}
