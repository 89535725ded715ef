package app

import (
	"bytes"
	"reflect"
	"testing"
)

// TestStderrMasks: what is written on stderr has the secrets masked,
// the longest first; values too short to be secrets are left alone.
func TestStderrMasks(t *testing.T) {
	var b bytes.Buffer
	a := New(nil, nil, &b)
	a.hide("tok-0123456789", "Bearer tok-0123456789", "short", "")
	a.Stderr.Write([]byte("mcpwire: 401: Bearer tok-0123456789 refused; token tok-0123456789 expired; short stays\n"))
	checkOutput(t, "stderr", b.String(), "mcpwire: 401: **** refused; token **** expired; short stays\n")
}

// TestEnviron: a configured server's environment is mcpwire's, without
// the variables it unsets, with its own last (so they win).
func TestEnviron(t *testing.T) {
	got := environ([]string{"PATH=/bin", "NODE_OPTIONS=--x", "HOME=/h", "A=old"}, []string{"A=new", "B=2"}, []string{"NODE_OPTIONS"})
	want := []string{"PATH=/bin", "HOME=/h", "A=old", "A=new", "B=2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
