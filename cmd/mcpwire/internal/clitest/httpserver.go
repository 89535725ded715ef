package clitest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// The test server over HTTP, for --url, on 127.0.0.1: Streamable HTTP on
// /mcp and the legacy HTTP+SSE transport on /sse. With OAuth, /mcp is a
// protected resource whose tokens come from a small authorization server
// of the test (type AS): authorization code with PKCE, dynamic,
// pre-registered and Client ID Metadata Document clients, refresh tokens
// with rotation. Its access tokens are opaque; the MCP server checks them
// with the authorization server directly (the JWT path is the end-to-end
// test of package auth).

// HTTPServerOptions choose the variants of the HTTP test server.
type HTTPServerOptions struct {
	OAuth      bool                            // protect /mcp with OAuth
	ToolScopes map[string][]string             // scopes a tool needs beyond mcp:basic
	Clients    map[string]string               // pre-registered clients: id → secret ("" for a public client)
	NoDCR      bool                            // no dynamic client registration
	CIMD       bool                            // accept Client ID Metadata Document URLs as client ids
	Wrap       func(http.Handler) http.Handler // middleware around everything, if set
}

// HTTPServer is the test server over HTTP.
type HTTPServer struct {
	URL string // the Streamable HTTP endpoint, …/mcp
	AS  *AS    // the authorization server, with OAuth

	srv *server.Server
	h   *streamable.Handler
	sh  *sse.Handler
	mcp *httptest.Server
}

// StartHTTPServer serves the test server over HTTP.
func StartHTTPServer(o HTTPServerOptions) (*HTTPServer, error) {
	srv, err := NewServer(ServerOptions{})
	if err != nil {
		return nil, err
	}
	s := &HTTPServer{srv: srv}
	s.mcp = httptest.NewUnstartedServer(nil)
	base := "http://" + s.mcp.Listener.Addr().String()
	s.URL = base + "/mcp"
	hopts := &streamable.HandlerOptions{}
	mux := http.NewServeMux()
	if o.OAuth {
		s.AS = newAS(o)
		hopts.SessionOwner = func(r *http.Request) string { return auth.Principal(r.Context()) }
		rs, err := auth.NewResourceServer(&auth.ResourceOptions{
			Resource:             s.URL,
			AuthorizationServers: []string{s.AS.URL},
			Verifier:             auth.TokenVerifierFunc(s.AS.verify(s.URL)),
			Scopes:               []string{"mcp:basic"},
			ToolScopes:           o.ToolScopes,
		})
		if err != nil {
			s.AS.srv.Close()
			return nil, err
		}
		s.h = streamable.NewHandler(srv, hopts)
		rs.Mount(mux, s.h, true)
	} else {
		s.h = streamable.NewHandler(srv, hopts)
		mux.Handle("/mcp", s.h)
	}
	s.sh = sse.NewHandler(srv, nil)
	mux.Handle("/sse", s.sh)
	s.mcp.Config.Handler = mux
	if o.Wrap != nil {
		s.mcp.Config.Handler = o.Wrap(mux)
	}
	s.mcp.Start()
	return s, nil
}

// Close stops the servers.
func (s *HTTPServer) Close() {
	s.srv.Close()
	s.h.Close()
	s.sh.Close()
	s.mcp.CloseClientConnections()
	s.mcp.Close()
	if s.AS != nil {
		s.AS.srv.Close()
	}
}

