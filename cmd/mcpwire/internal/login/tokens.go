package login

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// The token store (app.TokenStorePath) is an auth.FileTokenStore: login
// fills it, logout empties it, login --status lists it.

// maxTokenFile bounds the token store file mcpwire reads to list tokens.
const maxTokenFile = 4 << 20

// A storedToken is one token of the token store, as mcpwire login
// --status lists it.
type storedToken struct {
	Resource string     `json:"resource"`
	Issuer   string     `json:"issuer"`
	Token    auth.Token `json:"token"`
}

// readTokens lists the tokens of the token store at path, in the order
// of the file; none when the file does not exist. It reads the file that
// auth.FileTokenStore writes, {"tokens": [{"resource", "issuer",
// "token"}], "clients": {...}}, and nothing but the tokens.
func readTokens(path string) ([]storedToken, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token store: %v", app.UnwrapPathError(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return nil, fmt.Errorf("token store %s: %v", path, err)
	}
	if len(b) > maxTokenFile {
		return nil, fmt.Errorf("token store %s: larger than %d MiB", path, maxTokenFile>>20)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, nil
	}
	var file struct {
		Tokens []storedToken `json:"tokens"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("token store %s: %v", path, err)
	}
	return file.Tokens, nil
}

// tokensFor returns the tokens of list that belong to the MCP server at
// serverURL: those whose resource covers it.
func tokensFor(list []storedToken, serverURL string) []storedToken {
	var out []storedToken
	for _, t := range list {
		if covers(t.Resource, serverURL) {
			out = append(out, t)
		}
	}
	return out
}

// covers reports whether a token for resource is sent to the MCP server
// at serverURL: the rule of auth.Transport, same origin and the
// resource's path equal to the server's or a whole-segment prefix of it
// (a token for https://h is sent to https://h/mcp).
func covers(resource, serverURL string) bool {
	r, err1 := auth.CanonicalResourceURI(resource)
	s, err2 := auth.CanonicalResourceURI(serverURL)
	if err1 != nil || err2 != nil {
		return false
	}
	ru, err1 := url.Parse(r)
	su, err2 := url.Parse(s)
	if err1 != nil || err2 != nil || ru.Scheme != su.Scheme || ru.Host != su.Host {
		return false
	}
	return ru.EscapedPath() == su.EscapedPath() || strings.HasPrefix(su.EscapedPath(), ru.EscapedPath()+"/")
}

// requestedScopes returns the scopes requested for the tokens of list,
// merged, in order of appearance: a new login for the same server asks
// for them again, plus the new ones.
func requestedScopes(list []storedToken) []string {
	var out []string
	for _, t := range list {
		for _, s := range t.Token.Requested {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
