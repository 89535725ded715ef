package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/auth"
)

// TestLoginFlow goes through the life of a login against an OAuth
// protected server: refused without a login (and no browser opened),
// login (the loopback authorizer driven by fetching its URL), commands
// using the stored token in both eras, step-up through another login,
// renewal of an expired token, logout.
func TestLoginFlow(t *testing.T) {
	s := serveHTTP(t, httpServerOptions{oauth: true, toolScopes: map[string][]string{"add": {"mcp:admin"}}})
	c := newCLIEnv(t)

	// No login: a hint, exit status 4, no browser, nothing stored.
	c.noBrowser = true
	c.fails(exitConnect, "mcpwire: the server at "+s.URL+" needs authorization: run mcpwire login --url "+s.URL, "tools", "--url", s.URL)
	if _, err := os.Stat(c.store); !os.IsNotExist(err) {
		t.Fatalf("the token store exists before any login: %v", err)
	}
	c.fails(exitFailure, "mcpwire: not logged in to "+s.URL+" (run mcpwire login --url "+s.URL+")", "login", "--status", "--url", s.URL)
	checkOutput(t, "login --status", c.ok("login", "--status"), "Not logged in to any server (token store: "+c.store+").\n")

	// Login: the browser is sent to the authorization URL, printed on
	// stderr; the token is stored, readable by its owner only.
	c.noBrowser = false
	code, stdout, stderr := c.run("login", "--url", s.URL)
	if code != exitOK || c.visits.Load() != 1 {
		t.Fatalf("login: exit %d, %d visits\nstderr: %s", code, c.visits.Load(), stderr)
	}
	if !regexp.MustCompile(`^To authorize, open this URL in your browser:\n\n  ` + regexp.QuoteMeta(s.as.URL) + `/authorize\?\S+\n\n$`).MatchString(stderr) {
		t.Errorf("login stderr:\n%s", stderr)
	}
	want := "Logged in to " + s.URL + ".\n\n" + s.URL + "\n" +
		"  Issuer:   " + s.as.URL + "\n" +
		"  Scopes:   mcp:basic offline_access\n" +
		"  Expires:  in 1h (renewable)\n\n" +
		"Token store: " + c.store + "\n"
	checkOutput(t, "login", stdout, want)
	if st, err := os.Stat(c.store); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token store: %v, %v", st, err)
	}
	if st, err := os.Stat(filepath.Dir(c.store)); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("token store directory: %v, %v", st, err)
	}
	if n, _, _, scope := s.as.stats(); n != 1 || scope != "mcp:basic offline_access" {
		t.Errorf("%d authorizations, scope %q", n, scope)
	}

	// The commands send the stored token, in both eras, without a browser.
	c.noBrowser = true
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		checkOutput(t, "call echo", c.ok("call", "echo", "--args", `{"text":"authorized"}`, "--protocol", protocol, "--url", s.URL), "authorized\n")
	}

	// A tool that needs another scope: a hint to log in for it.
	c.fails(exitConnect, "mcpwire: the server needs more authorization (scope mcp:basic mcp:admin): run mcpwire login --url "+s.URL+" --scope mcp:basic --scope mcp:admin",
		"call", "add", "--args", `{"a":1,"b":2}`, "--url", s.URL)
	c.noBrowser = false
	c.ok("login", "--url", s.URL, "--scope", "mcp:admin")
	if n, _, _, scope := s.as.stats(); n != 2 || scope != "mcp:basic offline_access mcp:admin" {
		t.Errorf("step-up login: %d authorizations, scope %q (want the union)", n, scope)
	}
	c.noBrowser = true
	checkOutput(t, "call add", c.ok("call", "add", "--args", `{"a":1,"b":2}`, "--url", s.URL), "{\n  \"sum\": 3\n}\n")

	// The access token expires: renewed with the refresh token, and the
	// new one stored.
	before := readStore(t, c.store)
	s.as.expireAll()
	c.ok("tools", "--url", s.URL)
	after := readStore(t, c.store)
	if _, refreshes, _, _ := s.as.stats(); refreshes != 1 || after == before {
		t.Errorf("after expiry: %d refreshes; token changed: %v", refreshes, after != before)
	}
	c.ok("tools", "--url", s.URL) // the renewed token, at once
	if _, refreshes, _, _ := s.as.stats(); refreshes != 1 {
		t.Errorf("%d refreshes, want 1", refreshes)
	}

	// Expired and not renewable: log in again.
	s.as.expireAll()
	s.as.revokeRefreshTokens()
	c.fails(exitConnect, "mcpwire: the server at "+s.URL+" needs authorization: run mcpwire login --url "+s.URL, "tools", "--url", s.URL)
	c.noBrowser = false
	c.ok("login", "--url", s.URL)
	c.noBrowser = true

	// --status, and --json, which never shows tokens. (The token that
	// could not be renewed was dropped, and its scopes with it.)
	status := c.ok("login", "--status", "--url", s.URL)
	if !strings.HasPrefix(status, s.URL+"\n  Issuer:   "+s.as.URL+"\n  Scopes:   mcp:basic offline_access\n  Expires:  in 1h (renewable)\n") {
		t.Errorf("login --status:\n%s", status)
	}
	var js struct {
		Store  string        `json:"store"`
		Tokens []tokenStatus `json:"tokens"`
	}
	out := c.ok("login", "--status", "--json")
	if err := json.Unmarshal([]byte(out), &js); err != nil || js.Store != c.store || len(js.Tokens) != 1 ||
		js.Tokens[0].Server != s.URL || !js.Tokens[0].Renewable || js.Tokens[0].Expired {
		t.Errorf("login --status --json: %v\n%s", err, out)
	}
	if tok := storedAccessToken(t, c.store); strings.Contains(status+out, tok) {
		t.Error("login --status shows the token")
	}

	// Logout forgets the token: the server wants a login again.
	checkOutput(t, "logout", c.ok("logout", "--url", s.URL), "Logged out of "+s.URL+": forgot 1 token.\n")
	checkOutput(t, "logout", c.ok("logout", "--url", s.URL), "Not logged in to "+s.URL+"; nothing to forget.\n")
	c.fails(exitConnect, "mcpwire: the server at "+s.URL+" needs authorization: run mcpwire login --url "+s.URL, "tools", "--url", s.URL)
}