// HTTPServerMain is the "testhttpserver" program of the scripts: the
// test server over HTTP until interrupted, its URL written to a file.
//
//	testhttpserver [-oauth] -url-file FILE
func HTTPServerMain() {
	fs := flag.NewFlagSet("testhttpserver", flag.ExitOnError)
	oauth := fs.Bool("oauth", false, "protect the endpoint with OAuth (tool add needs mcp:admin)")
	urlFile := fs.String("url-file", "", "write the endpoint's URL to this file")
	fs.Parse(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := StartHTTPServer(HTTPServerOptions{OAuth: *oauth, ToolScopes: map[string][]string{"add": {"mcp:admin"}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhttpserver:", err)
		os.Exit(1)
	}
	defer s.Close()
	err = os.WriteFile(*urlFile+".tmp", []byte(s.URL), 0o644)
	if err == nil {
		err = os.Rename(*urlFile+".tmp", *urlFile)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhttpserver:", err)
		os.Exit(1)
	}
	<-ctx.Done()
}

// BrowserMain is the "testbrowser" program of the scripts, the
// MCPWIRE_BROWSER of mcpwire login: it follows the authorization URL to
// the redirect back to mcpwire, as a browser would.
func BrowserMain() {
	if err := Visit(context.Background(), os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, "testbrowser:", err)
		os.Exit(1)
	}
}

// Visit GETs u, following redirects, and fails unless the last answer
// is 200.
func Visit(ctx context.Context, u string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Request.URL.Redacted(), resp.Status)
	}
	return nil
}

// AS is the authorization server of the HTTP test server. It grants
// every authorization request at once, to the user "alice".
type AS struct {
	URL string
	srv *httptest.Server
	o   HTTPServerOptions

	mu             sync.Mutex
	clients        map[string]testClient // by client id
	codes          map[string]testGrant  // authorization codes
	refresh        map[string]testGrant  // refresh tokens
	access         map[string]testGrant  // access tokens
	authorizations int                   // authorization requests granted
	refreshes      int                   // refresh grants
	lastClient     string                // the client id of the last authorization
	lastScope      string                // the scope of the last authorization
}

// A testClient is a registered client.
type testClient struct {
	secret    string
	redirects []string // nil: any loopback redirect URI
}

// allows reports whether u is one of the client's redirect URIs; the
// port of a loopback URI may be any (RFC 8252 §7.3).
func (c testClient) allows(u *url.URL) bool {
	if c.redirects == nil {
		return true
	}
	return slices.ContainsFunc(c.redirects, func(r string) bool {
		ru, err := url.Parse(r)
		return err == nil && ru.Scheme == u.Scheme && ru.Hostname() == u.Hostname() && ru.Path == u.Path
	})
}

// A testGrant is what a code or a token stands for.
type testGrant struct {
	client, redirect, challenge, resource, scope string
	expiry                                       time.Time
}

const testTokenTTL = time.Hour

func newAS(o HTTPServerOptions) *AS {
	as := &AS{o: o, clients: map[string]testClient{}, codes: map[string]testGrant{},
		refresh: map[string]testGrant{}, access: map[string]testGrant{}}
	for id, secret := range o.Clients {
		as.clients[id] = testClient{secret: secret}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", as.metadata)
	mux.HandleFunc("POST /register", as.register)
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
	as.srv = httptest.NewServer(mux)
	as.URL = as.srv.URL
	return as
}

func (as *AS) metadata(w http.ResponseWriter, r *http.Request) {
	md := auth.AuthServerMetadata{
		Issuer: as.URL, AuthorizationEndpoint: as.URL + "/authorize", TokenEndpoint: as.URL + "/token",
		ScopesSupported:                            []string{"mcp:basic", "mcp:admin", "offline_access"},
		ResponseTypesSupported:                     []string{"code"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none", "client_secret_basic", "client_secret_post"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		AuthorizationResponseIssParameterSupported: true,
		ClientIDMetadataDocumentSupported:          as.o.CIMD,
	}
	if !as.o.NoDCR {
		md.RegistrationEndpoint = as.URL + "/register"
	}
	writeTestJSON(w, http.StatusOK, md)
}

func (as *AS) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
	}
	if json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req) != nil || len(req.RedirectURIs) == 0 {
		writeTestJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	id := randomID()
	as.mu.Lock()
	as.clients[id] = testClient{redirects: req.RedirectURIs}
	as.mu.Unlock()
	writeTestJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": req.RedirectURIs, "token_endpoint_auth_method": "none"})
}

