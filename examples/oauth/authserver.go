package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpwire/mcpwire/auth"
)

// This file is a small OAuth 2.1 authorization server: the smallest one
// that MCP clients (package auth's Transport, the mcpwire CLI, other SDKs)
// accept. It publishes its metadata (RFC 8414) and signing keys (a JWKS),
// registers public clients (RFC 7591 dynamic registration), grants
// authorization codes with PKCE S256 for the one resource it serves
// (RFC 8707), and issues ES256 JWT access tokens (RFC 9068) with rotating
// refresh tokens.
//
// It grants every authorization request at once, to one user: a real
// authorization server logs the user in and asks for consent there.
// Everything lives in memory and is bounded; a restart forgets every
// client and token, and clients register and log in again.

// Limits of the authorization server.
const (
	maxClients     = 1000            // registered clients
	maxGrants      = 10000           // outstanding codes and refresh tokens
	maxRequestBody = 64 << 10        // a registration or token request
	codeTTL        = time.Minute     // an authorization code's life
	accessTTL      = time.Hour       // an access token's life
	refreshTTL     = 24 * time.Hour  // a refresh token's life
	keyID          = "example-key-1" // the signing key's id in the JWKS
	tokenType      = "at+jwt"        // the typ of access tokens (RFC 9068)
	clientTTL      = 30 * 24 * time.Hour
)

// An authServer is the authorization server of one resource.
type authServer struct {
	issuer   string   // its issuer identifier, its base URL
	resource string   // the one resource it issues tokens for
	user     string   // who every authorization is granted to
	scopes   []string // the scopes it issues
	key      *ecdsa.PrivateKey

	mu      sync.Mutex
	clients map[string]*registration // by client id
	grants  map[string]*grant        // by code or refresh token
}

// A registration is a registered client.
type registration struct {
	redirectURIs []string
	expires      time.Time
}

// A grant is what an authorization code or a refresh token stands for.
type grant struct {
	refresh   bool
	client    string
	redirect  string // the redirect URI of the authorization (codes)
	challenge string // the PKCE code challenge (codes)
	scope     string
	expires   time.Time
}

func newAuthServer(issuer, resource, user string, scopes []string) (*authServer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &authServer{issuer: issuer, resource: resource, user: user, scopes: scopes, key: key,
		clients: map[string]*registration{}, grants: map[string]*grant{}}, nil
}

// mount registers the authorization server's endpoints on mux.
func (as *authServer) mount(mux *http.ServeMux) {
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", as.metadata)
	mux.HandleFunc("GET /jwks", as.jwks)
	mux.HandleFunc("POST /register", as.register)
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
}

func (as *authServer) metadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, auth.AuthServerMetadata{
		Issuer:                            as.issuer,
		AuthorizationEndpoint:             as.issuer + "/authorize",
		TokenEndpoint:                     as.issuer + "/token",
		RegistrationEndpoint:              as.issuer + "/register",
		JWKSURI:                           as.issuer + "/jwks",
		ScopesSupported:                   as.scopes,
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		AuthorizationResponseIssParameterSupported: true,
	})
}

func (as *authServer) jwks(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &as.key.PublicKey, KeyID: keyID, Algorithm: string(jose.ES256), Use: "sig"},
	}})
}

// register registers a public client (RFC 7591): its redirect URIs must
// be https, or http on a loopback address (native apps, RFC 8252).
func (as *authServer) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs            []string `json:"redirect_uris"`
		TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if tooLarge(w, err) {
		return
	}
	if err != nil || json.Unmarshal(body, &req) != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the registration is not a JSON object")
		return
	}
	if len(req.RedirectURIs) == 0 || len(req.RedirectURIs) > 10 || !allValidRedirects(req.RedirectURIs) {
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "1 to 10 redirect URIs, https or loopback http")
		return
	}
	if m := req.TokenEndpointAuthMethod; m != "" && m != "none" {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "only public clients (token_endpoint_auth_method none)")
		return
	}
	id := rand.Text()
	now := time.Now()
	as.mu.Lock()
	for cid, c := range as.clients {
		if now.After(c.expires) {
			delete(as.clients, cid)
		}
	}
	full := len(as.clients) >= maxClients
	if !full {
		as.clients[id] = &registration{redirectURIs: req.RedirectURIs, expires: now.Add(clientTTL)}
	}
	as.mu.Unlock()
	if full {
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "too many registered clients")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  id,
		"client_id_issued_at":        now.Unix(),
		"redirect_uris":              req.RedirectURIs,
		"token_endpoint_auth_method": "none",
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
	})
}

// authorize checks an authorization request and grants it at once.
// Errors about the client or its redirect URI are shown here, never
// redirected (RFC 6749 §4.1.2.1).
func (as *authServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as.mu.Lock()
	c := as.clients[q.Get("client_id")]
	as.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if c == nil || !slices.ContainsFunc(c.redirectURIs, func(u string) bool { return sameRedirect(u, redirect) }) {
		http.Error(w, "unknown client, or a redirect URI it did not register", http.StatusBadRequest)
		return
	}
	back := func(v url.Values) {
		u, _ := url.Parse(redirect)
		v.Set("state", q.Get("state"))
		v.Set("iss", as.issuer)
		u.RawQuery = v.Encode()
		http.Redirect(w, r, u.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		back(url.Values{"error": {"unsupported_response_type"}})
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		back(url.Values{"error": {"invalid_request"}, "error_description": {"PKCE with S256 is required"}})
		return
	case !as.isResource(q.Get("resource")):
		back(url.Values{"error": {"invalid_target"}, "error_description": {"this server issues tokens for " + as.resource + " only"}})
		return
	}
	scope := q.Get("scope")
	for _, s := range strings.Fields(scope) {
		if !slices.Contains(as.scopes, s) {
			back(url.Values{"error": {"invalid_scope"}, "error_description": {"unknown scope " + s}})
			return
		}
	}
	code, ok := as.newGrant(&grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), scope: scope}, codeTTL)
	if !ok {
		back(url.Values{"error": {"temporarily_unavailable"}})
		return
	}
	back(url.Values{"code": {code}})
}

