package sse

import (
	"net/url"
	"testing"
)

func TestResolveEndpoint(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:8080/mcp/sse?x=1")
	for _, tc := range []struct{ data, want string }{
		{"/messages?session=1", "http://127.0.0.1:8080/messages?session=1"},
		{"messages?s=2", "http://127.0.0.1:8080/mcp/messages?s=2"},
		{" http://127.0.0.1:8080/m ", "http://127.0.0.1:8080/m"},
		{"HTTP://127.0.0.1:8080/m", "http://127.0.0.1:8080/m"},
		{"http://127.0.0.1:9090/m", ""}, // another port
		{"https://127.0.0.1:8080/m", ""},
		{"//evil.example.com/m", ""},
		{"", ""},
	} {
		got, err := resolveEndpoint(base, tc.data)
		if (err != nil) != (tc.want == "") || got != tc.want {
			t.Errorf("resolveEndpoint(%q) = %q, %v; want %q", tc.data, got, err, tc.want)
		}
	}
}

func TestIsEventStream(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/event-stream":                true,
		"Text/Event-Stream; charset=utf-8": true,
		"application/json":                 false,
		"":                                 false,
	} {
		if IsEventStream(ct) != want {
			t.Errorf("IsEventStream(%q) = %v", ct, !want)
		}
	}
}
