package auth

// The Transport with DPoP, against mocks that behave like the
// conformance suite's auth/dpop and auth/dpop-nonce servers (an
// authorization server that binds tokens to the proof's key, an MCP
// server that wants DPoP and, optionally, their nonces) and checking
// what its checks check.

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Nonces of the mocks, constant as the suite's.
const (
	mockASNonce = "conformance-as-dpop-nonce"
	mockRSNonce = "conformance-rs-dpop-nonce"
)

type dpopMockConfig struct {
	algs        []string // dpop_signing_alg_values_supported; nil omits it
	asNonce     bool     // the token endpoint requires mockASNonce
	rsNonce     bool     // the MCP endpoint requires mockRSNonce
	bearerOnly  bool     // the AS ignores proofs and issues bearer tokens
	ttl         int      // expires_in; default 3600
	alwaysNonce bool     // the MCP endpoint wants a new nonce every time
	prmRequired bool     // the PRM sets dpop_bound_access_tokens_required
}

type proofSeen struct {
	sent   bool       // a DPoP header came with the request
	proof  *DPoPProof // nil when none or invalid
	err    error
	authz  string
	status int
}

// dpopMock is an authorization server and an MCP server on two ports.
type dpopMock struct {
	t   *testing.T
	cfg dpopMockConfig
	as  *httptest.Server
	rs  *httptest.Server
	asV *DPoPVerifier // checks token request proofs
	rsV *DPoPVerifier // checks MCP request proofs

	mu       sync.Mutex
	n        int
	issued   map[string]string // access token → jkt ("" for bearer)
	refresh  map[string]string // refresh token → jkt
	token    []proofSeen       // token requests
	grants   []string
	mcp      []proofSeen // MCP requests
	rsNonces int         // nonces handed out by the MCP server
}

func newDPoPMock(t *testing.T, cfg dpopMockConfig) *dpopMock {
	t.Helper()
	if cfg.ttl == 0 {
		cfg.ttl = 3600
	}
	m := &dpopMock{t: t, cfg: cfg, issued: map[string]string{}, refresh: map[string]string{}}
	var err error
	if m.asV, err = NewDPoPVerifier(nil); err != nil {
		t.Fatal(err)
	}
	if m.rsV, err = NewDPoPVerifier(nil); err != nil {
		t.Fatal(err)
	}
	asMux := http.NewServeMux()
	asMux.HandleFunc("GET "+WellKnownAuthorizationServer, m.asMetadata)
	asMux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": "dpop-client", "redirect_uris": []string{"http://127.0.0.1/callback"}, "token_endpoint_auth_method": "none"})
	})
	asMux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		cb, _ := url.Parse(q.Get("redirect_uri"))
		cb.RawQuery = url.Values{"code": {"c"}, "state": {q.Get("state")}, "iss": {m.as.URL}}.Encode()
		http.Redirect(w, r, cb.String(), http.StatusFound)
	})
	asMux.HandleFunc("POST /token", m.asToken)
	m.as = httptest.NewServer(asMux)
	t.Cleanup(m.as.Close)
	rsMux := http.NewServeMux()
	rsMux.HandleFunc("GET "+WellKnownProtectedResource+"/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"resource": m.rs.URL + "/mcp", "authorization_servers": []string{m.as.URL},
			"dpop_bound_access_tokens_required": m.cfg.prmRequired})
	})
	rsMux.HandleFunc("POST /mcp", m.rsMCP)
	m.rs = httptest.NewServer(rsMux)
	t.Cleanup(m.rs.Close)
	return m
}

func (m *dpopMock) mcpURL() string { return m.rs.URL + "/mcp" }

func (m *dpopMock) asMetadata(w http.ResponseWriter, r *http.Request) {
	md := map[string]any{
		"issuer": m.as.URL, "authorization_endpoint": m.as.URL + "/authorize", "token_endpoint": m.as.URL + "/token",
		"registration_endpoint": m.as.URL + "/register", "response_types_supported": []string{"code"},
		"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
		"grant_types_supported": []string{"authorization_code", "refresh_token"},
	}
	if m.cfg.algs != nil {
		md["dpop_signing_alg_values_supported"] = m.cfg.algs
	}
	writeJSON(w, 200, md)
}

