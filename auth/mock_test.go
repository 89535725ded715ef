package auth

// Mock authorization servers and MCP servers reproducing the conformance
// suite's auth mocks (@modelcontextprotocol/conformance 0.1.16 and
// 0.2.0-alpha.12): the same routes, metadata, challenges and answers, and
// a record of every request so that tests check what the suite checks.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// tokenScopes remembers the scopes of the tokens a mock AS issued, for
// the mock MCP server to check (the suite's token verifier).
type tokenScopes struct {
	mu sync.Mutex
	m  map[string][]string
}

func (ts *tokenScopes) add(tok string, scopes []string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.m == nil {
		ts.m = map[string][]string{}
	}
	ts.m[tok] = scopes
}

func (ts *tokenScopes) get(tok string) ([]string, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	s, ok := ts.m[tok]
	return s, ok
}

type tokenReq struct {
	form  url.Values
	authz string
}

// asConfig configures a mock authorization server like the suite's
// createAuthServer.
type asConfig struct {
	prefix          string   // route prefix of the endpoints (and of the issuer)
	metadataPath    string   // default "/.well-known/oauth-authorization-server"
	issuer          string   // override the metadata issuer
	issSupported    *bool    // authorization_response_iss_parameter_supported; nil omits it
	issMode         string   // "correct" (default), "omit", "wrong", "normalized"
	scopesSupported []string // AS scopes_supported
	grantTypes      []string // default authorization_code, refresh_token
	authMethods     []string // default ["none"]
	signingAlgs     []string // token_endpoint_auth_signing_alg_values_supported
	cimd            bool     // client_id_metadata_document_supported
	noRegistration  bool     // no registration endpoint
	noPKCE          bool     // omit code_challenge_methods_supported
	regMethod       string   // token_endpoint_auth_method returned by DCR
	regNoSecret     bool     // DCR returns no secret
	regClientID     string   // DCR client_id; default "test-client-id"
	onToken         func(tokenReq) (token string, scopes []string, errCode string)
	routes          func(*http.ServeMux) // extra routes
}

type mockAS struct {
	t      *testing.T
	cfg    asConfig
	srv    *httptest.Server
	tokens *tokenScopes

	mu         sync.Mutex
	metadata   []string // paths of metadata documents served
	misses     []string // paths answered 404
	authorize  []url.Values
	token      []tokenReq
	register   []map[string]any
	challenge  string   // last code_challenge
	authScopes []string // scopes of the last authorization request
}

