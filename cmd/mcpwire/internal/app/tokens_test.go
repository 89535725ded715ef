package app

import (
	"path/filepath"
	"testing"
)

// TestTokenStorePath: MCPWIRE_TOKENS, else XDG_CONFIG_HOME when
// absolute, else ~/.config.
func TestTokenStorePath(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{EnvTokens: "/t/tokens.json", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/t/tokens.json"},
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/mcpwire/tokens.json"},
		{map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/mcpwire/tokens.json"},
		{map[string]string{"HOME": "/h"}, "/h/.config/mcpwire/tokens.json"},
	} {
		got, err := TokenStorePath(func(k string) string { return tc.env[k] })
		if err != nil || got != filepath.FromSlash(tc.want) {
			t.Errorf("%v: %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
}
