package bridge

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// An issuer is an authorization server for the tests: its metadata
// (RFC 8414) and key set, on 127.0.0.1, and the tokens it signs.
type issuer struct {
	key *ecdsa.PrivateKey
	srv *httptest.Server
	URL string
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(auth.AuthServerMetadata{Issuer: is.URL, JWKSURI: is.URL + "/jwks", TokenEndpoint: is.URL + "/token"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	is.srv = httptest.NewServer(mux)
	is.URL = is.srv.URL
	t.Cleanup(is.srv.Close)
	return is
}

// token signs an access token of subject for audience.
func (is *issuer) token(t *testing.T, subject, audience, scope string) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: is.key}, (&jose.SignerOptions{}).WithHeader("kid", "k1").WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(s).Claims(map[string]any{
		"iss": is.URL, "sub": subject, "aud": audience, "scope": scope, "client_id": "test",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// protectedBridge starts a bridge that requires tokens of is with the
// scope mcp:tools, its key set found from the issuer's metadata.
func protectedBridge(t *testing.T, is *issuer) *testBridge {
	t.Helper()
	return startBridge(t, Options{}, httpLimits{}, func(base string) *auth.ResourceServer {
		f := authFlags{issuer: is.URL, scopes: []string{"mcp:tools"}}
		rs, err := f.resourceServer(context.Background(), base)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	})
}

// TestOAuthInFront: with --auth-issuer every request needs a token of
// that authorization server, for the bridge, with the scopes asked;
// otherwise 401 with a challenge that points to the bridge's Protected
// Resource Metadata, on /mcp and /sse alike. With one, both eras work,
// and a legacy session belongs to the user who opened it.
func TestOAuthInFront(t *testing.T) {
	is := newIssuer(t)
	tb := protectedBridge(t, is)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	resource := tb.base + "/mcp"
	metadata := tb.base + "/.well-known/oauth-protected-resource/mcp"

	challenge := func(method, path, token string) (int, string) {
		t.Helper()
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		}
		req, _ := http.NewRequestWithContext(ctx, method, tb.base+path, body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
	}
	for _, path := range []string{"/mcp", "/sse"} {
		for _, method := range []string{http.MethodPost, http.MethodGet} {
			status, www := challenge(method, path, "")
			if status != http.StatusUnauthorized || !strings.HasPrefix(www, "Bearer ") ||
				!strings.Contains(www, `resource_metadata="`+metadata+`"`) || !strings.Contains(www, `scope="mcp:tools"`) {
				t.Errorf("%s %s without a token: %d, WWW-Authenticate: %s", method, path, status, www)
			}
		}
	}
	for name, tok := range map[string]string{
		"another audience": is.token(t, "alice", "http://127.0.0.1:1/mcp", "mcp:tools"),
		"another issuer":   newIssuer(t).token(t, "alice", resource, "mcp:tools"),
	} {
		if status, www := challenge(http.MethodPost, "/mcp", tok); status != http.StatusUnauthorized || !strings.Contains(www, `error="invalid_token"`) {
			t.Errorf("a token of %s: %d, WWW-Authenticate: %s", name, status, www)
		}
	}
	if status, www := challenge(http.MethodPost, "/mcp", is.token(t, "alice", resource, "other")); status != http.StatusForbidden || !strings.Contains(www, `error="insufficient_scope"`) {
		t.Errorf("a token without the scope: %d, WWW-Authenticate: %s", status, www)
	}

	resp, err := http.Get(metadata)
	if err != nil {
		t.Fatal(err)
	}
	var md auth.ProtectedResourceMetadata
	json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	if md.Resource != resource || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != is.URL {
		t.Errorf("metadata: %+v", md)
	}

	alice := http.Header{"Authorization": {"Bearer " + is.token(t, "alice", resource, "mcp:tools")}}
	for _, version := range []mcp.Version{mcp.Version20260728, mcp.Version20251125} {
		s := connectOver(t, streamable.NewTransport(resource, &streamable.ClientOptions{Header: alice}), version, nil)
		if got := call(t, ctx, s, "echo", textArgs{Text: "through OAuth"}); got != "through OAuth" {
			t.Errorf("%s: echo: %q", version, got)
		}
	}

	// alice's session is not bob's.
	c := &rawClient{t: t, url: resource, header: alice}
	c.initialize(ctx)
	rawCall(t, ctx, c, 2, "pid", `{}`)
	c.header = http.Header{"Authorization": {"Bearer " + is.token(t, "bob", resource, "mcp:tools")}}
	resp = c.post(ctx, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob using alice's session: %s, want 404", resp.Status)
	}
}