func newMockAS(t *testing.T, tokens *tokenScopes, cfg asConfig) *mockAS {
	t.Helper()
	if cfg.metadataPath == "" {
		cfg.metadataPath = WellKnownAuthorizationServer
	}
	if cfg.grantTypes == nil {
		cfg.grantTypes = []string{"authorization_code", "refresh_token"}
	}
	if cfg.authMethods == nil {
		cfg.authMethods = []string{"none"}
	}
	if cfg.issMode == "" {
		cfg.issMode = "correct"
	}
	if cfg.regClientID == "" {
		cfg.regClientID = "test-client-id"
	}
	as := &mockAS{t: t, cfg: cfg, tokens: tokens}
	mux := http.NewServeMux()
	if cfg.routes != nil {
		cfg.routes(mux)
	}
	mux.HandleFunc("/", as.serve)
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

func (as *mockAS) url() string { return as.srv.URL }

func (as *mockAS) iss() string {
	if as.cfg.issuer != "" {
		return as.cfg.issuer
	}
	return as.srv.URL + as.cfg.prefix
}

func (as *mockAS) serve(w http.ResponseWriter, r *http.Request) {
	p := as.cfg.prefix
	switch {
	case r.Method == http.MethodGet && r.URL.Path == as.cfg.metadataPath:
		as.serveMetadata(w)
	case r.Method == http.MethodGet && r.URL.Path == p+"/authorize":
		as.serveAuthorize(w, r)
	case r.Method == http.MethodPost && r.URL.Path == p+"/token":
		as.serveToken(w, r)
	case r.Method == http.MethodPost && r.URL.Path == p+"/register" && !as.cfg.noRegistration:
		as.serveRegister(w, r)
	default:
		as.mu.Lock()
		as.misses = append(as.misses, r.URL.Path)
		as.mu.Unlock()
		http.NotFound(w, r)
	}
}

func (as *mockAS) serveMetadata(w http.ResponseWriter) {
	as.mu.Lock()
	as.metadata = append(as.metadata, as.cfg.metadataPath)
	as.mu.Unlock()
	base := as.srv.URL + as.cfg.prefix
	md := map[string]any{
		"issuer":                                as.iss(),
		"authorization_endpoint":                base + "/authorize",
		"token_endpoint":                        base + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 as.cfg.grantTypes,
		"token_endpoint_auth_methods_supported": as.cfg.authMethods,
	}
	if !as.cfg.noRegistration {
		md["registration_endpoint"] = base + "/register"
	}
	if !as.cfg.noPKCE {
		md["code_challenge_methods_supported"] = []string{"S256"}
	}
	if as.cfg.issSupported != nil {
		md["authorization_response_iss_parameter_supported"] = *as.cfg.issSupported
	}
	if as.cfg.scopesSupported != nil {
		md["scopes_supported"] = as.cfg.scopesSupported
	}
	if as.cfg.signingAlgs != nil {
		md["token_endpoint_auth_signing_alg_values_supported"] = as.cfg.signingAlgs
	}
	if as.cfg.cimd {
		md["client_id_metadata_document_supported"] = true
	}
	writeJSON(w, http.StatusOK, md)
}

func (as *mockAS) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	as.authorize = append(as.authorize, q)
	as.challenge = q.Get("code_challenge")
	as.authScopes = strings.Fields(q.Get("scope"))
	as.mu.Unlock()
	target, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || target.Scheme == "" {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	tq := target.Query()
	tq.Set("code", "test-auth-code")
	if s := q.Get("state"); s != "" {
		tq.Set("state", s)
	}
	switch as.cfg.issMode {
	case "correct":
		tq.Set("iss", as.iss())
	case "wrong":
		tq.Set("iss", "https://evil.example.com")
	case "normalized":
		tq.Set("iss", as.iss()+"/")
	}
	target.RawQuery = tq.Encode()
	http.Redirect(w, r, target.String(), http.StatusFound)
}

func (as *mockAS) serveToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	tr := tokenReq{form: r.PostForm, authz: r.Header.Get("Authorization")}
	as.mu.Lock()
	as.token = append(as.token, tr)
	scopes := as.authScopes
	as.mu.Unlock()
	if s := r.PostForm.Get("scope"); s != "" {
		scopes = strings.Fields(s)
	}
	tok := fmt.Sprintf("test-token-%d", len(as.tokenRequests()))
	if as.cfg.onToken != nil {
		t, sc, code := as.cfg.onToken(tr)
		if code != "" {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": code})
			return
		}
		tok, scopes = t, sc
	}
	as.tokens.add(tok, scopes)
	resp := map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600}
	if len(scopes) > 0 {
		resp["scope"] = strings.Join(scopes, " ")
	}
	writeJSON(w, http.StatusOK, resp)
}

func (as *mockAS) serveRegister(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	as.mu.Lock()
	as.register = append(as.register, body)
	as.mu.Unlock()
	resp := map[string]any{
		"client_id":     as.cfg.regClientID,
		"client_name":   body["client_name"],
		"redirect_uris": body["redirect_uris"],
	}
	if !as.cfg.regNoSecret {
		resp["client_secret"] = "test-client-secret"
	}
	if as.cfg.regMethod != "" {
		resp["token_endpoint_auth_method"] = as.cfg.regMethod
	}
	writeJSON(w, http.StatusCreated, resp)
}

func (as *mockAS) authRequests() []url.Values {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]url.Values(nil), as.authorize...)
}

func (as *mockAS) tokenRequests() []tokenReq {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]tokenReq(nil), as.token...)
}

func (as *mockAS) registrations() []map[string]any {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]map[string]any(nil), as.register...)
}

func (as *mockAS) metadataServed() int {
	as.mu.Lock()
	defer as.mu.Unlock()
	return len(as.metadata)
}

