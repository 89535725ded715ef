package auth

// Conformance scenarios about authorization server changes and the
// grants without a user: authorization-server-migration,
// client-credentials-basic, client-credentials-jwt and cross-app access
// (enterprise-managed-authorization).

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

func TestScenarioAuthorizationServerMigration(t *testing.T) {
	tokens := &tokenScopes{}
	const leaked = "as1-client-id-LEAKED-IF-SEEN-AT-AS2"
	as1 := newMockAS(t, tokens, asConfig{regClientID: leaked})
	var n atomic.Int32
	as2 := newMockAS(t, tokens, asConfig{regClientID: "as2-client-id", onToken: func(tr tokenReq) (string, []string, string) {
		return fmt.Sprintf("test-token-as2-%d", n.Add(1)), []string{"mcp:basic"}, ""
	}})
	var switched atomic.Bool
	var rs *mockRS
	auth := func(w http.ResponseWriter, r *http.Request, method string) bool {
		if method == "initialize" || strings.HasPrefix(method, "notifications/") {
			return true
		}
		challenge := `Bearer scope="mcp:basic", resource_metadata="` + rs.metadataURL() + `"`
		h := r.Header.Get("Authorization")
		if _, ok := tokens.get(strings.TrimPrefix(h, "Bearer ")); !ok {
			w.Header().Set("WWW-Authenticate", challenge)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
			return false
		}
		if !switched.Load() {
			switched.Store(true)
			return true
		}
		if !strings.HasPrefix(h, "Bearer test-token-as2-") {
			w.Header().Set("WWW-Authenticate", challenge)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": "authorization server has changed"})
			return false
		}
		return true
	}
	rs = newMockRS(t, tokens, rsConfig{challengeScope: []string{"mcp:basic"}, auth: auth, asURL: func() string {
		if switched.Load() {
			return as2.url()
		}
		return as1.url()
	}})
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	mustCall(t, c, rs, "tools/list")
	mustCall(t, c, rs, "tools/call")
	if len(as2.registrations()) == 0 {
		t.Error("sep-2352-reregister-on-as-change: no registration at the new AS")
	}
	for _, q := range as2.authRequests() {
		if q.Get("client_id") == leaked {
			t.Error("sep-2352-no-reuse-on-as-change: AS1 client_id at AS2 /authorize")
		}
	}
	for _, tr := range as2.tokenRequests() {
		if tr.form.Get("client_id") == leaked || tr.authz == basicAuth(leaked, "test-client-secret") {
			t.Error("sep-2352-no-cross-as-credential-reuse: AS1 client_id at AS2 /token")
		}
	}
	if len(as2.tokenRequests()) == 0 {
		t.Error("no token obtained from the new AS")
	}
}

func TestScenarioClientCredentialsBasic(t *testing.T) {
	var ok atomic.Bool
	as, rs := setup(t, asConfig{grantTypes: []string{"client_credentials"}, authMethods: []string{AuthMethodClientSecretBasic},
		onToken: func(tr tokenReq) (string, []string, string) {
			if tr.form.Get("grant_type") != "client_credentials" {
				return "", nil, "unsupported_grant_type"
			}
			if tr.authz != basicAuth("conformance-test-client", "conformance-test-secret") {
				return "", nil, "invalid_client"
			}
			ok.Store(true)
			return "cc-token-1", nil, ""
		}}, rsConfig{})
	c, _ := testClient(t, ClientOptions{Grant: GrantClientCredentials, Clients: []ClientCredentials{
		{ClientID: "conformance-test-client", ClientSecret: "conformance-test-secret"}}})
	mustCall(t, c, rs, "initialize")
	if !ok.Load() {
		t.Error("client-credentials-basic-auth: not seen")
	}
	if r := as.tokenRequests()[0].form.Get("resource"); r != rs.prmResource() {
		t.Errorf("resource %q", r)
	}
}

