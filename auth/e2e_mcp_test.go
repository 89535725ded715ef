package auth_test

// End to end with the real MCP pieces: a server.Server (a few tools, one
// of which needs an extra scope, one of which asks the user), served by
// streamable.NewHandler with sessions bound to the token's principal,
// behind the ResourceServer middleware with a JWTVerifier, on 127.0.0.1;
// an authorization server inside the test that issues ES256 JWTs
// (published as a JWKS) through the authorization code grant with PKCE,
// with refresh tokens; and, for each user, the mcpwire client over
// streamable.NewTransport whose HTTP client is an auth.Transport that
// completes the flow with a headless authorizer.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// e2eAS is the authorization server of the test. It grants every
// authorization request at once, to the user named by login_hint (alice
// by default), for the scopes asked.
type e2eAS struct {
	url string
	srv *httptest.Server
	key *ecdsa.PrivateKey

	mu             sync.Mutex
	clients        map[string][]string // client id → redirect URIs
	codes          map[string]e2eGrant
	refresh        map[string]e2eGrant
	authorizations []string // the scope of each authorization, in order
	refreshes      int
}

// An e2eGrant is what a code or a refresh token stands for.
type e2eGrant struct {
	user, client, redirect, challenge, resource, scope string
}

func newE2EAS(t *testing.T) *e2eAS {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	as := &e2eAS{key: key, clients: map[string][]string{}, codes: map[string]e2eGrant{},
		refresh: map[string]e2eGrant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", as.metadata)
	mux.HandleFunc("GET /jwks", as.jwks)
	mux.HandleFunc("POST /register", as.register)
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
	as.srv = httptest.NewServer(mux)
	as.url = as.srv.URL
	t.Cleanup(as.srv.Close)
	return as
}

func (as *e2eAS) metadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, auth.AuthServerMetadata{
		Issuer: as.url, AuthorizationEndpoint: as.url + "/authorize", TokenEndpoint: as.url + "/token",
		RegistrationEndpoint: as.url + "/register", JWKSURI: as.url + "/jwks",
		ScopesSupported:                            []string{"mcp:basic", "mcp:admin"},
		ResponseTypesSupported:                     []string{"code"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		AuthorizationResponseIssParameterSupported: true,
	})
}

func (as *e2eAS) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &as.key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
}

func (as *e2eAS) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req) != nil || len(req.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := rand.Text()
	as.mu.Lock()
	as.clients[id] = req.RedirectURIs
	as.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (as *e2eAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	defer as.mu.Unlock()
	uris, ok := as.clients[q.Get("client_id")]
	if !ok || !slices.Contains(uris, q.Get("redirect_uri")) || q.Get("response_type") != "code" ||
		q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	user := q.Get("login_hint")
	if user == "" {
		user = "alice"
	}
	as.authorizations = append(as.authorizations, q.Get("scope"))
	code := rand.Text()
	as.codes[code] = e2eGrant{user: user, client: q.Get("client_id"), redirect: q.Get("redirect_uri"),
		challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope")}
	cb, _ := url.Parse(q.Get("redirect_uri"))
	cb.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {as.url}}.Encode()
	http.Redirect(w, r, cb.String(), http.StatusFound)
}

func (as *e2eAS) token(w http.ResponseWriter, r *http.Request) {
	if r.ParseForm() != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	as.mu.Lock()
	var g e2eGrant
	var ok bool
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok = as.codes[f.Get("code")]
		delete(as.codes, f.Get("code")) // single use
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		ok = ok && g.client == f.Get("client_id") && g.redirect == f.Get("redirect_uri") &&
			g.resource == f.Get("resource") && base64.RawURLEncoding.EncodeToString(sum[:]) == g.challenge
	case "refresh_token":
		g, ok = as.refresh[f.Get("refresh_token")]
		delete(as.refresh, f.Get("refresh_token")) // rotation
		ok = ok && g.client == f.Get("client_id") && g.resource == f.Get("resource")
		if ok {
			as.refreshes++
		}
	}
	if !ok {
		as.mu.Unlock()
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
		return
	}
	rt := rand.Text()
	as.refresh[rt] = g
	as.mu.Unlock()
	ttl := time.Hour
	resp := map[string]any{"access_token": as.mint(g.user, g.resource, g.client, g.scope, ttl), "token_type": "Bearer",
		"refresh_token": rt, "scope": g.scope, "expires_in": int(ttl / time.Second)}
	writeJSON(w, http.StatusOK, resp)
}