func (as *mockAS) missed(path string) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	for _, m := range as.misses {
		if m == path {
			return true
		}
	}
	return false
}

// checkPKCE checks what the suite checks on every flow: a challenge was
// sent with method S256, a verifier was sent, and S256(verifier) is the
// challenge.
func (as *mockAS) checkPKCE(t *testing.T) {
	t.Helper()
	auths, toks := as.authRequests(), as.tokenRequests()
	if len(auths) == 0 || len(toks) == 0 {
		t.Fatalf("no authorization (%d) or token (%d) request", len(auths), len(toks))
	}
	a, tr := auths[len(auths)-1], toks[len(toks)-1]
	if a.Get("code_challenge") == "" || a.Get("code_challenge_method") != "S256" {
		t.Errorf("PKCE: challenge %q method %q", a.Get("code_challenge"), a.Get("code_challenge_method"))
	}
	v := tr.form.Get("code_verifier")
	if v == "" || pkceS256(v) != a.Get("code_challenge") {
		t.Errorf("PKCE: verifier %q does not match challenge %q", v, a.Get("code_challenge"))
	}
}

// checkResource checks the suite's resource-parameter checks: present in
// the authorization and token requests, a valid URI without fragment,
// identical in both, and equal to the PRM resource.
func (as *mockAS) checkResource(t *testing.T, prmResource string) {
	t.Helper()
	auths, toks := as.authRequests(), as.tokenRequests()
	if len(auths) == 0 || len(toks) == 0 {
		t.Fatalf("no authorization (%d) or token (%d) request", len(auths), len(toks))
	}
	ar, tr := auths[len(auths)-1].Get("resource"), toks[len(toks)-1].form.Get("resource")
	if ar == "" || tr == "" {
		t.Fatalf("resource: authorization %q, token %q", ar, tr)
	}
	if u, err := url.Parse(ar); err != nil || u.Fragment != "" || u.Scheme == "" {
		t.Errorf("resource %q is not a valid URI without fragment", ar)
	}
	if ar != tr {
		t.Errorf("resource differs: authorization %q, token %q", ar, tr)
	}
	if prmResource != "" && ar != prmResource {
		t.Errorf("resource %q, PRM published %q", ar, prmResource)
	}
}

// rsConfig configures a mock MCP server like the suite's createServer.
type rsConfig struct {
	prmPath         string // default "/.well-known/oauth-protected-resource/mcp"; "-" for none
	noPRMInHeader   bool
	resource        string   // override the PRM resource
	scopesSupported []string // PRM scopes_supported
	challengeScope  []string // scope of the 401 challenge (also required)
	trapRootPRM     bool
	asURL           func() string
	// auth, if set, replaces the default bearer check; it returns false
	// when it answered the request itself.
	auth func(w http.ResponseWriter, r *http.Request, method string) bool
}

type mockRS struct {
	t      *testing.T
	cfg    rsConfig
	srv    *httptest.Server
	tokens *tokenScopes

	mu          sync.Mutex
	prmRequests int
	rootPRM     bool
	served      []string // methods served
}

func newMockRS(t *testing.T, tokens *tokenScopes, cfg rsConfig) *mockRS {
	t.Helper()
	if cfg.prmPath == "" {
		cfg.prmPath = WellKnownProtectedResource + "/mcp"
	}
	rs := &mockRS{t: t, cfg: cfg, tokens: tokens}
	mux := http.NewServeMux()
	if cfg.prmPath != "-" {
		mux.HandleFunc("GET "+cfg.prmPath, rs.servePRM)
	}
	if cfg.trapRootPRM && cfg.prmPath != WellKnownProtectedResource {
		mux.HandleFunc("GET "+WellKnownProtectedResource, func(w http.ResponseWriter, r *http.Request) {
			rs.mu.Lock()
			rs.rootPRM = true
			rs.mu.Unlock()
			http.NotFound(w, r)
		})
	}
	mux.HandleFunc("POST /mcp", rs.serveMCP)
	rs.srv = httptest.NewServer(mux)
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *mockRS) mcpURL() string { return rs.srv.URL + "/mcp" }

