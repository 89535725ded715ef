package transport

import (
	"strings"
	"testing"
)

func TestBodySnippet(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 10, ""},
		{"  \n", 10, ""},
		{"not found\n", 10, `"not found"`},
		{"a\nb\tc", 10, `"a b c"`},
		{strings.Repeat("x", 20), 5, `"xxxxx"...`},
		{"caf\xc3", 10, `"caf�"`},
	} {
		if got := BodySnippet([]byte(tc.in), tc.n); got != tc.want {
			t.Errorf("BodySnippet(%q, %d) = %s, want %s", tc.in, tc.n, got, tc.want)
		}
	}
}
