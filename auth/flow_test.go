package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

func TestPKCE(t *testing.T) {
	// RFC 7636 Appendix B.
	if got := pkceS256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"); got != "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" {
		t.Errorf("pkceS256 = %s", got)
	}
	v, c := newPKCE()
	if len(v) != 43 || pkceS256(v) != c {
		t.Errorf("verifier %q (len %d), challenge %q", v, len(v), c)
	}
	for _, r := range v {
		if !strings.ContainsRune("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~", r) {
			t.Errorf("verifier has %q, not an unreserved character", r)
		}
	}
	if v2, _ := newPKCE(); v2 == v {
		t.Error("two verifiers are equal")
	}
}

func TestCheckAuthorizationResponse(t *testing.T) {
	const redirect = "http://127.0.0.1:8000/callback"
	as := &AuthServerMetadata{Issuer: "https://as.example.com/tenant"}
	adv := &AuthServerMetadata{Issuer: as.Issuer, AuthorizationResponseIssParameterSupported: true}
	cb := func(q string) *url.URL { u, _ := url.Parse(redirect + "?" + q); return u }
	tests := []struct {
		name string
		cb   *url.URL
		as   *AuthServerMetadata
		err  error
	}{
		{"iss correct, advertised", cb("code=c&state=s&iss=https%3A%2F%2Fas.example.com%2Ftenant"), adv, nil},
		{"iss correct, not advertised", cb("code=c&state=s&iss=https%3A%2F%2Fas.example.com%2Ftenant"), as, nil},
		{"iss absent, not advertised", cb("code=c&state=s"), as, nil},
		{"iss absent, advertised", cb("code=c&state=s"), adv, ErrIssuerMismatch},
		{"iss wrong", cb("code=c&state=s&iss=https%3A%2F%2Fevil.example.com"), as, ErrIssuerMismatch},
		{"iss with trailing slash", cb("code=c&state=s&iss=https%3A%2F%2Fas.example.com%2Ftenant%2F"), adv, ErrIssuerMismatch},
		{"iss case differs", cb("code=c&state=s&iss=https%3A%2F%2FAS.example.com%2Ftenant"), adv, ErrIssuerMismatch},
		{"iss twice", cb("code=c&state=s&iss=https%3A%2F%2Fas.example.com%2Ftenant&iss=x"), adv, ErrIssuerMismatch},
		{"state wrong", cb("code=c&state=x"), as, ErrStateMismatch},
		{"state missing", cb("code=c"), as, ErrStateMismatch},
		{"state twice", cb("code=c&state=s&state=s"), as, ErrStateMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, err := checkAuthorizationResponse(tt.cb, redirect, "s", tt.as)
			if tt.err == nil && (err != nil || code != "c") {
				t.Errorf("code %q, err %v", code, err)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("err = %v, want %v", err, tt.err)
			}
		})
	}
	_, err := checkAuthorizationResponse(cb("error=access_denied&error_description=no&state=s"), redirect, "s", as)
	var oe *OAuthError
	if !errors.As(err, &oe) || oe.Code != "access_denied" {
		t.Errorf("error response: %v", err)
	}
	other, _ := url.Parse("http://127.0.0.1:8000/elsewhere?code=c&state=s")
	if _, err := checkAuthorizationResponse(other, redirect, "s", as); err == nil {
		t.Error("accepted a response at another path")
	}
}