// token exchanges a code (with its PKCE verifier) or a refresh token for
// an access token and a new refresh token.
func (as *authServer) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBody)
	if err := r.ParseForm(); tooLarge(w, err) {
		return
	} else if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "unreadable form")
		return
	}
	f := r.PostForm
	if !as.isResource(f.Get("resource")) {
		oauthError(w, http.StatusBadRequest, "invalid_target", "this server issues tokens for "+as.resource+" only")
		return
	}
	var g *grant
	switch f.Get("grant_type") {
	case "authorization_code":
		g = as.takeGrant(f.Get("code"), false)
		verifier := sha256.Sum256([]byte(f.Get("code_verifier")))
		if g == nil || g.client != f.Get("client_id") || g.redirect != f.Get("redirect_uri") ||
			base64.RawURLEncoding.EncodeToString(verifier[:]) != g.challenge {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired code, or a wrong verifier")
			return
		}
	case "refresh_token":
		g = as.takeGrant(f.Get("refresh_token"), true) // rotated: each one is used once
		if g == nil || g.client != f.Get("client_id") {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown, used or expired refresh token")
			return
		}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", "authorization_code or refresh_token")
		return
	}
	access, err := as.mint(g.client, g.scope)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", "signing the token failed")
		return
	}
	refresh, ok := as.newGrant(&grant{refresh: true, client: g.client, scope: g.scope}, refreshTTL)
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(accessTTL / time.Second), "scope": g.scope}
	if ok {
		resp["refresh_token"] = refresh
	}
	writeJSON(w, http.StatusOK, resp)
}

// isResource reports whether raw names the resource this server issues
// tokens for (compared as canonical URIs).
func (as *authServer) isResource(raw string) bool {
	got, err := auth.CanonicalResourceURI(raw)
	want, _ := auth.CanonicalResourceURI(as.resource)
	return err == nil && got == want
}

// mint signs an access token for the user, issued to client.
func (as *authServer) mint(client, scope string) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: as.key},
		(&jose.SignerOptions{}).WithType(tokenType).WithHeader("kid", keyID))
	if err != nil {
		return "", err
	}
	now := time.Now()
	return jwt.Signed(signer).Claims(map[string]any{
		"iss": as.issuer, "sub": as.user, "aud": as.resource, "client_id": client, "scope": scope,
		"iat": now.Unix(), "exp": now.Add(accessTTL).Unix(), "jti": rand.Text(),
	}).Serialize()
}

// newGrant records g under a new random code or token, forgetting expired
// grants first; it fails when maxGrants are outstanding.
func (as *authServer) newGrant(g *grant, ttl time.Duration) (string, bool) {
	now := time.Now()
	g.expires = now.Add(ttl)
	as.mu.Lock()
	defer as.mu.Unlock()
	for k, old := range as.grants {
		if now.After(old.expires) {
			delete(as.grants, k)
		}
	}
	if len(as.grants) >= maxGrants {
		return "", false
	}
	k := rand.Text()
	as.grants[k] = g
	return k, true
}

// takeGrant removes and returns the live grant of a code (refresh false)
// or refresh token (true).
func (as *authServer) takeGrant(k string, refresh bool) *grant {
	as.mu.Lock()
	defer as.mu.Unlock()
	g := as.grants[k]
	if g == nil || g.refresh != refresh {
		return nil
	}
	delete(as.grants, k)
	if time.Now().After(g.expires) {
		return nil
	}
	return g
}

// allValidRedirects reports whether every URI is https, or http to a
// loopback address, without a fragment.
func allValidRedirects(uris []string) bool {
	for _, raw := range uris {
		u, err := url.Parse(raw)
		if err != nil || u.Fragment != "" || u.Host == "" {
			return false
		}
		if u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
			return false
		}
	}
	return true
}

// sameRedirect reports whether the redirect URI of a request matches a
// registered one: exactly, or, for loopback http, with any port, since a
// native app listens on whichever port is free (RFC 8252 §7.3).
func sameRedirect(registered, got string) bool {
	if registered == got {
		return true
	}
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(got)
	return err1 == nil && err2 == nil && a.Scheme == "http" && b.Scheme == "http" &&
		isLoopback(a.Hostname()) && a.Hostname() == b.Hostname() && a.Path == b.Path && a.RawQuery == b.RawQuery
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// tooLarge answers 413 and reports true if err says the request body
// exceeds maxRequestBody (what http.MaxBytesReader returns; it stops
// reading there).
func tooLarge(w http.ResponseWriter, err error) bool {
	var mbe *http.MaxBytesError
	if !errors.As(err, &mbe) {
		return false
	}
	oauthError(w, http.StatusRequestEntityTooLarge, "invalid_request", fmt.Sprintf("the request body exceeds %d bytes", mbe.Limit))
	return true
}

func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}
