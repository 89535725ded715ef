package auth

// End to end with DPoP: an authorization server that binds its JWT
// access tokens to the key of the token request's proof (cnf.jkt) and
// wants its nonce, an MCP endpoint whose middleware (JWTVerifier and
// DPoPVerifier) accepts DPoP-bound tokens only and wants its nonce too,
// and a Transport with DPoP. Then an attacker who saw a request tries
// its token and its proof.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// recordingTransport keeps the headers of the last request it sent.
type recordingTransport struct {
	base *http.Transport
	mu   sync.Mutex
	last http.Header
}

func (rt *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rt.mu.Lock()
	rt.last = r.Header.Clone()
	rt.mu.Unlock()
	return rt.base.RoundTrip(r)
}

func (rt *recordingTransport) CloseIdleConnections() { rt.base.CloseIdleConnections() }

func (rt *recordingTransport) lastHeader() http.Header {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.last.Clone()
}

func TestEndToEndDPoP(t *testing.T) {
	clock := &testClock{t: time.Now()}
	as := newTestAS(t, clock)
	asDPoP, err := NewDPoPVerifier(&DPoPVerifierOptions{RequireNonce: true})
	if err != nil {
		t.Fatal(err)
	}
	as.dpop = asDPoP

	mcpSrv := httptest.NewUnstartedServer(nil)
	resource := "http://" + mcpSrv.Listener.Addr().String() + "/mcp"
	verifier, err := NewJWTVerifier(&JWTOptions{Issuer: as.srv.URL, Audience: resource, JWKSURL: as.srv.URL + "/jwks", ClockSkew: -1})
	if err != nil {
		t.Fatal(err)
	}
	verifier.now = clock.now
	rsDPoP, err := NewDPoPVerifier(&DPoPVerifierOptions{RequireNonce: true})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := NewResourceServer(&ResourceOptions{
		Resource: resource, AuthorizationServers: []string{as.srv.URL}, Verifier: verifier,
		DPoP: rsDPoP, RequireDPoP: true,
		Scopes: []string{"mcp:basic"}, ToolScopes: map[string][]string{"admin": {"mcp:admin"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" || r.Header.Get("DPoP") != "" {
			t.Error("credentials passed on to the MCP handler")
		}
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{"principal": Principal(r.Context())}})
	})
	mux := http.NewServeMux()
	if err := rs.Mount(mux, mcp, true); err != nil {
		t.Fatal(err)
	}
	mcpSrv.Config.Handler = mux
	mcpSrv.Start()
	t.Cleanup(mcpSrv.Close)

	rec := &recordingTransport{base: &http.Transport{}}
	tr, err := NewTransport(rec, &ClientOptions{DPoP: &DPoPOptions{}, AllowLoopbackHTTP: true, Authorizer: &HeadlessAuthorizer{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr}
	call := func(tool string) {
		t.Helper()
		method, params := "tools/list", `{}`
		if tool != "" {
			method, params = "tools/call", `{"name":"`+tool+`","arguments":{}}`
		}
		resp, err := c.Post(resource, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		if err != nil {
			t.Fatalf("%s %s: %v", method, tool, err)
		}
		defer resp.Body.Close()
		var out struct {
			Result struct{ Principal string } `json:"result"`
		}
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != 200 || out.Result.Principal != as.srv.URL+"#alice" {
			t.Fatalf("%s %s: %d %+v", method, tool, resp.StatusCode, out)
		}
	}

	// 1. Discovery, registration, authorization, a DPoP-bound token
	// after the AS nonce, the request after the RS nonce.
	call("")
	tok := tr.Token(resource)
	if tok == nil || tok.TokenType != "DPoP" || tok.DPoPKeyThumbprint != tr.dpop.key.jkt {
		t.Fatalf("token %+v", tok)
	}
	info, err := verifier.VerifyToken(t.Context(), tok.AccessToken)
	if err != nil || info.DPoPKeyThumbprint != tr.dpop.key.jkt {
		t.Fatalf("the token's cnf.jkt: %+v %v", info, err)
	}

	// 2. Step-up on a 403 in the DPoP scheme.
	call("admin")
	if n, _, scopes := as.stats(); n != 2 || scopes[1] != "mcp:basic mcp:admin" {
		t.Fatalf("%d authorizations, scopes %q", n, scopes)
	}

	// 3. The token expired (server's clock): 401, a refresh with a proof
	// of the same key, and the request again.
	clock.advance(2 * time.Hour)
	call("")
	if n, refreshes, _ := as.stats(); n != 2 || refreshes != 1 {
		t.Fatalf("after expiry: %d authorizations, %d refreshes", n, refreshes)
	}

	// 4. What an eavesdropper saw is of no use.
	seen := rec.lastHeader()
	stolen := strings.TrimPrefix(seen.Get("Authorization"), "DPoP ")
	attempt := func(name, authz, proof, wantErr string) {
		t.Helper()
		r, _ := http.NewRequest(http.MethodPost, resource, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		r.Header.Set("Authorization", authz)
		if proof != "" {
			r.Header.Set("DPoP", proof)
		}
		resp, err := rec.base.RoundTrip(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		chs := ParseChallenges(resp.Header.Values("WWW-Authenticate"))
		if resp.StatusCode != 401 || len(chs) != 1 || chs[0].Scheme != "DPoP" || chs[0].Param("error") != wantErr {
			t.Errorf("%s: %d %q, want a DPoP challenge with error %s", name, resp.StatusCode, resp.Header.Values("WWW-Authenticate"), wantErr)
		}
	}
	attempt("replayed request", seen.Get("Authorization"), seen.Get("DPoP"), "invalid_dpop_proof")
	attempt("token as a bearer token", "Bearer "+stolen, "", "invalid_token")
	thief := mustDPoPKey(t, newP256(t), "")
	for _, nonce := range []string{"", rsDPoP.Nonce()} {
		p, _ := thief.proof(jose.ES256, "POST", resource, nonce, stolen, time.Now())
		attempt("token with the thief's proof", "DPoP "+stolen, p, "invalid_dpop_proof")
	}
	// The legitimate client still gets through.
	call("")
}
