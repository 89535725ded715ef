package streamable

import "testing"

// TestH1RemoveZone: the Host header has no IPv6 zone, as net/http
// writes it.
func TestH1RemoveZone(t *testing.T) {
	for in, want := range map[string]string{
		"[fe80::1%25en0]:8080": "[fe80::1]:8080",
		"[fe80::1%en0]":        "[fe80::1]",
		"[::1]:80":             "[::1]:80",
		"example.com:80":       "example.com:80",
		"[broken":              "[broken",
	} {
		if got := h1RemoveZone(in); got != want {
			t.Errorf("h1RemoveZone(%q) = %q, want %q", in, got, want)
		}
	}
}
