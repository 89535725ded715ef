package auth

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestParseChallenges(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []Challenge
	}{
		{
			name: "conformance 401",
			in:   []string{`Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"`},
			want: []Challenge{{Scheme: "Bearer", Params: map[string]string{
				"error": "invalid_token", "error_description": "Missing Authorization header",
				"resource_metadata": "http://localhost:3000/.well-known/oauth-protected-resource/mcp"}}},
		},
		{
			name: "params after scope, no space after comma",
			in:   []string{`Bearer scope="mcp:basic mcp:write",resource_metadata="https://a/x",error="insufficient_scope"`},
			want: []Challenge{{Scheme: "Bearer", Params: map[string]string{
				"scope": "mcp:basic mcp:write", "resource_metadata": "https://a/x", "error": "insufficient_scope"}}},
		},
		{
			name: "quoted escapes and commas inside quotes",
			in:   []string{`Bearer realm="a \"b\", c\\d", error_description="x, y"`},
			want: []Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": `a "b", c\d`, "error_description": "x, y"}}},
		},
		{
			name: "several challenges in one value (RFC 9110 example)",
			in:   []string{`Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple"`},
			want: []Challenge{
				{Scheme: "Newauth", Params: map[string]string{"realm": "apps", "type": "1", "title": `Login to "apps"`}},
				{Scheme: "Basic", Params: map[string]string{"realm": "simple"}},
			},
		},
		{
			name: "several header fields, token68, bare scheme",
			in:   []string{`Negotiate abc123==`, `DPoP algs="ES256", Bearer`, `Bearer realm=x`},
			want: []Challenge{
				{Scheme: "Negotiate", Token68: "abc123==", Params: map[string]string{}},
				{Scheme: "DPoP", Params: map[string]string{"algs": "ES256"}},
				{Scheme: "Bearer", Params: map[string]string{}},
				{Scheme: "Bearer", Params: map[string]string{"realm": "x"}},
			},
		},
		{
			name: "case-insensitive names, first value kept, empty list elements",
			in:   []string{`bearer , , Scope="a", SCOPE="b",, Error=invalid_token`},
			want: []Challenge{{Scheme: "bearer", Params: map[string]string{"scope": "a", "error": "invalid_token"}}},
		},
		{
			name: "unterminated quote keeps what was read",
			in:   []string{`Bearer error="insufficient_scope", scope="a b`},
			want: []Challenge{{Scheme: "Bearer", Params: map[string]string{"error": "insufficient_scope", "scope": "a b"}}},
		},
		{
			name: "garbage",
			in:   []string{`"quoted" Bearer`, ``, `   `},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseChallenges(tt.in)
			if !reflect.DeepEqual(tt.want, got) {
				t.Errorf("ParseChallenges(%q)\n got %#v\nwant %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseChallengesBounded(t *testing.T) {
	many := strings.Repeat(`Basic realm="x", `, 100)
	if n := len(ParseChallenges([]string{many})); n != maxChallenges {
		t.Errorf("%d challenges, want %d", n, maxChallenges)
	}
	huge := `Bearer scope="` + strings.Repeat("a", 1<<20) + `"`
	if c := ParseChallenges([]string{huge}); len(c) != 1 || len(c[0].Param("scope")) > maxChallengeHeaderBytes {
		t.Errorf("unbounded parse: %d challenges", len(c))
	}
}

func TestBearerChallenge(t *testing.T) {
	h := http.Header{}
	h.Add("WWW-Authenticate", `Basic realm="x"`)
	h.Add("WWW-Authenticate", `Bearer error="insufficient_scope", scope="files:read files:write"`)
	c, ok := BearerChallenge(h)
	if !ok || c.Param("ERROR") != "insufficient_scope" {
		t.Fatalf("got %+v, %v", c, ok)
	}
	if got := c.Scopes(); !reflect.DeepEqual(got, []string{"files:read", "files:write"}) {
		t.Errorf("Scopes() = %q", got)
	}
	if _, ok := BearerChallenge(http.Header{}); ok {
		t.Error("found a challenge in no header")
	}
}

func TestFormatChallengeRoundTrip(t *testing.T) {
	s := formatChallenge("Bearer", "error", "invalid_token", "error_description", `say "hi" \ bye`+"\n", "scope", "", "resource_metadata", "https://x/y")
	want := `Bearer error="invalid_token", error_description="say \"hi\" \\ bye", resource_metadata="https://x/y"`
	if s != want {
		t.Fatalf("formatChallenge = %s\nwant %s", s, want)
	}
	c := ParseChallenges([]string{s})
	if len(c) != 1 || c[0].Param("error_description") != `say "hi" \ bye` {
		t.Errorf("round trip: %+v", c)
	}
}
