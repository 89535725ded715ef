package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

const (
	testIssuer   = "https://as.example.com"
	testAudience = "https://mcp.example.com/mcp"
)

// testKeys signs JWTs with rotating ES256 keys and serves their JWKS.
type testKeys struct {
	mu      sync.Mutex
	keys    map[string]*ecdsa.PrivateKey
	current string
	srv     *httptest.Server
	fetches atomic.Int32
}

func newTestKeys(t *testing.T) *testKeys {
	k := &testKeys{keys: map[string]*ecdsa.PrivateKey{}}
	k.rotate("k1")
	k.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.fetches.Add(1)
		k.mu.Lock()
		var set jose.JSONWebKeySet
		for kid, key := range k.keys {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: &key.PublicKey, KeyID: kid, Algorithm: "ES256", Use: "sig"})
		}
		k.mu.Unlock()
		writeJSON(w, http.StatusOK, set)
	}))
	t.Cleanup(k.srv.Close)
	return k
}

// rotate adds a key and makes it current.
func (k *testKeys) rotate(kid string) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.keys[kid] = key
	k.current = kid
}

// sign makes a JWT with claims, signed by the current key unless kid
// names another (possibly unpublished) one.
func (k *testKeys) sign(t *testing.T, claims map[string]any, typ string) string {
	t.Helper()
	k.mu.Lock()
	key, kid := k.keys[k.current], k.current
	k.mu.Unlock()
	opts := (&jose.SignerOptions{}).WithHeader("kid", kid)
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func validClaims(now time.Time) map[string]any {
	return map[string]any{
		"iss": testIssuer, "sub": "alice", "aud": testAudience, "client_id": "c1",
		"scope": "mcp:read mcp:write", "exp": now.Add(time.Hour).Unix(), "iat": now.Unix(),
	}
}

func newVerifier(t *testing.T, k *testKeys, mod func(*JWTOptions)) *JWTVerifier {
	t.Helper()
	opts := &JWTOptions{Issuer: testIssuer, Audience: testAudience, JWKSURL: k.srv.URL}
	if mod != nil {
		mod(opts)
	}
	v, err := NewJWTVerifier(opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestJWTVerifier(t *testing.T) {
	k := newTestKeys(t)
	v := newVerifier(t, k, nil)
	now := time.Now()
	info, err := v.VerifyToken(context.Background(), k.sign(t, validClaims(now), "at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Subject != "alice" || info.Issuer != testIssuer || info.ClientID != "c1" || !info.HasScope("mcp:write") ||
		info.Expiry.Unix() != now.Add(time.Hour).Unix() || info.Claims["scope"] != "mcp:read mcp:write" {
		t.Errorf("info = %+v", info)
	}
	mod := func(f func(map[string]any)) string {
		c := validClaims(now)
		f(c)
		return k.sign(t, c, "")
	}
	bad := map[string]string{
		"wrong issuer":      mod(func(c map[string]any) { c["iss"] = "https://other.example.com" }),
		"other audience":    mod(func(c map[string]any) { c["aud"] = "https://other.example.com/mcp" }),
		"no audience":       mod(func(c map[string]any) { delete(c, "aud") }),
		"expired":           mod(func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() }),
		"no expiry":         mod(func(c map[string]any) { delete(c, "exp") }),
		"not yet valid":     mod(func(c map[string]any) { c["nbf"] = now.Add(5 * time.Minute).Unix() }),
		"issued in future":  mod(func(c map[string]any) { c["iat"] = now.Add(5 * time.Minute).Unix() }),
		"ID-JAG":            k.sign(t, validClaims(now), "oauth-id-jag+jwt"),
		"garbage":           "not.a.jwt",
		"too long":          strings.Repeat("a", DefaultMaxTokenBytes+1),
		"alg none":          unsignedToken(validClaims(now), "none"),
		"HS256 without key": hmacToken(t, validClaims(now), []byte(strings.Repeat("k", 32))),
	}
	for name, tok := range bad {
		if _, err := v.VerifyToken(context.Background(), tok); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: err = %v, want ErrInvalidToken", name, err)
		}
	}
	// Within the clock skew.
	if _, err := v.VerifyToken(context.Background(), mod(func(c map[string]any) { c["exp"] = now.Add(-30 * time.Second).Unix() })); err != nil {
		t.Errorf("expired 30s ago, skew 1m: %v", err)
	}
	// Audience compared as canonical URIs; scp arrays read.
	tok := mod(func(c map[string]any) {
		c["aud"] = []string{"https://other", "HTTPS://MCP.example.com:443/mcp/"}
		delete(c, "scope")
		c["scp"] = []string{"a", "b"}
	})
	if info, err := v.VerifyToken(context.Background(), tok); err != nil || !info.HasScope("b") {
		t.Errorf("canonical audience, scp: %+v, %v", info, err)
	}
}

func unsignedToken(claims map[string]any, alg string) string {
	h, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	c, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "."
}

func hmacToken(t *testing.T, claims map[string]any, key []byte) string {
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: key}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestJWTVerifierHMAC(t *testing.T) {
	key := []byte(strings.Repeat("s", 32))
	v, err := NewJWTVerifier(&JWTOptions{Issuer: testIssuer, Audience: testAudience, HMACKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.VerifyToken(context.Background(), hmacToken(t, validClaims(time.Now()), key)); err != nil {
		t.Errorf("HS256 with the key: %v", err)
	}
	if _, err := v.VerifyToken(context.Background(), hmacToken(t, validClaims(time.Now()), []byte(strings.Repeat("x", 32)))); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("HS256 with another key: %v", err)
	}
	for _, opts := range []*JWTOptions{
		{Issuer: testIssuer, Audience: testAudience, JWKSURL: "https://as/jwks", Algorithms: []string{"none"}},
		{Issuer: testIssuer, Audience: testAudience, JWKSURL: "https://as/jwks", Algorithms: []string{"HS256"}},
		{Issuer: testIssuer, Audience: testAudience, HMACKey: []byte("short")},
		{Issuer: testIssuer, Audience: testAudience},
		{Issuer: testIssuer, Audience: "not a uri", JWKSURL: "https://as/jwks"},
		{Audience: testAudience, JWKSURL: "https://as/jwks"},
		{Issuer: testIssuer, Audience: testAudience, JWKSURL: "http://as.example.com/jwks"},
	} {
		if _, err := NewJWTVerifier(opts); err == nil {
			t.Errorf("NewJWTVerifier(%+v) accepted", opts)
		}
	}
}

func TestJWKSRefreshRateLimited(t *testing.T) {
	k := newTestKeys(t)
	v := newVerifier(t, k, nil)
	clock := time.Now()
	var mu sync.Mutex
	v.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	ctx := context.Background()
	if _, err := v.VerifyToken(ctx, k.sign(t, validClaims(time.Now()), "")); err != nil {
		t.Fatal(err)
	}
	if n := k.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches", n)
	}
	// A new key appears: a token naming it triggers one refresh.
	k.rotate("k2")
	advance(time.Minute)
	if _, err := v.VerifyToken(ctx, k.sign(t, validClaims(time.Now()), "")); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	if n := k.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches after rotation", n)
	}
	// Unknown kids from many concurrent requests: at most one fetch per
	// interval.
	k.mu.Lock()
	k.keys["k3"], _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	k.current = "k3"
	k.mu.Unlock()
	advance(time.Minute)
	forged := k.sign(t, validClaims(time.Now()), "")
	k.mu.Lock()
	delete(k.keys, "k3") // never published
	k.mu.Unlock()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := v.VerifyToken(ctx, forged); !errors.Is(err, ErrInvalidToken) {
				t.Errorf("unknown kid: %v", err)
			}
		})
	}
	wg.Wait()
	if n := k.fetches.Load(); n != 3 {
		t.Errorf("%d fetches for unknown kids, want 3", n)
	}
	for range 5 {
		v.VerifyToken(ctx, forged)
	}
	if n := k.fetches.Load(); n != 3 {
		t.Errorf("%d fetches within the interval, want 3", n)
	}
	// After the TTL the set is refetched.
	k.mu.Lock()
	k.current = "k2"
	k.mu.Unlock()
	advance(DefaultJWKSCacheTTL)
	if _, err := v.VerifyToken(ctx, k.sign(t, validClaims(v.now()), "")); err != nil {
		t.Fatal(err)
	}
	if n := k.fetches.Load(); n != 4 {
		t.Errorf("%d fetches after the TTL, want 4", n)
	}
}

func TestJWKSUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusBadGateway)
	}))
	defer srv.Close()
	k := newTestKeys(t)
	v, err := NewJWTVerifier(&JWTOptions{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.VerifyToken(context.Background(), k.sign(t, validClaims(time.Now()), ""))
	if err == nil || errors.Is(err, ErrInvalidToken) {
		t.Errorf("err = %v: an outage must not look like a bad token", err)
	}
}