// knownClient returns the client id's registration; a Client ID Metadata
// Document URL is known when the server accepts those.
func (as *AS) knownClient(id string) (testClient, bool) {
	if c, ok := as.clients[id]; ok {
		return c, true
	}
	return testClient{}, as.o.CIMD && strings.HasPrefix(id, "https://")
}

func (as *AS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	defer as.mu.Unlock()
	c, ok := as.knownClient(q.Get("client_id"))
	redirect, err := url.Parse(q.Get("redirect_uri"))
	switch {
	case !ok:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case err != nil || redirect.Hostname() != "127.0.0.1" || !c.allows(redirect):
		http.Error(w, "bad redirect URI", http.StatusBadRequest)
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") == "":
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	as.authorizations++
	as.lastClient, as.lastScope = q.Get("client_id"), q.Get("scope")
	code := randomID()
	as.codes[code] = testGrant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"),
		challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope")}
	redirect.RawQuery = url.Values{"code": {code}, "state": {q.Get("state")}, "iss": {as.URL}}.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

func (as *AS) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		writeTestJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
		return
	}
	f := r.PostForm
	clientID, secret, basic := r.BasicAuth()
	if !basic {
		clientID, secret = f.Get("client_id"), f.Get("client_secret")
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	c, ok := as.knownClient(clientID)
	if !ok || c.secret != secret {
		writeTestJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		return
	}
	var g testGrant
	switch f.Get("grant_type") {
	case "authorization_code":
		g, ok = as.codes[f.Get("code")]
		delete(as.codes, f.Get("code"))
		if !ok || g.client != clientID || g.redirect != f.Get("redirect_uri") || g.resource != f.Get("resource") || pkce(f.Get("code_verifier")) != g.challenge {
			writeTestJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
	case "refresh_token":
		g, ok = as.refresh[f.Get("refresh_token")]
		delete(as.refresh, f.Get("refresh_token")) // rotation
		if !ok || g.client != clientID || g.resource != f.Get("resource") {
			writeTestJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		as.refreshes++
	default:
		writeTestJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	access, refresh := randomID(), randomID()
	g.expiry = time.Now().Add(testTokenTTL)
	as.access[access], as.refresh[refresh] = g, g
	writeTestJSON(w, http.StatusOK, map[string]any{"access_token": access, "token_type": "Bearer",
		"expires_in": int(testTokenTTL / time.Second), "refresh_token": refresh, "scope": g.scope})
}

// verify returns the token verifier of the MCP server at resource.
func (as *AS) verify(resource string) func(context.Context, string) (*auth.TokenInfo, error) {
	return func(_ context.Context, tok string) (*auth.TokenInfo, error) {
		as.mu.Lock()
		g, ok := as.access[tok]
		as.mu.Unlock()
		switch {
		case !ok:
			return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
		case !time.Now().Before(g.expiry):
			return nil, fmt.Errorf("%w: expired", auth.ErrInvalidToken)
		case g.resource != resource:
			return nil, fmt.Errorf("%w: for another resource", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{Issuer: as.URL, Subject: "alice", ClientID: g.client, Scopes: strings.Fields(g.scope),
			Audience: []string{g.resource}, Expiry: g.expiry}, nil
	}
}

// ExpireAll makes every access token issued so far expired, as time
// would.
func (as *AS) ExpireAll() {
	as.mu.Lock()
	defer as.mu.Unlock()
	for k, g := range as.access {
		g.expiry = time.Now().Add(-time.Minute)
		as.access[k] = g
	}
}

// RevokeRefreshTokens makes every refresh token issued so far unknown.
func (as *AS) RevokeRefreshTokens() {
	as.mu.Lock()
	defer as.mu.Unlock()
	clear(as.refresh)
}

// Stats returns the authorizations and refreshes granted, and the client
// and scope of the last authorization.
func (as *AS) Stats() (authorizations, refreshes int, client, scope string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.authorizations, as.refreshes, as.lastClient, as.lastScope
}

func pkce(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func randomID() string { return rand.Text() }

func writeTestJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

var errNoBrowser = errors.New("no browser in this test")
