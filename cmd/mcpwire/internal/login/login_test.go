package login

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/clitest"
)

// TestLoginFlow goes through the life of a login against an OAuth
// protected server: refused without a login (and no browser opened),
// login (the loopback authorizer driven by fetching its URL), commands
// using the stored token in both eras, step-up through another login,
// renewal of an expired token, logout.
func TestLoginFlow(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{OAuth: true, ToolScopes: map[string][]string{"add": {"mcp:admin"}}})
	c := newCLIEnv(t)

	// No login: a hint, exit status 4, no browser, nothing stored.
	c.NoBrowser = true
	c.Fails(app.ExitConnect, "mcpwire: the server at "+s.URL+" needs authorization: run mcpwire login --url "+s.URL, "tools", "--url", s.URL)
	if _, err := os.Stat(c.Store); !os.IsNotExist(err) {
		t.Fatalf("the token store exists before any login: %v", err)
	}
	c.Fails(app.ExitFailure, "mcpwire: not logged in to "+s.URL+" (run mcpwire login --url "+s.URL+")", "login", "--status", "--url", s.URL)
	clitest.CheckOutput(t, "login --status", c.OK("login", "--status"), "Not logged in to any server (token store: "+c.Store+").\n")

	// Login: the browser is sent to the authorization URL, printed on
	// stderr; the token is stored, readable by its owner only.
	c.NoBrowser = false
	code, stdout, stderr := c.Run("login", "--url", s.URL)
	if code != app.ExitOK || c.Visits.Load() != 1 {
		t.Fatalf("login: exit %d, %d visits\nstderr: %s", code, c.Visits.Load(), stderr)
	}
	if !regexp.MustCompile(`^To authorize, open this URL in your browser:\n\n  ` + regexp.QuoteMeta(s.AS.URL) + `/authorize\?\S+\n\n$`).MatchString(stderr) {
		t.Errorf("login stderr:\n%s", stderr)
	}
	want := "Logged in to " + s.URL + ".\n\n" + s.URL + "\n" +
		"  Issuer:   " + s.AS.URL + "\n" +
		"  Scopes:   mcp:basic offline_access\n" +
		"  Expires:  in 1h (renewable)\n\n" +
		"Token store: " + c.Store + "\n"
	clitest.CheckOutput(t, "login", stdout, want)
	if st, err := os.Stat(c.Store); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token store: %v, %v", st, err)
	}
	if st, err := os.Stat(filepath.Dir(c.Store)); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("token store directory: %v, %v", st, err)
	}
	if n, _, _, scope := s.AS.Stats(); n != 1 || scope != "mcp:basic offline_access" {
		t.Errorf("%d authorizations, scope %q", n, scope)
	}

	// The commands send the stored token, in both eras, without a browser.
	c.NoBrowser = true
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		clitest.CheckOutput(t, "call echo", c.OK("call", "echo", "--args", `{"text":"authorized"}`, "--protocol", protocol, "--url", s.URL), "authorized\n")
	}

	// A tool that needs another scope: a hint to log in for it.
	c.Fails(app.ExitConnect, "mcpwire: the server needs more authorization (scope mcp:basic mcp:admin): run mcpwire login --url "+s.URL+" --scope mcp:basic --scope mcp:admin",
		"call", "add", "--args", `{"a":1,"b":2}`, "--url", s.URL)
	c.NoBrowser = false
	c.OK("login", "--url", s.URL, "--scope", "mcp:admin")
	if n, _, _, scope := s.AS.Stats(); n != 2 || scope != "mcp:basic offline_access mcp:admin" {
		t.Errorf("step-up login: %d authorizations, scope %q (want the union)", n, scope)
	}
	c.NoBrowser = true
	clitest.CheckOutput(t, "call add", c.OK("call", "add", "--args", `{"a":1,"b":2}`, "--url", s.URL), "{\n  \"sum\": 3\n}\n")

	// The access token expires: renewed with the refresh token, and the
	// new one stored.
	before := readStore(t, c.Store)
	s.AS.ExpireAll()
	c.OK("tools", "--url", s.URL)
	after := readStore(t, c.Store)
	if _, refreshes, _, _ := s.AS.Stats(); refreshes != 1 || after == before {
		t.Errorf("after expiry: %d refreshes; token changed: %v", refreshes, after != before)
	}
	c.OK("tools", "--url", s.URL) // the renewed token, at once
	if _, refreshes, _, _ := s.AS.Stats(); refreshes != 1 {
		t.Errorf("%d refreshes, want 1", refreshes)
	}

	// Expired and not renewable: log in again.
	s.AS.ExpireAll()
	s.AS.RevokeRefreshTokens()
	c.Fails(app.ExitConnect, "mcpwire: the server at "+s.URL+" needs authorization: run mcpwire login --url "+s.URL, "tools", "--url", s.URL)
	c.NoBrowser = false
	c.OK("login", "--url", s.URL)
	c.NoBrowser = true

	// --status, and --json, which never shows tokens. (The token that
	// could not be renewed was dropped, and its scopes with it.)
	status := c.OK("login", "--status", "--url", s.URL)
	if !strings.HasPrefix(status, s.URL+"\n  Issuer:   "+s.AS.URL+"\n  Scopes:   mcp:basic offline_access\n  Expires:  in 1h (renewable)\n") {
		t.Errorf("login --status:\n%s", status)
	}
	var js struct {
		Store  string        `json:"store"`
		Tokens []tokenStatus `json:"tokens"`
	}
	out := c.OK("login", "--status", "--json")
	if err := json.Unmarshal([]byte(out), &js); err != nil || js.Store != c.Store || len(js.Tokens) != 1 ||
		js.Tokens[0].Server != s.URL || !js.Tokens[0].Renewable || js.Tokens[0].Expired {
		t.Errorf("login --status --json: %v\n%s", err, out)
	}
	if tok := storedAccessToken(t, c.Store); strings.Contains(status+out, tok) {
		t.Error("login --status shows the token")
	}

	// Logout forgets the token: the server wants a login again.
	clitest.CheckOutput(t, "logout", c.OK("logout", "--url", s.URL), "Logged out of "+s.URL+": forgot 1 token.\n")
	clitest.CheckOutput(t, "logout", c.OK("logout", "--url", s.URL), "Not logged in to "+s.URL+"; nothing to forget.\n")
	c.Fails(app.ExitConnect, "mcpwire: the server at "+s.URL+" needs authorization: run mcpwire login --url "+s.URL, "tools", "--url", s.URL)
}