// asToken issues a token bound to the key of the proof, when there is
// one (and the AS is not bearer-only), as RFC 9449 §5 describes.
func (m *dpopMock) asToken(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	seen := proofSeen{sent: r.Header.Get("DPoP") != ""}
	defer func() {
		m.mu.Lock()
		m.token = append(m.token, seen)
		m.grants = append(m.grants, r.PostForm.Get("grant_type"))
		m.mu.Unlock()
	}()
	var jkt string
	if r.Header.Get("DPoP") != "" && !m.cfg.bearerOnly {
		p, err := m.asV.Verify(r, m.as.URL+"/token", "")
		seen.proof, seen.err = p, err
		if err != nil {
			seen.status = 400
			writeJSON(w, 400, map[string]string{"error": "invalid_dpop_proof"})
			return
		}
		if m.cfg.asNonce && p.Nonce != mockASNonce {
			seen.status = 400
			w.Header().Set("DPoP-Nonce", mockASNonce)
			writeJSON(w, 400, map[string]string{"error": "use_dpop_nonce"})
			return
		}
		jkt = p.KeyThumbprint
	}
	m.mu.Lock()
	if r.PostForm.Get("grant_type") == "refresh_token" {
		bound, ok := m.refresh[r.PostForm.Get("refresh_token")]
		if !ok || bound != jkt {
			m.mu.Unlock()
			seen.status = 400
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
	}
	m.n++
	at, rt := fmt.Sprintf("at-%d", m.n), fmt.Sprintf("rt-%d", m.n)
	m.issued[at], m.refresh[rt] = jkt, jkt
	m.mu.Unlock()
	typ := "Bearer"
	if jkt != "" {
		typ = "DPoP"
	}
	seen.status = 200
	writeJSON(w, 200, map[string]any{"access_token": at, "token_type": typ, "expires_in": m.cfg.ttl, "refresh_token": rt})
}

// rsMCP wants a token: a DPoP-bound one with its proof (and the nonce,
// if configured), or a bearer one. Its challenges are the suite's:
// `DPoP resource_metadata="…"` alone.
func (m *dpopMock) rsMCP(w http.ResponseWriter, r *http.Request) {
	seen := proofSeen{authz: r.Header.Get("Authorization")}
	defer func() {
		m.mu.Lock()
		m.mcp = append(m.mcp, seen)
		m.mu.Unlock()
	}()
	prm := m.rs.URL + WellKnownProtectedResource + "/mcp"
	refuse := func(code string) {
		seen.status = 401
		w.Header().Set("WWW-Authenticate", formatChallenge("DPoP", "error", code, "resource_metadata", prm))
		writeJSON(w, 401, map[string]string{"error": "unauthorized"})
	}
	scheme, token, _ := strings.Cut(seen.authz, " ")
	m.mu.Lock()
	jkt, known := m.issued[token]
	m.mu.Unlock()
	switch {
	case seen.authz == "" || !known:
		refuse("")
		return
	case scheme == "Bearer" && jkt == "":
		seen.status = 200
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{}})
		return
	case scheme != "DPoP":
		refuse("invalid_token")
		return
	}
	p, err := m.rsV.Verify(r, m.mcpURL(), token)
	seen.proof, seen.err = p, err
	if err != nil || p.KeyThumbprint != jkt {
		refuse("invalid_dpop_proof")
		return
	}
	if m.cfg.alwaysNonce || (m.cfg.rsNonce && p.Nonce != mockRSNonce) {
		m.mu.Lock()
		m.rsNonces++
		n := m.rsNonces
		m.mu.Unlock()
		nonce := mockRSNonce
		if m.cfg.alwaysNonce {
			nonce = fmt.Sprintf("nonce-%d", n)
		}
		w.Header().Set("DPoP-Nonce", nonce)
		refuse("use_dpop_nonce")
		return
	}
	seen.status = 200
	writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{}})
}

func (m *dpopMock) seen() (token, mcp []proofSeen, grants []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]proofSeen(nil), m.token...), append([]proofSeen(nil), m.mcp...), append([]string(nil), m.grants...)
}

