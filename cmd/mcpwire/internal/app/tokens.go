package app

import (
	"fmt"
	"os"
	"path/filepath"
)

// The token store is the file where mcpwire keeps, between runs, the
// OAuth tokens obtained by mcpwire login and the client registrations
// made with authorization servers: an auth.FileTokenStore, readable by
// its owner only (mode 0600, in a directory of mode 0700). The HTTP link
// sends its tokens (see connectHTTP); package login fills it.
//
// Where it is:
//
//	$MCPWIRE_TOKENS                       if set
//	$XDG_CONFIG_HOME/mcpwire/tokens.json  if XDG_CONFIG_HOME is an absolute path
//	~/.config/mcpwire/tokens.json         otherwise
const EnvTokens = "MCPWIRE_TOKENS"

// TokenStorePath returns the path of the token store, reading the
// environment with getenv.
func TokenStorePath(getenv func(string) string) (string, error) {
	if p := getenv(EnvTokens); p != "" {
		return p, nil
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "mcpwire", "tokens.json"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil || home == "" {
			return "", fmt.Errorf("cannot locate the token store: no home directory; set %s", EnvTokens)
		}
	}
	return filepath.Join(home, ".config", "mcpwire", "tokens.json"), nil
}