// mint signs an access token (RFC 9068) of user for resource.
func (as *e2eAS) mint(user, resource, client, scope string, ttl time.Duration) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: as.key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", "k1"))
	if err != nil {
		panic(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(signer).Claims(map[string]any{
		"iss": as.url, "sub": user, "aud": resource, "client_id": client, "scope": scope,
		"iat": now.Unix(), "exp": now.Add(ttl).Unix(), "jti": rand.Text(),
	}).Serialize()
	if err != nil {
		panic(err)
	}
	return tok
}

// stats returns the scopes of the authorizations so far and the number
// of refreshes.
func (as *e2eAS) stats() ([]string, int) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return slices.Clone(as.authorizations), as.refreshes
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// e2eEnv is the MCP server behind the middleware, and its
// authorization server.
type e2eEnv struct {
	t        *testing.T
	as       *e2eAS
	resource string // the MCP endpoint, http://127.0.0.1:PORT/mcp
	rs       *auth.ResourceServer
	revoker  *revoker        // the resource server's revocation list
	base     *http.Transport // every client's connections, closed at the end
}

// A revoker is a resource server's revocation list in front of its token
// verifier: it refuses, as invalid, the tokens it was told to, as a token
// that expired or was revoked is refused before its client knows.
type revoker struct {
	auth.TokenVerifier
	mu      sync.Mutex
	seen    map[string][]string // subject → the jti of each token seen
	revoked map[string]bool     // by jti
}

func (r *revoker) VerifyToken(ctx context.Context, token string) (*auth.TokenInfo, error) {
	info, err := r.TokenVerifier.VerifyToken(ctx, token)
	if err != nil {
		return nil, err
	}
	jti, _ := info.Claims["jti"].(string)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.revoked[jti] {
		return nil, fmt.Errorf("%w: revoked", auth.ErrInvalidToken)
	}
	if !slices.Contains(r.seen[info.Subject], jti) {
		r.seen[info.Subject] = append(r.seen[info.Subject], jti)
	}
	return info, nil
}

// revokeAll refuses every token of subject seen so far.
func (r *revoker) revokeAll(subject string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, jti := range r.seen[subject] {
		r.revoked[jti] = true
	}
}

func newE2E(t *testing.T) *e2eEnv {
	e := &e2eEnv{t: t, as: newE2EAS(t), base: &http.Transport{}}
	t.Cleanup(e.base.CloseIdleConnections)
	srv := server.New(mcp.Implementation{Name: "e2e", Version: "1.0.0"}, &server.Options{Principal: auth.Principal})
	type text struct {
		Text string `json:"text"`
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(server.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes the text."},
		func(ctx context.Context, r *server.Request, in text) (string, error) { return in.Text, nil }))
	must(server.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "Names the caller."},
		func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
			return auth.Principal(ctx), nil
		}))
	must(server.AddTool(srv, &mcp.Tool{Name: "admin_report", Description: "Needs mcp:admin."},
		func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
			return "report for " + auth.Principal(ctx), nil
		}))
	must(server.AddTool(srv, &mcp.Tool{Name: "confirm", Description: "Asks the user first."},
		func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
			res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Go ahead?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)})
			if err != nil {
				return "", err
			}
			return "confirmed by " + auth.Principal(ctx) + ": " + string(res.Action), nil
		}))

	mcpSrv := httptest.NewUnstartedServer(nil)
	e.resource = "http://" + mcpSrv.Listener.Addr().String() + "/mcp"
	verifier, err := auth.NewJWTVerifier(&auth.JWTOptions{
		Issuer: e.as.url, Audience: e.resource, JWKSURL: e.as.url + "/jwks", ClockSkew: -1,
		TokenTypes: []string{"at+jwt"}, HTTPClient: &http.Client{Transport: e.base},
	})
	must(err)
	e.revoker = &revoker{TokenVerifier: verifier, seen: map[string][]string{}, revoked: map[string]bool{}}
	e.rs, err = auth.NewResourceServer(&auth.ResourceOptions{
		Resource: e.resource, AuthorizationServers: []string{e.as.url}, Verifier: e.revoker,
		Scopes: []string{"mcp:basic"}, ToolScopes: map[string][]string{"admin_report": {"mcp:admin"}},
	})
	must(err)
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{
		SessionOwner: func(r *http.Request) string { return auth.Principal(r.Context()) },
	})
	mux := http.NewServeMux()
	must(e.rs.Mount(mux, h, true))
	mcpSrv.Config.Handler = mux
	mcpSrv.Start()
	t.Cleanup(func() {
		srv.Close()
		h.Close()
		mcpSrv.CloseClientConnections()
		mcpSrv.Close()
	})
	return e
}