// The suite's auth/dpop checks: a valid proof at the token request, the
// DPoP scheme at the MCP server, a fresh well-formed proof every time.
func TestDPoPClientFlow(t *testing.T) {
	m := newDPoPMock(t, dpopMockConfig{algs: []string{"ES256"}})
	c, tr := testClient(t, ClientOptions{DPoP: &DPoPOptions{}})
	for _, method := range []string{"initialize", "tools/list", "tools/call"} {
		if status, err := rpc(c, m.mcpURL(), method, 1); err != nil || status != 200 {
			t.Fatalf("%s: %d %v", method, status, err)
		}
	}
	// Concurrent requests: each with its own proof.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if status, err := rpc(c, m.mcpURL(), "tools/list", 1); err != nil || status != 200 {
				t.Errorf("concurrent tools/list: %d %v", status, err)
			}
		})
	}
	wg.Wait()
	tokens, mcp, _ := m.seen()
	if len(tokens) != 1 || tokens[0].proof == nil || tokens[0].status != 200 {
		t.Fatalf("token requests %+v", tokens)
	}
	if p := tokens[0].proof; p.Method != "POST" || p.URL != m.as.URL+"/token" || p.AccessTokenHash != "" || p.Algorithm != "ES256" {
		t.Errorf("token request proof %+v", p)
	}
	jtis := map[string]bool{tokens[0].proof.ID: true}
	authenticated := 0
	for _, s := range mcp {
		if s.authz == "" {
			continue
		}
		authenticated++
		if !strings.HasPrefix(s.authz, "DPoP ") || s.proof == nil || s.status != 200 {
			t.Errorf("MCP request: %q, proof %+v, %v", s.authz, s.proof, s.err)
			continue
		}
		if jtis[s.proof.ID] {
			t.Error("a proof was reused")
		}
		jtis[s.proof.ID] = true
	}
	if authenticated != 11 {
		t.Errorf("%d authenticated MCP requests, want 11", authenticated)
	}
	tok := tr.Token(m.mcpURL())
	if tok == nil || tok.TokenType != "DPoP" || tok.DPoPKeyThumbprint != tokens[0].proof.KeyThumbprint {
		t.Errorf("token %+v", tok)
	}
}

// The suite's auth/dpop-nonce checks: the token request and the MCP
// request are each retried once with the server's nonce, and the nonces
// are remembered.
func TestDPoPClientNonces(t *testing.T) {
	// Tokens live 30 s, less than RefreshBefore: each later request
	// renews the token first, with the refresh token.
	m := newDPoPMock(t, dpopMockConfig{algs: []string{"ES256"}, asNonce: true, rsNonce: true, ttl: 30})
	c, _ := testClient(t, ClientOptions{DPoP: &DPoPOptions{}})
	for _, method := range []string{"initialize", "tools/list"} {
		if status, err := rpc(c, m.mcpURL(), method, 1); err != nil || status != 200 {
			t.Fatalf("%s: %d %v", method, status, err)
		}
	}
	tokens, mcp, grants := m.seen()
	if len(tokens) != 3 || tokens[0].status != 400 || tokens[1].status != 200 || tokens[1].proof.Nonce != mockASNonce || tokens[0].proof.ID == tokens[1].proof.ID {
		t.Fatalf("token requests %+v", tokens)
	}
	// The refresh carries a proof with the AS nonce it remembers, by
	// the same key (the refresh token is bound too).
	if last := tokens[2]; grants[2] != "refresh_token" || last.status != 200 || last.proof.Nonce != mockASNonce || last.proof.KeyThumbprint != tokens[1].proof.KeyThumbprint {
		t.Errorf("refresh: grant %s, %+v", grants[2], last)
	}
	// MCP: no token, 401; with the token, use_dpop_nonce; again with
	// the nonce, 200; the next request has the nonce from the start.
	var statuses []int
	for _, s := range mcp {
		statuses = append(statuses, s.status)
	}
	if fmt.Sprint(statuses) != "[401 401 200 200]" || mcp[2].proof.Nonce != mockRSNonce || mcp[3].proof.Nonce != mockRSNonce {
		t.Errorf("MCP statuses %v", statuses)
	}
}

// A server that asks for a new nonce every time gets one retry per
// request, not a loop.
func TestDPoPClientNonceRetryBounded(t *testing.T) {
	m := newDPoPMock(t, dpopMockConfig{algs: []string{"ES256"}, alwaysNonce: true})
	c, _ := testClient(t, ClientOptions{DPoP: &DPoPOptions{}})
	status, err := rpc(c, m.mcpURL(), "initialize", 1)
	if err != nil || status != 401 {
		t.Fatalf("%d %v", status, err)
	}
	if _, mcp, _ := m.seen(); len(mcp) != 3 {
		t.Errorf("%d MCP requests, want 3 (no token, token, one nonce retry)", len(mcp))
	}
}