// TestLoginPreRegistered: --client-id and --client-secret (read from a
// file) identify the client at an authorization server without dynamic
// registration; later commands renew the token with the same client.
func TestLoginPreRegistered(t *testing.T) {
	s := serveHTTP(t, httpServerOptions{oauth: true, noDCR: true, clients: map[string]string{"cli-app": "s3cret"}})
	c := newCLIEnv(t)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.fails(exitFailure, "mcpwire: login to "+s.URL+" failed: no way to register with the authorization server: "+s.as.URL+" has no registration endpoint; configure pre-registered credentials",
		"login", "--url", s.URL)
	c.ok("login", "--url", s.URL, "--client-id", "cli-app", "--client-secret", "@"+secret)
	if _, _, client, _ := s.as.stats(); client != "cli-app" {
		t.Errorf("authorized client %q", client)
	}
	s.as.expireAll()
	c.noBrowser = true
	c.ok("tools", "--url", s.URL)
	if _, refreshes, _, _ := s.as.stats(); refreshes != 1 {
		t.Errorf("%d refreshes with the pre-registered client", refreshes)
	}
	// A wrong secret is the authorization server's refusal.
	c.noBrowser = false
	c.stdin = "wrong\n"
	c.fails(exitFailure, "mcpwire: login to "+s.URL+" failed: token endpoint answered 401: invalid_client", "login", "--url", s.URL, "--client-id", "cli-app", "--client-secret", "-")
}

// TestLoginClientMetadataDocument: --client-metadata-url is the client id
// at a server that accepts Client ID Metadata Documents, and stays the
// client of later renewals.
func TestLoginClientMetadataDocument(t *testing.T) {
	s := serveHTTP(t, httpServerOptions{oauth: true, cimd: true})
	c := newCLIEnv(t)
	const doc = "https://client.example/mcpwire.json"
	c.ok("login", "--url", s.URL, "--client-metadata-url", doc)
	if _, _, client, _ := s.as.stats(); client != doc {
		t.Errorf("authorized client %q", client)
	}
	s.as.expireAll()
	c.noBrowser = true
	c.ok("tools", "--url", s.URL)
	if _, refreshes, _, _ := s.as.stats(); refreshes != 1 {
		t.Errorf("%d refreshes with the Client ID Metadata Document", refreshes)
	}
}

// TestLoginTimeout: a browser that never comes back ends the login at
// --timeout; nothing is stored.
func TestLoginTimeout(t *testing.T) {
	s := serveHTTP(t, httpServerOptions{oauth: true})
	c := newCLIEnv(t)
	c.fails(exitFailure, "mcpwire: login timed out after 300ms (see --timeout)", "login", "--url", s.URL, "--no-browser", "--timeout", "300ms")
	if toks, _ := readTokens(c.store); len(toks) != 0 {
		t.Errorf("stored %v", toks)
	}
}

