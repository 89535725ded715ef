package auth

// End to end: an authorization server issuing real ES256 JWTs (keys
// published as a JWKS), an MCP-like JSON-RPC endpoint protected by the
// middleware with a JWTVerifier, and a client whose Transport discovers,
// registers, authorizes, steps up, refreshes and retries.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

type grant struct {
	client, redirect, challenge, resource, scope string
	jkt                                          string // DPoP key of the tokens (and of the refresh token)
}

// testAS is a small but honest OAuth 2.1 authorization server.
type testAS struct {
	t     *testing.T
	srv   *httptest.Server
	key   *ecdsa.PrivateKey
	ttl   time.Duration
	clock *testClock
	dpop  *DPoPVerifier // if set, tokens are bound to the key of the request's DPoP proof

	mu            sync.Mutex
	clients       map[string][]string // client_id → redirect URIs
	codes         map[string]grant
	refresh       map[string]grant
	authorizeN    int
	scopesAsked   []string
	refreshGrants int
}

type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestAS(t *testing.T, clock *testClock) *testAS {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	as := &testAS{t: t, key: key, ttl: time.Hour, clock: clock,
		clients: map[string][]string{}, codes: map[string]grant{}, refresh: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+WellKnownAuthorizationServer, as.metadata)
	mux.HandleFunc("GET /jwks", as.jwks)
	mux.HandleFunc("POST /register", as.register)
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *testAS) metadata(w http.ResponseWriter, r *http.Request) {
	u := as.srv.URL
	writeJSON(w, 200, AuthServerMetadata{
		Issuer: u, AuthorizationEndpoint: u + "/authorize", TokenEndpoint: u + "/token", RegistrationEndpoint: u + "/register",
		JWKSURI: u + "/jwks", ScopesSupported: []string{"mcp:basic", "mcp:admin", "offline_access"},
		ResponseTypesSupported: []string{"code"}, GrantTypesSupported: []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"none"}, CodeChallengeMethodsSupported: []string{"S256"},
		AuthorizationResponseIssParameterSupported: true,
		DPoPSigningAlgValuesSupported:              as.dpopAlgs(),
	})
}

func (as *testAS) dpopAlgs() []string {
	if as.dpop == nil {
		return nil
	}
	return as.dpop.Algorithms()
}

// tokenDPoP checks the DPoP proof of a token request, when the server
// binds tokens and there is one, and returns the key's thumbprint. It
// answers the request itself on a refused proof (false).
func (as *testAS) tokenDPoP(w http.ResponseWriter, r *http.Request) (jkt string, ok bool) {
	if as.dpop == nil || r.Header.Get("DPoP") == "" {
		return "", true
	}
	p, err := as.dpop.Verify(r, as.srv.URL+"/token", "")
	switch {
	case errors.Is(err, ErrUseDPoPNonce):
		w.Header().Set("DPoP-Nonce", as.dpop.Nonce())
		writeJSON(w, 400, map[string]string{"error": "use_dpop_nonce"})
		return "", false
	case err != nil:
		writeJSON(w, 400, map[string]string{"error": "invalid_dpop_proof", "error_description": err.Error()})
		return "", false
	}
	return p.KeyThumbprint, true
}

func (as *testAS) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 200, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &as.key.PublicKey, KeyID: "as-key", Algorithm: "ES256", Use: "sig"}}})
}

func (as *testAS) register(w http.ResponseWriter, r *http.Request) {
	var req registrationRequest
	if json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req) != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := randomToken(8)
	as.mu.Lock()
	as.clients[id] = req.RedirectURIs
	as.mu.Unlock()
	writeJSON(w, 201, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (as *testAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	defer as.mu.Unlock()
	uris, ok := as.clients[q.Get("client_id")]
	if !ok || !contains(uris, q.Get("redirect_uri")) || q.Get("code_challenge_method") != "S256" || q.Get("resource") == "" {
		http.Error(w, "bad authorization request", 400)
		return
	}
	as.authorizeN++
	as.scopesAsked = append(as.scopesAsked, q.Get("scope"))
	code := randomToken(16)
	as.codes[code] = grant{q.Get("client_id"), q.Get("redirect_uri"), q.Get("code_challenge"), q.Get("resource"), q.Get("scope"), ""}
	cb, _ := url.Parse(q.Get("redirect_uri"))
	cq := url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {as.srv.URL}}
	cb.RawQuery = cq.Encode()
	http.Redirect(w, r, cb.String(), http.StatusFound)
}