func TestSelectScopes(t *testing.T) {
	ch := func(s string) Challenge { return Challenge{Params: map[string]string{"scope": s}} }
	d := func(prm, as []string) *discovery {
		return &discovery{prm: &ProtectedResourceMetadata{ScopesSupported: prm}, as: &AuthServerMetadata{ScopesSupported: as}}
	}
	tests := []struct {
		name     string
		ch       Challenge
		d        *discovery
		previous []string
		offline  bool
		want     []string
	}{
		{"challenge first", ch("a b"), d([]string{"x"}, nil), nil, false, []string{"a", "b"}},
		{"then scopes_supported", Challenge{}, d([]string{"x", "y"}, nil), nil, false, []string{"x", "y"}},
		{"else none", Challenge{}, d(nil, nil), nil, false, nil},
		{"legacy: no PRM", Challenge{}, &discovery{as: &AuthServerMetadata{}}, nil, false, nil},
		{"union with previous", ch("mcp:write"), d(nil, nil), []string{"mcp:basic"}, false, []string{"mcp:basic", "mcp:write"}},
		{"offline_access dropped unless the AS lists it", ch("a offline_access"), d(nil, []string{"a"}), nil, true, []string{"a"}},
		{"offline_access kept when listed", ch("a offline_access"), d(nil, []string{"offline_access"}), nil, false, []string{"a", "offline_access"}},
		{"offline_access added on request when listed", ch("a"), d(nil, []string{"offline_access"}), nil, true, []string{"a", "offline_access"}},
		{"offline_access not added when not asked", ch("a"), d(nil, []string{"offline_access"}), nil, false, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := selectScopes(tt.ch, tt.d, tt.previous, tt.offline)
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("selectScopes = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAuthMethod(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tests := []struct {
		name      string
		c         ClientCredentials
		supported []string
		want      string
	}{
		{"registration's choice", ClientCredentials{ClientSecret: "s", AuthMethod: "client_secret_post"}, []string{"client_secret_basic"}, "client_secret_post"},
		{"secret, default list", ClientCredentials{ClientSecret: "s"}, nil, "client_secret_basic"},
		{"secret, post only", ClientCredentials{ClientSecret: "s"}, []string{"client_secret_post"}, "client_secret_post"},
		{"secret, none only", ClientCredentials{ClientSecret: "s"}, []string{"none"}, "none"},
		{"no secret", ClientCredentials{}, []string{"client_secret_basic"}, "none"},
		{"key", ClientCredentials{PrivateKey: key}, []string{"private_key_jwt", "client_secret_basic"}, "private_key_jwt"},
		{"key, not supported", ClientCredentials{PrivateKey: key, ClientSecret: "s"}, []string{"client_secret_basic"}, "client_secret_basic"},
	}
	for _, tt := range tests {
		if got := authMethod(&tt.c, &AuthServerMetadata{TokenEndpointAuthMethodsSupported: tt.supported}); got != tt.want {
			t.Errorf("%s: authMethod = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestBasicAuthEncodesCredentials(t *testing.T) {
	// RFC 6749 §2.3.1: form-urlencode before base64.
	if got, want := basicAuth("a:b", "p w&"), "Basic YSUzQWI6cCt3JTI2"; got != want {
		t.Errorf("basicAuth = %s, want %s", got, want)
	}
}

func TestClientAssertion(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	now := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		key any
		alg string
	}{{ec, "ES256"}, {rk, "RS256"}, {ed, "EdDSA"}} {
		c := &ClientCredentials{ClientID: "client-1", PrivateKey: tc.key.(crypto.Signer), KeyID: "k1"}
		s, err := ClientAssertion(c, "https://as.example.com", now)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := jwt.ParseSigned(s, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(tc.alg)})
		if err != nil {
			t.Fatalf("%s: %v", tc.alg, err)
		}
		if h := tok.Headers[0]; h.KeyID != "k1" || h.Algorithm != tc.alg || h.ExtraHeaders[jose.HeaderType] != "JWT" {
			t.Errorf("%s: header %+v", tc.alg, h)
		}
		var claims jwt.Claims
		if err := tok.Claims(c.PrivateKey.Public(), &claims); err != nil {
			t.Fatalf("%s: %v", tc.alg, err)
		}
		if claims.Issuer != "client-1" || claims.Subject != "client-1" || !reflect.DeepEqual(claims.Audience, jwt.Audience{"https://as.example.com"}) ||
			claims.ID == "" || claims.IssuedAt.Time() != now || claims.Expiry.Time() != now.Add(5*time.Minute) {
			t.Errorf("%s: claims %+v", tc.alg, claims)
		}
	}
}

func TestASMetadataURLs(t *testing.T) {
	u, _ := url.Parse("https://as.example.com/tenant1/")
	want := []string{
		"https://as.example.com/.well-known/oauth-authorization-server/tenant1",
		"https://as.example.com/.well-known/openid-configuration/tenant1",
		"https://as.example.com/tenant1/.well-known/openid-configuration",
	}
	if got := asMetadataURLs(u); !reflect.DeepEqual(got, want) {
		t.Errorf("with path: %q", got)
	}
	u, _ = url.Parse("https://as.example.com")
	want = []string{"https://as.example.com/.well-known/oauth-authorization-server", "https://as.example.com/.well-known/openid-configuration"}
	if got := asMetadataURLs(u); !reflect.DeepEqual(got, want) {
		t.Errorf("without path: %q", got)
	}
}

func TestProtectedResourceMetadataURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://mcp.example.com/mcp":      "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
		"https://mcp.example.com/a/b/?x=1": "https://mcp.example.com/.well-known/oauth-protected-resource/a/b",
		"https://mcp.example.com":          "https://mcp.example.com/.well-known/oauth-protected-resource",
		"https://mcp.example.com/":         "https://mcp.example.com/.well-known/oauth-protected-resource",
		"http://127.0.0.1:8080/m%2Fx":      "http://127.0.0.1:8080/.well-known/oauth-protected-resource/m%2Fx",
	} {
		if got, err := ProtectedResourceMetadataURL(in); err != nil || got != want {
			t.Errorf("ProtectedResourceMetadataURL(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
}

func TestCanonicalResourceURI(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://MCP.Example.COM:443/Mcp/": "https://mcp.example.com/Mcp",
		"https://mcp.example.com":          "https://mcp.example.com",
		"http://localhost:80/x#frag":       "http://localhost/x",
		"https://[::1]:8443/a?q=1":         "https://[::1]:8443/a?q=1",
	} {
		if got, err := CanonicalResourceURI(in); err != nil || got != want {
			t.Errorf("CanonicalResourceURI(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"mcp.example.com/mcp", "urn:x:y", "ftp://x/y", "https://user@x/y", ""} {
		if _, err := CanonicalResourceURI(bad); err == nil {
			t.Errorf("CanonicalResourceURI(%q) accepted", bad)
		}
	}
}

func TestResourceCovers(t *testing.T) {
	tests := []struct {
		resource, server string
		want             bool
	}{
		{"https://h/mcp", "https://h/mcp", true},
		{"https://h", "https://h/mcp", true},
		{"https://h/", "https://h/mcp", true},
		{"https://H:443/mcp", "https://h/mcp", true},
		{"https://h/mcp/", "https://h/mcp", true},
		{"https://h/api", "https://h/api/mcp", true},
		{"https://h/m", "https://h/mcp", false},
		{"https://h/mcp/x", "https://h/mcp", false},
		{"https://evil.example.com/mcp", "http://localhost:3000/mcp", false},
		{"http://h/mcp", "https://h/mcp", false},
		{"https://h:8443/mcp", "https://h/mcp", false},
		{"https://h/mcp#f", "https://h/mcp", false},
	}
	for _, tt := range tests {
		if got := resourceCovers(tt.resource, tt.server); got != tt.want {
			t.Errorf("resourceCovers(%s, %s) = %v", tt.resource, tt.server, got)
		}
	}
}

func TestCheckURLs(t *testing.T) {
	for _, tc := range []struct {
		url      string
		loopback bool
		ok       bool
	}{
		{"https://as.example.com/authorize", false, true},
		{"http://as.example.com/authorize", true, false},
		{"http://localhost:3000/authorize", false, false},
		{"http://localhost:3000/authorize", true, true},
		{"http://127.0.0.2/x", true, true},
		{"http://[::1]:9/x", true, true},
		{"http://app.localhost/x", true, true},
		{"javascript:alert(1)", true, false},
		{"data:text/html,hi", true, false},
		{"file:///etc/passwd", true, false},
		{"vbscript:x", true, false},
		{"https://user:pw@as.example.com/", false, false},
		{"https://as.example.com/#f", false, false},
		{"/relative", true, false},
	} {
		_, err := checkAuthorizationURL(tc.url, tc.loopback)
		if (err == nil) != tc.ok {
			t.Errorf("checkAuthorizationURL(%s, %v): %v", tc.url, tc.loopback, err)
		}
		if err != nil && !errors.Is(err, ErrUnsafeAuthorizationURL) {
			t.Errorf("error %v does not wrap ErrUnsafeAuthorizationURL", err)
		}
	}
	for uri, ok := range map[string]bool{
		"http://127.0.0.1:1234/callback": true, "http://localhost/cb": true, "https://app.example.com/cb": true,
		"http://app.example.com/cb": false, "myapp://cb": false, "http://127.0.0.1/cb#x": false,
	} {
		if err := checkRedirectURI(uri); (err == nil) != ok {
			t.Errorf("checkRedirectURI(%s): %v", uri, err)
		}
	}
}

func TestIsPublicAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true,
		"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.1": false,
		"169.254.169.254": false, "100.64.0.1": false, "0.0.0.0": false, "224.0.0.1": false,
		"::1": false, "fe80::1": false, "fc00::1": false, "::ffff:10.0.0.1": false,
		"64:ff9b::a00:1": false, "64:ff9b::808:808": true, "255.255.255.255": false,
	} {
		if got := isPublicAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("isPublicAddr(%s) = %v", s, got)
		}
	}
	if err := guardControl("tcp", "127.0.0.1:80", nil); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("guardControl(127.0.0.1) = %v", err)
	}
	if err := guardControl("tcp", "[2606:4700::1111]:443", nil); err != nil {
		t.Errorf("guardControl(public) = %v", err)
	}
}

func TestOperation(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete"}}`
	req, _ := http.NewRequest(http.MethodPost, "https://h/mcp", strings.NewReader(body))
	if got := (&operation{first: req}).name(); got != "POST tools/call delete" {
		t.Errorf("from the body: %q", got)
	}
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "x")
	if got := (&operation{first: req}).name(); got != "POST tools/call x" {
		t.Errorf("from the headers: %q", got)
	}
	long, _ := http.NewRequest(http.MethodPost, "https://h/mcp", strings.NewReader(body[:len(body)-1]+strings.Repeat(" ", maxDrain)+"}"))
	if got := (&operation{first: long}).name(); got != "POST  " {
		t.Errorf("a body over %d bytes: %q", maxDrain, got)
	}
}

func TestStepUpLimitPerOperation(t *testing.T) {
	var n atomic.Int32
	var rs *mockRS
	auth := func(w http.ResponseWriter, r *http.Request, method string) bool {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+rs.metadataURL()+`"`)
			w.WriteHeader(http.StatusUnauthorized)
			return false
		}
		if method != "tools/call" {
			return true
		}
		// Always a scope never asked before: never futile, never enough.
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="s%d"`, n.Add(1)))
		w.WriteHeader(http.StatusForbidden)
		return false
	}
	as, rsv := setup(t, asConfig{}, rsConfig{auth: auth})
	rs = rsv
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "tools/list")
	if status, _ := rpc(c, rs.mcpURL(), "tools/call", 2); status != http.StatusForbidden {
		t.Fatalf("status %d", status)
	}
	after := len(as.authRequests())
	if after != 1+DefaultMaxAuthAttempts {
		t.Errorf("%d authorizations, want %d", after, 1+DefaultMaxAuthAttempts)
	}
	rpc(c, rs.mcpURL(), "tools/call", 3)
	if got := len(as.authRequests()); got != after {
		t.Errorf("the operation was stepped up again: %d authorizations", got)
	}
	mustCall(t, c, rs, "tools/list") // other operations are unaffected
}