// An e2eUser is one user's MCP client: an HTTP client whose transport
// authorizes as that user.
type e2eUser struct {
	e  *e2eEnv
	tr *auth.Transport
	hc *http.Client
}

func (e *e2eEnv) user(name string) *e2eUser {
	headless := &auth.HeadlessAuthorizer{HTTPClient: &http.Client{
		Transport:     e.base,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
	tr, err := auth.NewTransport(e.base, &auth.ClientOptions{
		Authorizer:        userAuthorizer{name, headless},
		AllowLoopbackHTTP: true,
		HTTPClient:        &http.Client{Transport: e.base, Timeout: 10 * time.Second},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(tr.CloseIdleConnections)
	return &e2eUser{e: e, tr: tr, hc: &http.Client{Transport: tr}}
}

// connect opens a session of the given revision ("" to negotiate: the
// stateless era) and returns it with its legacy session id ("" in the
// stateless era).
func (u *e2eUser) connect(ctx context.Context, version mcp.Version) (*client.Session, string) {
	u.e.t.Helper()
	g := &connGrabber{Transport: streamable.NewTransport(u.e.resource, &streamable.ClientOptions{HTTPClient: u.hc, DisableSSEFallback: true})}
	c := client.New(mcp.Implementation{Name: "e2e-client", Version: "1"}, &client.Options{
		Version: version,
		Elicit: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"ok": true}}, nil
		},
	})
	sess, err := c.Connect(ctx, g)
	if err != nil {
		u.e.t.Fatalf("connect (%q): %v", version, err)
	}
	u.e.t.Cleanup(func() { sess.Close() })
	var sid string
	if s, ok := g.conn.(interface{ SessionID() string }); ok {
		sid = s.SessionID()
	}
	return sess, sid
}

// userAuthorizer completes authorization headlessly as one user: the
// authorization server of the test signs in whoever login_hint names.
type userAuthorizer struct {
	name string
	h    *auth.HeadlessAuthorizer
}

func (a userAuthorizer) RedirectURI() string { return a.h.RedirectURI() }

func (a userAuthorizer) Authorize(ctx context.Context, authURL string) (*url.URL, error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("login_hint", a.name)
	u.RawQuery = q.Encode()
	return a.h.Authorize(ctx, u.String())
}

// connGrabber keeps the connection of a transport, to read its session id.
type connGrabber struct {
	transport.Transport
	conn transport.Conn
}

func (g *connGrabber) Connect(ctx context.Context) (transport.Conn, error) {
	c, err := g.Transport.Connect(ctx)
	g.conn = c
	return c, err
}

// callText calls a tool and returns the text of its result.
func callText(t *testing.T, ctx context.Context, s *client.Session, tool string, args string) string {
	t.Helper()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s: %+v", tool, res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: %+v", tool, res.Content[0])
	}
	return tc.Text
}