func (as *testAS) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.PostForm
	jkt, ok := as.tokenDPoP(w, r)
	if !ok {
		return
	}
	as.mu.Lock()
	var g grant
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := as.codes[f.Get("code")]
		delete(as.codes, f.Get("code"))
		if !ok || c.client != f.Get("client_id") || c.redirect != f.Get("redirect_uri") ||
			pkceS256(f.Get("code_verifier")) != c.challenge || c.resource != f.Get("resource") {
			as.mu.Unlock()
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		g = c
		g.jkt = jkt
	case "refresh_token":
		c, ok := as.refresh[f.Get("refresh_token")]
		delete(as.refresh, f.Get("refresh_token")) // rotation
		if !ok || c.client != f.Get("client_id") || c.resource != f.Get("resource") || c.jkt != jkt {
			as.mu.Unlock()
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		as.refreshGrants++
		g = c
	default:
		as.mu.Unlock()
		writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	rt := randomToken(16)
	as.refresh[rt] = g
	as.mu.Unlock()
	typ := "Bearer"
	if g.jkt != "" {
		typ = "DPoP"
	}
	writeJSON(w, 200, map[string]any{"access_token": as.mintBound(g.resource, g.client, g.scope, g.jkt), "token_type": typ,
		"expires_in": int(as.ttl.Seconds()), "refresh_token": rt, "scope": g.scope})
}

// mint signs an access token for resource.
func (as *testAS) mint(resource, client, scope string) string {
	return as.mintBound(resource, client, scope, "")
}

// mintBound signs an access token for resource, bound to the DPoP key
// whose thumbprint is jkt when it is not "".
func (as *testAS) mintBound(resource, client, scope, jkt string) string {
	s, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: as.key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "as-key"))
	now := as.clock.now()
	claims := map[string]any{
		"iss": as.srv.URL, "sub": "alice", "aud": resource, "client_id": client, "scope": scope,
		"iat": now.Unix(), "exp": now.Add(as.ttl).Unix(), "jti": randomToken(8),
	}
	if jkt != "" {
		claims["cnf"] = map[string]any{"jkt": jkt}
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		as.t.Fatal(err)
	}
	return tok
}

func (as *testAS) stats() (authorizations, refreshes int, scopes []string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.authorizeN, as.refreshGrants, append([]string(nil), as.scopesAsked...)
}

func (as *testAS) revokeRefreshTokens() {
	as.mu.Lock()
	clear(as.refresh)
	as.mu.Unlock()
}