// pkcs8PEM encodes key as the suite's context does (PKCS#8 PEM).
func pkcs8PEM(t *testing.T, key *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func TestScenarioClientCredentialsJWT(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	var verified atomic.Bool
	var as *mockAS
	as, rs := setup(t, asConfig{grantTypes: []string{"client_credentials"}, authMethods: []string{AuthMethodPrivateKeyJWT}, signingAlgs: []string{"ES256"},
		onToken: func(tr tokenReq) (string, []string, string) {
			if tr.form.Get("grant_type") != "client_credentials" ||
				tr.form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
				return "", nil, "invalid_request"
			}
			tok, err := jwt.ParseSigned(tr.form.Get("client_assertion"), []jose.SignatureAlgorithm{jose.ES256})
			if err != nil {
				return "", nil, "invalid_client"
			}
			var c jwt.Claims
			if err := tok.Claims(&key.PublicKey, &c); err != nil {
				return "", nil, "invalid_client"
			}
			iss := as.iss()
			err = c.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{iss, iss + "/"}}, 30*time.Second)
			if err != nil || c.Issuer != "conformance-test-client" || c.Subject != "conformance-test-client" || c.Expiry == nil {
				return "", nil, "invalid_client"
			}
			verified.Store(true)
			return "cc-token-1", nil, ""
		}}, rsConfig{})
	// As the conformance client does: the key comes as PKCS#8 PEM.
	block, _ := pem.Decode(pkcs8PEM(t, key))
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := testClient(t, ClientOptions{Grant: GrantClientCredentials, Clients: []ClientCredentials{
		{ClientID: "conformance-test-client", PrivateKey: parsed.(*ecdsa.PrivateKey), SigningAlgorithm: "ES256"}}})
	mustCall(t, c, rs, "initialize")
	if !verified.Load() {
		t.Error("client-credentials-jwt-verified: not seen")
	}
}

func TestScenarioCrossAppAccess(t *testing.T) {
	idpKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const xaaClient, xaaSecret, idpClient = "conformance-test-xaa-client", "conformance-test-xaa-secret", "conformance-test-idp-client"
	var idp *httptest.Server
	var exchanged atomic.Bool
	idp = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		f := r.PostForm
		if r.URL.Path != "/token" || f.Get("grant_type") != grantTokenExchange ||
			f.Get("requested_token_type") != tokenTypeIDJAG || f.Get("subject_token_type") != tokenTypeIDToken ||
			f.Get("subject_token") != "the-id-token" || f.Get("audience") == "" || f.Get("resource") == "" ||
			f.Get("client_id") != idpClient {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_request"})
			return
		}
		exchanged.Store(true)
		signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: idpKey}, (&jose.SignerOptions{}).WithType("oauth-id-jag+jwt"))
		jag, _ := jwt.Signed(signer).Claims(map[string]any{
			"iss": idp.URL, "sub": "demo-user", "aud": f.Get("audience"), "resource": f.Get("resource"),
			"client_id": xaaClient, "exp": time.Now().Add(5 * time.Minute).Unix(), "iat": time.Now().Unix(),
		}).Serialize()
		writeJSON(w, http.StatusOK, map[string]any{"access_token": jag, "issued_token_type": tokenTypeIDJAG, "token_type": "N_A"})
	}))
	t.Cleanup(idp.Close)
	var granted atomic.Bool
	var as *mockAS
	var rs *mockRS
	as, rs = setup(t, asConfig{grantTypes: []string{string(GrantJWTBearer)}, authMethods: []string{AuthMethodClientSecretBasic},
		onToken: func(tr tokenReq) (string, []string, string) {
			if tr.form.Get("grant_type") != string(GrantJWTBearer) || tr.authz != basicAuth(xaaClient, xaaSecret) {
				return "", nil, "invalid_client"
			}
			tok, err := jwt.ParseSigned(tr.form.Get("assertion"), []jose.SignatureAlgorithm{jose.ES256})
			if err != nil || tok.Headers[0].ExtraHeaders[jose.HeaderType] != "oauth-id-jag+jwt" {
				return "", nil, "invalid_grant"
			}
			var claims struct {
				jwt.Claims
				ClientID string `json:"client_id"`
				Resource string `json:"resource"`
			}
			if err := tok.Claims(&idpKey.PublicKey, &claims); err != nil ||
				!claims.Audience.Contains(as.iss()) || claims.ClientID != xaaClient || claims.Resource != rs.mcpURL() {
				return "", nil, "invalid_grant"
			}
			granted.Store(true)
			return "test-token-xaa", nil, ""
		}}, rsConfig{})
	x := &IDJAGExchange{TokenEndpoint: idp.URL + "/token", ClientID: idpClient,
		IDToken: func(context.Context) (string, error) { return "the-id-token", nil }}
	c, _ := testClient(t, ClientOptions{Grant: GrantJWTBearer, Assertion: x.Assertion,
		Clients: []ClientCredentials{{ClientID: xaaClient, ClientSecret: xaaSecret}}})
	mustCall(t, c, rs, "initialize")
	if !exchanged.Load() {
		t.Error("complete-flow-token-exchange: not seen")
	}
	if !granted.Load() {
		t.Error("complete-flow-jwt-bearer: not seen")
	}
}