// RFC 9449 §5: an authorization server that ignores DPoP issues a bearer
// token, which is used as such; unless DPoP is required.
func TestDPoPClientBearerFallback(t *testing.T) {
	m := newDPoPMock(t, dpopMockConfig{algs: []string{"ES256"}, bearerOnly: true})
	c, tr := testClient(t, ClientOptions{DPoP: &DPoPOptions{}})
	if status, err := rpc(c, m.mcpURL(), "initialize", 1); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	if _, mcp, _ := m.seen(); !strings.HasPrefix(mcp[len(mcp)-1].authz, "Bearer ") {
		t.Errorf("scheme %q", mcp[len(mcp)-1].authz)
	}
	if tok := tr.Token(m.mcpURL()); tok.bound() {
		t.Errorf("token %+v", tok)
	}

	m = newDPoPMock(t, dpopMockConfig{algs: []string{"ES256"}, bearerOnly: true})
	c, _ = testClient(t, ClientOptions{DPoP: &DPoPOptions{Require: true}})
	if _, err := rpc(c, m.mcpURL(), "initialize", 1); !errors.Is(err, ErrDPoPUnsupported) {
		t.Errorf("Require and a Bearer token: %v", err)
	}

	// The resource requires DPoP-bound tokens: as if Require were set.
	m = newDPoPMock(t, dpopMockConfig{bearerOnly: true, prmRequired: true})
	c, _ = testClient(t, ClientOptions{DPoP: &DPoPOptions{}})
	if _, err := rpc(c, m.mcpURL(), "initialize", 1); !errors.Is(err, ErrDPoPUnsupported) {
		t.Errorf("dpop_bound_access_tokens_required and a Bearer token: %v", err)
	}
	if tokens, _, _ := m.seen(); len(tokens) != 1 || !tokens[0].sent {
		t.Errorf("token requests %+v (a proof is due even without advertisement)", tokens)
	}
}

func TestTransportChallengeSchemes(t *testing.T) {
	h := http.Header{"Www-Authenticate": {`DPoP algs="ES256", error="invalid_token", scope="a"`, `Bearer error="invalid_token", scope="b"`}}
	plain, _ := NewTransport(nil, nil)
	if ch, ok := plain.challenge(h, true); !ok || ch.Scheme != "Bearer" {
		t.Errorf("without DPoP: %+v %v", ch, ok)
	}
	dpop, _ := NewTransport(nil, &ClientOptions{DPoP: &DPoPOptions{}})
	if ch, ok := dpop.challenge(h, true); !ok || ch.Scheme != "DPoP" || ch.Param("scope") != "a" {
		t.Errorf("DPoP token: %+v %v", ch, ok)
	}
	if ch, ok := dpop.challenge(h, false); !ok || ch.Scheme != "Bearer" {
		t.Errorf("bearer token: %+v %v", ch, ok)
	}
	only := http.Header{"Www-Authenticate": {`DPoP resource_metadata="https://h/.well-known/oauth-protected-resource"`}}
	if _, ok := plain.challenge(only, false); ok {
		t.Error("a DPoP challenge taken without DPoP")
	}
	if ch, ok := dpop.challenge(only, false); !ok || ch.Param("resource_metadata") == "" {
		t.Errorf("DPoP-only challenge: %+v %v", ch, ok)
	}
}

// Proofs go only to servers that advertise DPoP, unless Always.
func TestDPoPClientAdvertisement(t *testing.T) {
	m := newDPoPMock(t, dpopMockConfig{})
	c, _ := testClient(t, ClientOptions{DPoP: &DPoPOptions{}})
	if status, err := rpc(c, m.mcpURL(), "initialize", 1); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	if tokens, mcp, _ := m.seen(); tokens[0].proof != nil || !strings.HasPrefix(mcp[len(mcp)-1].authz, "Bearer ") {
		t.Errorf("not advertised: proof %+v, %q", tokens[0].proof, mcp[len(mcp)-1].authz)
	}

	m = newDPoPMock(t, dpopMockConfig{})
	c, _ = testClient(t, ClientOptions{DPoP: &DPoPOptions{Always: true}})
	if status, err := rpc(c, m.mcpURL(), "initialize", 1); err != nil || status != 200 {
		t.Fatalf("Always: %d %v", status, err)
	}
	if tokens, mcp, _ := m.seen(); tokens[0].proof == nil || !strings.HasPrefix(mcp[len(mcp)-1].authz, "DPoP ") {
		t.Errorf("Always: proof %+v, %q", tokens[0].proof, mcp[len(mcp)-1].authz)
	}
}