func (rs *mockRS) prmResource() string {
	switch {
	case rs.cfg.resource != "":
		return rs.cfg.resource
	case rs.cfg.prmPath == WellKnownProtectedResource:
		return rs.srv.URL
	}
	return rs.srv.URL + "/mcp"
}

func (rs *mockRS) servePRM(w http.ResponseWriter, r *http.Request) {
	rs.mu.Lock()
	rs.prmRequests++
	rs.mu.Unlock()
	md := map[string]any{"resource": rs.prmResource(), "authorization_servers": []string{rs.cfg.asURL()}}
	if rs.cfg.scopesSupported != nil {
		md["scopes_supported"] = rs.cfg.scopesSupported
	}
	writeJSON(w, http.StatusOK, md)
}

func (rs *mockRS) metadataURL() string { return rs.srv.URL + rs.cfg.prmPath }

// challenge401 writes the 401 of the TypeScript SDK's requireBearerAuth,
// which the suite uses: error="invalid_token" even without a token.
func (rs *mockRS) challenge401(w http.ResponseWriter, desc string) {
	kv := []string{"error", "invalid_token", "error_description", desc}
	if len(rs.cfg.challengeScope) > 0 {
		kv = append(kv, "scope", strings.Join(rs.cfg.challengeScope, " "))
	}
	if !rs.cfg.noPRMInHeader && rs.cfg.prmPath != "-" {
		kv = append(kv, "resource_metadata", rs.metadataURL())
	}
	w.Header().Set("WWW-Authenticate", formatChallenge("Bearer", kv...))
	writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": desc})
}

func (rs *mockRS) serveMCP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if json.Unmarshal(body, &msg) != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	if rs.cfg.auth != nil {
		if !rs.cfg.auth(w, r, msg.Method) {
			return
		}
	} else if !rs.defaultAuth(w, r) {
		return
	}
	rs.mu.Lock()
	rs.served = append(rs.served, msg.Method)
	rs.mu.Unlock()
	if msg.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": map[string]any{}})
}

func (rs *mockRS) defaultAuth(w http.ResponseWriter, r *http.Request) bool {
	h := r.Header.Get("Authorization")
	if !strings.HasPrefix(h, "Bearer ") {
		rs.challenge401(w, "Missing Authorization header")
		return false
	}
	scopes, ok := rs.tokens.get(strings.TrimPrefix(h, "Bearer "))
	if !ok {
		rs.challenge401(w, "Invalid token")
		return false
	}
	for _, need := range rs.cfg.challengeScope {
		if !contains(scopes, need) {
			w.Header().Set("WWW-Authenticate", formatChallenge("Bearer", "error", "insufficient_scope",
				"scope", strings.Join(rs.cfg.challengeScope, " "), "resource_metadata", rs.metadataURL()))
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
			return false
		}
	}
	return true
}

func (rs *mockRS) prmCount() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.prmRequests
}

func (rs *mockRS) rootRequested() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.rootPRM
}

func (rs *mockRS) servedMethods() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.served...)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// testClient returns an HTTP client whose transport is a Transport with
// opts (AllowLoopbackHTTP and a HeadlessAuthorizer by default), closing
// its connections at the end of the test.
func testClient(t *testing.T, opts ClientOptions) (*http.Client, *Transport) {
	t.Helper()
	opts.AllowLoopbackHTTP = true
	if opts.Authorizer == nil && opts.grant() == GrantAuthorizationCode {
		opts.Authorizer = &HeadlessAuthorizer{}
	}
	base := &http.Transport{}
	tr, err := NewTransport(base, &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}, tr
}

// rpc posts a JSON-RPC request (or notification, with id 0) and returns
// the status, or the transport's error.
func rpc(c *http.Client, endpoint, method string, id int) (int, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": map[string]any{}}
	if id != 0 {
		msg["id"] = id
	}
	if method == "tools/call" {
		msg["params"] = map[string]any{"name": "test-tool", "arguments": map[string]any{}}
	}
	b, _ := json.Marshal(msg)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, endpoint, bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func boolp(b bool) *bool { return &b }

// httptestServer starts a server for handler, closed with the test, and
// returns its URL.
func httptestServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