// TestLoginStatusOutput: the text of --status, with a fixed clock.
func TestLoginStatusOutput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	store := auth.NewFileTokenStore(path)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tok := range []auth.Token{
		{Resource: "https://a.example/mcp", Issuer: "https://as.example", AccessToken: "secret-1", RefreshToken: "r", Scopes: []string{"mcp:basic"}, Expiry: now.Add(59*time.Minute + 40*time.Second)},
		{Resource: "https://b.example", Issuer: "https://as.example", AccessToken: "secret-2", Expiry: now.Add(-3 * time.Minute)},
		{Resource: "https://c.example/mcp", Issuer: "https://other.example", AccessToken: "secret-3", RefreshToken: "r", Expiry: now.Add(-50 * time.Hour)},
	} {
		if err := store.SetToken(context.Background(), tok.Resource, tok.Issuer, &tok); err != nil {
			t.Fatal(err)
		}
	}
	e := newTestEnv(t, testServerOptions{})
	e.app.getenv = func(k string) string { return map[string]string{envTokens: path}[k] }
	e.app.now = func() time.Time { return now }
	if code := e.execute("login", "--status"); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	checkOutput(t, "login --status", e.stdout.String(), `https://a.example/mcp
  Issuer:   https://as.example
  Scopes:   mcp:basic
  Expires:  in 1h (renewable)

https://b.example
  Issuer:   https://as.example
  Scopes:   (none)
  Expires:  3m ago: log in again

https://c.example/mcp
  Issuer:   https://other.example
  Scopes:   (none)
  Expires:  2d2h ago (renewed when next used)

Token store: `+path+"\n")
	// --url selects the tokens sent to that server: a token for a whole
	// origin is sent to its every path.
	e.stdout.Reset()
	if code := e.execute("login", "--status", "--url", "https://B.example:443/x/mcp"); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.stderr.String())
	}
	if out := e.stdout.String(); !strings.HasPrefix(out, "https://b.example\n") || strings.Count(out, "Issuer:") != 1 {
		t.Errorf("login --status --url:\n%s", out)
	}
}

// TestTokenStorePath: MCPWIRE_TOKENS, else XDG_CONFIG_HOME when
// absolute, else ~/.config.
func TestTokenStorePath(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{envTokens: "/t/tokens.json", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/t/tokens.json"},
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/mcpwire/tokens.json"},
		{map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/mcpwire/tokens.json"},
		{map[string]string{"HOME": "/h"}, "/h/.config/mcpwire/tokens.json"},
	} {
		got, err := tokenStorePath(func(k string) string { return tc.env[k] })
		if err != nil || got != filepath.FromSlash(tc.want) {
			t.Errorf("%v: %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
}

// TestCovers: which stored tokens go to which server (auth.Transport's
// rule).
func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		resource, server string
		want             bool
	}{
		{"https://h.example/mcp", "https://h.example/mcp", true},
		{"https://h.example/mcp", "https://H.example:443/mcp/", true},
		{"https://h.example", "https://h.example/mcp", true},
		{"https://h.example/m", "https://h.example/mcp", false},
		{"https://h.example/mcp", "https://h.example/mcp/sub", true},
		{"https://h.example/mcp", "http://h.example/mcp", false},
		{"https://h.example/mcp", "https://h.example:8443/mcp", false},
		{"not a url", "https://h.example/mcp", false},
	} {
		if got := covers(tc.resource, tc.server); got != tc.want {
			t.Errorf("covers(%q, %q) = %v", tc.resource, tc.server, got)
		}
	}
}

// TestRoughly: durations as --status writes them.
func TestRoughly(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 42 * time.Second: "42s", 59*time.Minute + 40*time.Second: "1h", 65 * time.Minute: "1h5m",
		3 * time.Hour: "3h", 50 * time.Hour: "2d2h", 48 * time.Hour: "2d",
	} {
		if got := roughly(d); got != want {
			t.Errorf("roughly(%v) = %q, want %q", d, got, want)
		}
	}
}

// readStore returns the token store's file.
func readStore(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// storedAccessToken returns the access token of the only stored token.
func storedAccessToken(t *testing.T, path string) string {
	t.Helper()
	toks, err := readTokens(path)
	if err != nil || len(toks) != 1 || toks[0].Token.AccessToken == "" {
		t.Fatalf("stored tokens: %v %v", toks, err)
	}
	return toks[0].Token.AccessToken
}