// The algorithm is one the server lists; a key that has none gets no
// DPoP, or an error when it is required.
func TestDPoPClientAlgorithms(t *testing.T) {
	m := newDPoPMock(t, dpopMockConfig{algs: []string{"RS256"}})
	c, _ := testClient(t, ClientOptions{DPoP: &DPoPOptions{}}) // P-256
	if status, err := rpc(c, m.mcpURL(), "initialize", 1); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	if tokens, _, _ := m.seen(); tokens[0].proof != nil {
		t.Error("an ES256 proof sent to an RS256-only server")
	}
	c, _ = testClient(t, ClientOptions{DPoP: &DPoPOptions{Require: true}})
	if _, err := rpc(c, newDPoPMock(t, dpopMockConfig{algs: []string{"RS256"}}).mcpURL(), "initialize", 1); !errors.Is(err, ErrDPoPUnsupported) {
		t.Errorf("required, no common algorithm: %v", err)
	}

	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	m = newDPoPMock(t, dpopMockConfig{algs: []string{"ES256", "PS256", "none"}})
	c, _ = testClient(t, ClientOptions{DPoP: &DPoPOptions{Key: rsaKey}})
	if status, err := rpc(c, m.mcpURL(), "initialize", 1); err != nil || status != 200 {
		t.Fatalf("RSA: %d %v", status, err)
	}
	if tokens, _, _ := m.seen(); tokens[0].proof == nil || tokens[0].proof.Algorithm != "PS256" {
		t.Errorf("RSA key: proof %+v", tokens[0].proof)
	}
	if _, err := NewTransport(nil, &ClientOptions{DPoP: &DPoPOptions{Key: rsaKey, Algorithm: "ES256"}}); err == nil {
		t.Error("ES256 with an RSA key accepted")
	}
}

// A stored token bound to another key (another process's ephemeral key)
// is useless: the Transport authorizes again.
func TestDPoPClientForeignStoredToken(t *testing.T) {
	m := newDPoPMock(t, dpopMockConfig{algs: []string{"ES256"}})
	store := &MemoryTokenStore{}
	store.SetToken(t.Context(), m.mcpURL(), m.as.URL, &Token{AccessToken: "stolen", TokenType: "DPoP", DPoPKeyThumbprint: "another-key",
		Resource: m.mcpURL(), Issuer: m.as.URL, Expiry: time.Now().Add(time.Hour)})
	c, tr := testClient(t, ClientOptions{DPoP: &DPoPOptions{}, Store: store})
	if status, err := rpc(c, m.mcpURL(), "initialize", 1); err != nil || status != 200 {
		t.Fatalf("%d %v", status, err)
	}
	if tok := tr.Token(m.mcpURL()); tok == nil || tok.AccessToken == "stolen" || tok.DPoPKeyThumbprint != tr.dpop.key.jkt {
		t.Errorf("token %+v", tok)
	}
	// Without DPoP, a bound token is not sent as a bearer token either.
	store.SetToken(t.Context(), m.mcpURL(), m.as.URL, &Token{AccessToken: "bound", TokenType: "DPoP", DPoPKeyThumbprint: "k",
		Resource: m.mcpURL(), Issuer: m.as.URL, Expiry: time.Now().Add(time.Hour)})
	c, _ = testClient(t, ClientOptions{Store: store})
	rpc(c, m.mcpURL(), "initialize", 1)
	for _, s := range func() []proofSeen { _, mcp, _ := m.seen(); return mcp }() {
		if strings.HasSuffix(s.authz, " bound") {
			t.Errorf("bound token sent: %q", s.authz)
		}
	}
}

// A DPoP-only challenge is not for a Transport without DPoP.
func TestDPoPChallengeWithoutDPoP(t *testing.T) {
	m := newDPoPMock(t, dpopMockConfig{algs: []string{"ES256"}})
	c, _ := testClient(t, ClientOptions{})
	status, err := rpc(c, m.mcpURL(), "initialize", 1)
	if err != nil || status != 401 {
		t.Fatalf("%d %v", status, err)
	}
	if tokens, _, _ := m.seen(); len(tokens) != 0 {
		t.Error("authorized for a DPoP-only challenge without DPoP")
	}
}

func TestDPoPOptionsInvalid(t *testing.T) {
	if _, err := NewTransport(nil, &ClientOptions{DPoP: &DPoPOptions{Key: opaqueSigner{badSigner{}}}}); err == nil {
		t.Error("unsupported key type accepted")
	}
}

type badSigner struct{ crypto.Signer }

func (badSigner) Public() crypto.PublicKey { return "not a key" }