// TestLoginPreRegistered: --client-id and --client-secret (read from a
// file) identify the client at an authorization server without dynamic
// registration; later commands renew the token with the same client.
func TestLoginPreRegistered(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{OAuth: true, NoDCR: true, Clients: map[string]string{"cli-app": "s3cret"}})
	c := newCLIEnv(t)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.Fails(app.ExitFailure, "mcpwire: login to "+s.URL+" failed: no way to register with the authorization server: "+s.AS.URL+" has no registration endpoint; configure pre-registered credentials",
		"login", "--url", s.URL)
	c.OK("login", "--url", s.URL, "--client-id", "cli-app", "--client-secret", "@"+secret)
	if _, _, client, _ := s.AS.Stats(); client != "cli-app" {
		t.Errorf("authorized client %q", client)
	}
	s.AS.ExpireAll()
	c.NoBrowser = true
	c.OK("tools", "--url", s.URL)
	if _, refreshes, _, _ := s.AS.Stats(); refreshes != 1 {
		t.Errorf("%d refreshes with the pre-registered client", refreshes)
	}
	// A wrong secret is the authorization server's refusal.
	c.NoBrowser = false
	c.Stdin = "wrong\n"
	c.Fails(app.ExitFailure, "mcpwire: login to "+s.URL+" failed: token endpoint answered 401: invalid_client", "login", "--url", s.URL, "--client-id", "cli-app", "--client-secret", "-")
}

// TestLoginClientMetadataDocument: --client-metadata-url is the client id
// at a server that accepts Client ID Metadata Documents, and stays the
// client of later renewals.
func TestLoginClientMetadataDocument(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{OAuth: true, CIMD: true})
	c := newCLIEnv(t)
	const doc = "https://client.example/mcpwire.json"
	c.OK("login", "--url", s.URL, "--client-metadata-url", doc)
	if _, _, client, _ := s.AS.Stats(); client != doc {
		t.Errorf("authorized client %q", client)
	}
	s.AS.ExpireAll()
	c.NoBrowser = true
	c.OK("tools", "--url", s.URL)
	if _, refreshes, _, _ := s.AS.Stats(); refreshes != 1 {
		t.Errorf("%d refreshes with the Client ID Metadata Document", refreshes)
	}
}

// TestLoginTimeout: a browser that never comes back ends the login at
// --timeout; nothing is stored.
func TestLoginTimeout(t *testing.T) {
	s := clitest.ServeHTTP(t, clitest.HTTPServerOptions{OAuth: true})
	c := newCLIEnv(t)
	c.Fails(app.ExitFailure, "mcpwire: login timed out after 300ms (see --timeout)", "login", "--url", s.URL, "--no-browser", "--timeout", "300ms")
	if toks, _ := readTokens(c.Store); len(toks) != 0 {
		t.Errorf("stored %v", toks)
	}
}

// TestLoginTimeoutAuthorizerFirst: when the loopback authorizer's own
// timer (as long as --timeout, started a little later) ends the wait
// before the login's context notices its deadline, the login still timed
// out: TestLoginTimeout failed about 1 run in 30 with "no authorization
// response within 300ms".
func TestLoginTimeoutAuthorizerFirst(t *testing.T) {
	o := &loginOptions{URL: "http://127.0.0.1:1/mcp", Timeout: 300 * time.Millisecond}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	err := loginError(ctx, errors.New("authorization: auth: no authorization response within 300ms"), o)
	if got, want := app.Message(err), "login timed out after 300ms (see --timeout)"; got != want {
		t.Errorf("message %q, want %q", got, want)
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
	e := clitest.NewEnv(t, clitest.ServerOptions{}, Family())
	e.App.Getenv = func(k string) string { return map[string]string{app.EnvTokens: path}[k] }
	e.App.Now = func() time.Time { return now }
	if code := e.Execute("login", "--status"); code != app.ExitOK {
		t.Fatalf("exit %d: %s", code, e.Stderr.String())
	}
	clitest.CheckOutput(t, "login --status", e.Stdout.String(), `https://a.example/mcp
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
	e.Stdout.Reset()
	if code := e.Execute("login", "--status", "--url", "https://B.example:443/x/mcp"); code != app.ExitOK {
		t.Fatalf("exit %d: %s", code, e.Stderr.String())
	}
	if out := e.Stdout.String(); !strings.HasPrefix(out, "https://b.example\n") || strings.Count(out, "Issuer:") != 1 {
		t.Errorf("login --status --url:\n%s", out)
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