// TestEndToEndMCP runs the MCP client against the MCP server behind the
// middleware, as several users, in both protocol eras.
func TestEndToEndMCP(t *testing.T) {
	e := newE2E(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	alice := e.user("alice")
	aliceID := e.as.url + "#alice"

	// 1. The stateless era: discovery, registration, authorization for
	// the scopes of the challenge, then tools listed and called.
	modern, _ := alice.connect(ctx, "")
	if !modern.IsModern() {
		t.Fatalf("negotiated %s, want the stateless era", modern.ProtocolVersion())
	}
	var names []string
	for tool, err := range modern.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "admin_report confirm echo whoami" {
		t.Errorf("tools %q", names)
	}
	if got := callText(t, ctx, modern, "echo", `{"text":"hi"}`); got != "hi" {
		t.Errorf("echo: %q", got)
	}
	if got := callText(t, ctx, modern, "whoami", `{}`); got != aliceID {
		t.Errorf("whoami: %q, want %q", got, aliceID)
	}
	if scopes, _ := e.as.stats(); len(scopes) != 1 || scopes[0] != "mcp:basic" {
		t.Fatalf("authorizations %q, want one for mcp:basic", scopes)
	}

	// 2. A legacy session with the same token: no new authorization.
	legacy, aliceSID := alice.connect(ctx, mcp.Version20251125)
	if legacy.IsModern() || aliceSID == "" {
		t.Fatalf("legacy session: %s, id %q", legacy.ProtocolVersion(), aliceSID)
	}
	if _, err := legacy.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := callText(t, ctx, legacy, "whoami", `{}`); got != aliceID {
		t.Errorf("whoami in the legacy session: %q", got)
	}

	// 3. Step-up: admin_report needs mcp:admin. 403 insufficient_scope,
	// a new authorization for the union of the scopes, the same call
	// again, in the same session.
	if got := callText(t, ctx, legacy, "admin_report", `{}`); got != "report for "+aliceID {
		t.Errorf("admin_report: %q", got)
	}
	if scopes, _ := e.as.stats(); len(scopes) != 2 || scopes[1] != "mcp:basic mcp:admin" {
		t.Fatalf("authorizations %q, want a second one for mcp:basic mcp:admin", scopes)
	}
	if got := callText(t, ctx, modern, "admin_report", `{}`); got != "report for "+aliceID {
		t.Errorf("admin_report in the stateless era: %q", got)
	}
	if scopes, _ := e.as.stats(); len(scopes) != 2 {
		t.Errorf("%d authorizations after the step-up, want 2", len(scopes))
	}

	// 4. A token of this authorization server, signed with its key, but
	// for another audience: 401 invalid_token.
	foreign := e.as.mint("alice", strings.TrimSuffix(e.resource, "/mcp")+"/other", "x", "mcp:basic mcp:admin", time.Hour)
	status, hdr, _ := rawPost(t, &http.Client{Transport: e.base}, e.resource, http.Header{"Authorization": {"Bearer " + foreign}}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if ch, _ := auth.BearerChallenge(hdr); status != http.StatusUnauthorized || ch.Param("error") != "invalid_token" || ch.Param("resource_metadata") != e.rs.MetadataURL() {
		t.Errorf("token for another audience: %d %q", status, hdr.Get("WWW-Authenticate"))
	}
	rejected := streamable.NewTransport(e.resource, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: e.base},
		Header: http.Header{"Authorization": {"Bearer " + foreign}}, DisableSSEFallback: true})
	if s, err := client.New(mcp.Implementation{Name: "x", Version: "1"}, nil).Connect(ctx, rejected); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("the MCP client with a token for another audience: %v", err)
		if s != nil {
			s.Close()
		}
	}

	// 5. Another user's session id: 404, as for a session that does not
	// exist, for every method; alice's session is untouched.
	bob := e.user("bob")
	bobModern, _ := bob.connect(ctx, "")
	if got := callText(t, ctx, bobModern, "whoami", `{}`); got != e.as.url+"#bob" {
		t.Errorf("bob's whoami: %q", got)
	}
	legacyHdr := func(sid string) http.Header {
		return http.Header{"Mcp-Session-Id": {sid}, "Mcp-Protocol-Version": {"2025-11-25"}, "Accept": {"application/json, text/event-stream"}}
	}
	const list = `{"jsonrpc":"2.0","id":99,"method":"tools/list"}`
	wantStatus, _, wantBody := rawPost(t, bob.hc, e.resource, legacyHdr("no-such-session"), list)
	if wantStatus != http.StatusNotFound || !strings.Contains(wantBody, `"code":-32001`) {
		t.Fatalf("an unknown session: %d %s", wantStatus, wantBody)
	}
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		status, body := rawDo(t, bob.hc, method, e.resource, legacyHdr(aliceSID), list)
		if status != wantStatus || body != wantBody {
			t.Errorf("bob's %s in alice's session: %d %s, want %d %s", method, status, body, wantStatus, wantBody)
		}
	}
	if got := callText(t, ctx, legacy, "echo", `{"text":"still mine"}`); got != "still mine" {
		t.Errorf("alice's session after bob's attempts: %q", got)
	}

	// 6. Multi round-trip request state is bound to the user: bob cannot
	// complete alice's round.
	var round struct {
		ResultType    string                      `json:"resultType"`
		InputRequests map[string]mcp.InputRequest `json:"inputRequests"`
		RequestState  string                      `json:"requestState"`
	}
	if err := modern.Call(ctx, mcp.MethodCallTool, &mcp.CallToolParams{Name: "confirm", Arguments: json.RawMessage(`{}`)}, &round); err != nil {
		t.Fatal(err)
	}
	if round.ResultType != "input_required" || len(round.InputRequests) != 1 || round.RequestState == "" {
		t.Fatalf("first round: %+v", round)
	}
	answers := mcp.InputResponses{}
	for key := range round.InputRequests {
		answers.Set(key, &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"ok": true}})
	}
	retry := &mcp.CallToolParams{Name: "confirm", Arguments: json.RawMessage(`{}`), InputResponses: answers, RequestState: round.RequestState}
	var res mcp.CallToolResult
	var je *jsonrpc.Error
	if err := bobModern.Call(ctx, mcp.MethodCallTool, retry, &res); !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("bob completing alice's round: %v, want -32602", err)
	}
	if err := modern.Call(ctx, mcp.MethodCallTool, retry, &res); err != nil || len(res.Content) != 1 ||
		res.Content[0].(*mcp.TextContent).Text != "confirmed by "+aliceID+": accept" {
		t.Errorf("alice completing her round: %+v %v", res, err)
	}

	// 7. A token the server refuses mid-session (it expired, or was
	// revoked, before its client knew) is refreshed without the user, and
	// the session goes on. The resource server revokes carol's token
	// instead of the test waiting for one to expire: her client learns of
	// it from the server's 401 either way.
	carol := e.user("carol")
	carolLegacy, _ := carol.connect(ctx, mcp.Version20251125)
	callText(t, ctx, carolLegacy, "echo", `{"text":"fresh"}`)
	before, refreshes := e.as.stats()
	e.revoker.revokeAll("carol")
	if got := callText(t, ctx, carolLegacy, "whoami", `{}`); got != e.as.url+"#carol" {
		t.Errorf("carol's whoami after her token was refused: %q", got)
	}
	if after, n := e.as.stats(); len(after) != len(before) || n != refreshes+1 {
		t.Errorf("after the refusal: %d new authorizations, %d refreshes; want 0 and 1", len(after)-len(before), n-refreshes)
	}
}

// rawPost POSTs body with hdr and returns the answer.
func rawPost(t *testing.T, c *http.Client, u string, hdr http.Header, body string) (int, http.Header, string) {
	t.Helper()
	return rawRequest(t, c, http.MethodPost, u, hdr, body)
}

// rawDo sends a request and returns its status and body.
func rawDo(t *testing.T, c *http.Client, method, u string, hdr http.Header, body string) (int, string) {
	t.Helper()
	status, _, b := rawRequest(t, c, method, u, hdr, body)
	return status, b
}

func rawRequest(t *testing.T, c *http.Client, method, u string, hdr http.Header, body string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = hdr.Clone()
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(b)
}