func TestEndToEnd(t *testing.T) {
	clock := &testClock{t: time.Now()}
	as := newTestAS(t, clock)

	// The MCP server: a JSON-RPC endpoint at /mcp behind the middleware.
	mcpSrv := httptest.NewUnstartedServer(nil)
	resource := "http://" + mcpSrv.Listener.Addr().String() + "/mcp"
	verifier, err := NewJWTVerifier(&JWTOptions{Issuer: as.srv.URL, Audience: resource, JWKSURL: as.srv.URL + "/jwks", ClockSkew: -1})
	if err != nil {
		t.Fatal(err)
	}
	verifier.now = clock.now
	rs, err := NewResourceServer(&ResourceOptions{
		Resource: resource, AuthorizationServers: []string{as.srv.URL}, Verifier: verifier,
		Scopes: []string{"mcp:basic"}, ToolScopes: map[string][]string{"admin": {"mcp:admin"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var unauthorized atomic.Int32
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{"principal": Principal(r.Context())}})
	})
	mux := http.NewServeMux()
	if err := rs.Mount(mux, mcp, true); err != nil {
		t.Fatal(err)
	}
	mcpSrv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w}
		mux.ServeHTTP(rec, r)
		if rec.status == http.StatusUnauthorized {
			unauthorized.Add(1)
		}
	})
	mcpSrv.Start()
	t.Cleanup(mcpSrv.Close)

	c, tr := testClient(t, ClientOptions{})
	call := func(tool string) map[string]any {
		t.Helper()
		method, params := "tools/list", `{}`
		if tool != "" {
			method, params = "tools/call", `{"name":"`+tool+`","arguments":{}}`
		}
		body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":` + params + `}`
		resp, err := c.Post(resource, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %v", method, tool, resp.StatusCode, out)
		}
		return out
	}

	// 1. Discovery, registration, authorization.
	out := call("")
	if p := out["result"].(map[string]any)["principal"]; p != as.srv.URL+"#alice" {
		t.Errorf("principal %v", p)
	}
	if n, _, scopes := as.stats(); n != 1 || scopes[0] != "mcp:basic" {
		t.Fatalf("%d authorizations, scopes %q", n, scopes)
	}

	// 2. A tool needing another scope: step-up with the union.
	call("admin")
	if n, _, scopes := as.stats(); n != 2 || scopes[1] != "mcp:basic mcp:admin" {
		t.Fatalf("%d authorizations, scopes %q", n, scopes)
	}
	call("admin")
	if n, _, _ := as.stats(); n != 2 {
		t.Errorf("%d authorizations after a second admin call", n)
	}

	// 3a. The token expired (server's clock): 401, refresh, retry.
	clock.advance(2 * time.Hour)
	call("admin")
	n, refreshes, _ := as.stats()
	if n != 2 || refreshes != 1 {
		t.Errorf("after expiry: %d authorizations, %d refreshes", n, refreshes)
	}

	// 3b. About to expire (client's clock): refreshed before sending.
	before := unauthorized.Load()
	tr.now = func() time.Time { return clock.now().Add(as.ttl - 30*time.Second) }
	call("")
	tr.now = clock.now
	if _, refreshes, _ := as.stats(); refreshes != 2 || unauthorized.Load() != before {
		t.Errorf("proactive refresh: %d refreshes, %d new 401s", refreshes, unauthorized.Load()-before)
	}

	// 3c. Refresh refused: a new authorization.
	as.revokeRefreshTokens()
	clock.advance(2 * time.Hour)
	call("")
	if n, _, _ := as.stats(); n != 3 {
		t.Errorf("after a refused refresh: %d authorizations, want 3", n)
	}

	// 4. A token for another audience is refused.
	other := as.mint("http://"+mcpSrv.Listener.Addr().String()+"/other", "x", "mcp:basic mcp:admin")
	req, _ := http.NewRequest(http.MethodPost, resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+other)
	resp, err := c.Do(req) // an Authorization header set by the caller passes through
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ch, _ := BearerChallenge(resp.Header)
	if resp.StatusCode != 401 || ch.Param("error") != "invalid_token" || ch.Param("resource_metadata") != rs.MetadataURL() {
		t.Errorf("foreign-audience token: %d %v", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	// The store holds the token under the resource and the issuer.
	if tok, _ := tr.store.Token(t.Context(), resource, as.srv.URL); tok == nil || tok.RefreshToken == "" {
		t.Errorf("stored token %+v", tok)
	}
	if got := tr.Token(resource); got == nil || got.Resource != resource {
		t.Errorf("Transport.Token = %+v", got)
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func TestLoginAndLogout(t *testing.T) {
	clock := &testClock{t: time.Now()}
	as := newTestAS(t, clock)
	mcpSrv := httptest.NewUnstartedServer(nil)
	resource := "http://" + mcpSrv.Listener.Addr().String() + "/mcp"
	mux := http.NewServeMux()
	mux.Handle(WellKnownProtectedResource+"/mcp", MetadataHandler(ProtectedResourceMetadata{
		Resource: resource, AuthorizationServers: []string{as.srv.URL}, ScopesSupported: []string{"mcp:basic"}}))
	mcpSrv.Config.Handler = mux
	mcpSrv.Start()
	t.Cleanup(mcpSrv.Close)

	store := NewFileTokenStore(t.TempDir() + "/tokens.json")
	_, tr := testClient(t, ClientOptions{Store: store})
	tok, err := tr.Login(t.Context(), resource)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Resource != resource || tok.Issuer != as.srv.URL || fmt.Sprint(tok.Requested) != "[mcp:basic]" {
		t.Errorf("token %+v", tok)
	}
	// Another process (a new Transport on the same store) finds it.
	if got, _ := store.Token(t.Context(), resource, as.srv.URL); got == nil || got.AccessToken != tok.AccessToken {
		t.Errorf("stored %+v", got)
	}
	if c, _ := store.Client(t.Context(), as.srv.URL); c == nil || c.ClientID == "" {
		t.Errorf("registration not stored: %+v", c)
	}
	if err := tr.Logout(t.Context(), resource); err != nil {
		t.Fatal(err)
	}
	if got, _ := store.Token(t.Context(), resource, as.srv.URL); got != nil || tr.Token(resource) != nil {
		t.Error("token kept after Logout")
	}
}
