package auth

// DPoP proofs: how they are made, and every check of DPoPVerifier.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// RFC 7638 §3.1 and RFC 9449 §4.2/§6.1 vectors.
func TestDPoPThumbprintVectors(t *testing.T) {
	for _, tc := range []struct{ jwk, want string }{
		{`{"kty":"RSA","e":"AQAB","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"}`,
			"NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"},
		{`{"kty":"EC","crv":"P-256","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"}`,
			"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"},
	} {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON([]byte(tc.jwk)); err != nil {
			t.Fatal(err)
		}
		got, err := DPoPThumbprint(k.Key)
		if err != nil || got != tc.want {
			t.Errorf("thumbprint = %q, %v; want %q", got, err, tc.want)
		}
	}
	if _, err := DPoPThumbprint([]byte("secret")); err == nil {
		t.Error("thumbprint of a symmetric key")
	}
}

// RFC 9449 §7.1: the ath of its example token.
func TestAccessTokenHash(t *testing.T) {
	if got := accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"); got != "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo" {
		t.Errorf("ath = %q", got)
	}
}

func newP256(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustDPoPKey(t *testing.T, s crypto.Signer, alg string) *dpopKey {
	t.Helper()
	k, err := newDPoPKey(s, alg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// opaqueSigner hides the key type, as an HSM-backed signer does.
type opaqueSigner struct{ crypto.Signer }

func decodeSegment(t *testing.T, jwt string, i int) map[string]any {
	t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("%d segments", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDPoPProofConstruction(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	now := time.Unix(1767225600, 0)
	for _, tc := range []struct {
		name string
		key  crypto.Signer
		alg  string // configured
		want jose.SignatureAlgorithm
	}{
		{"P-256", newP256(t), "", jose.ES256},
		{"P-384", p384, "", jose.ES384},
		{"Ed25519", edKey, "", jose.EdDSA},
		{"RSA", rsaKey, "", jose.RS256},
		{"RSA PS256", rsaKey, "PS256", jose.PS256},
		{"opaque P-256", opaqueSigner{newP256(t)}, "", jose.ES256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := mustDPoPKey(t, tc.key, tc.alg)
			if k.algs[0] != tc.want {
				t.Fatalf("algorithm %s, want %s", k.algs[0], tc.want)
			}
			proof, err := k.proof(tc.want, "POST", "https://as.example.com/token", "n-1", "tok", now)
			if err != nil {
				t.Fatal(err)
			}
			h := decodeSegment(t, proof, 0)
			if h["typ"] != "dpop+jwt" || h["alg"] != string(tc.want) {
				t.Errorf("header %v", h)
			}
			jwk, _ := h["jwk"].(map[string]any)
			if jwk == nil || jwk["d"] != nil || jwk["p"] != nil || h["kid"] != nil {
				t.Errorf("jwk header %v (must be the public key only)", h["jwk"])
			}
			c := decodeSegment(t, proof, 1)
			if c["htm"] != "POST" || c["htu"] != "https://as.example.com/token" || c["iat"] != float64(now.Unix()) ||
				c["nonce"] != "n-1" || c["ath"] != accessTokenHash("tok") || c["jti"] == "" {
				t.Errorf("claims %v", c)
			}
			p, err := parseDPoPProof(proof, []jose.SignatureAlgorithm{tc.want}, DefaultMaxDPoPProofBytes)
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := DPoPThumbprint(tc.key.Public()); p.KeyThumbprint != want || k.jkt != want {
				t.Errorf("thumbprint %q / %q, want %q", p.KeyThumbprint, k.jkt, want)
			}
		})
	}
	k := mustDPoPKey(t, newP256(t), "")
	a, _ := k.proof(jose.ES256, "GET", "https://h/mcp", "", "", now)
	b, _ := k.proof(jose.ES256, "GET", "https://h/mcp", "", "", now)
	ca, cb := decodeSegment(t, a, 1), decodeSegment(t, b, 1)
	if ca["jti"] == cb["jti"] {
		t.Error("two proofs share a jti")
	}
	if _, has := ca["nonce"]; has {
		t.Error("empty nonce sent")
	}
	if _, has := ca["ath"]; has {
		t.Error("ath without a token")
	}
	if _, err := newDPoPKey(newP256(t), "RS256"); err == nil {
		t.Error("RS256 accepted for an EC key")
	}
}

func TestProofURL(t *testing.T) {
	u, _ := url.Parse("https://user:pw@mcp.example.com/mcp?session=1#frag")
	if got := proofURL(u); got != "https://mcp.example.com/mcp" {
		t.Errorf("htu %q", got)
	}
	for _, tc := range []struct {
		htu, target string
		same        bool
	}{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", true},
		{"HTTPS://MCP.example.com:443/mcp", "https://mcp.example.com/mcp", true},
		{"https://mcp.example.com/mcp?x=1", "https://mcp.example.com/mcp", true}, // query ignored
		{"https://mcp.example.com", "https://mcp.example.com/", true},
		{"https://h/a%2fb", "https://h/a%2Fb", true},
		{"https://mcp.example.com/mcp/", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com/other", "https://mcp.example.com/mcp", false},
		{"http://mcp.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"https://mcp.example.com:8443/mcp", "https://mcp.example.com/mcp", false},
		{"https://evil.example.com/mcp", "https://mcp.example.com/mcp", false},
		{"urn:x", "https://mcp.example.com/mcp", false},
	} {
		if got := sameProofURL(tc.htu, tc.target); got != tc.same {
			t.Errorf("sameProofURL(%q, %q) = %v", tc.htu, tc.target, got)
		}
	}
}

// proofClock is a settable clock for verifiers.
type proofClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *proofClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *proofClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newTestDPoPVerifier(t *testing.T, clock *proofClock, opts *DPoPVerifierOptions) *DPoPVerifier {
	t.Helper()
	v, err := NewDPoPVerifier(opts)
	if err != nil {
		t.Fatal(err)
	}
	v.now = clock.now
	return v
}

func withProof(method, target, proof string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	if proof != "" {
		r.Header.Set("DPoP", proof)
	}
	return r
}

// rawProof signs arbitrary header fields and claims with key.
func rawProof(t *testing.T, key crypto.Signer, alg jose.SignatureAlgorithm, hdr map[jose.HeaderKey]any, claims any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, &jose.SignerOptions{ExtraHeaders: hdr})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	jws, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := jws.CompactSerialize()
	return out
}

// hmacProof is a proof signed with a shared secret: never acceptable.
func hmacProof(t *testing.T, claims any) string {
	t.Helper()
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: make([]byte, 32)}, (&jose.SignerOptions{}).WithType("dpop+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	jws, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := jws.CompactSerialize()
	return out
}

func TestDPoPVerifier(t *testing.T) {
	const target = "https://mcp.example.com/mcp"
	clock := &proofClock{t: time.Unix(1767225600, 0)}
	key := newP256(t)
	k := mustDPoPKey(t, key, "")
	other := newP256(t)
	pubJWK := jose.JSONWebKey{Key: &key.PublicKey}
	privJWK := jose.JSONWebKey{Key: key}
	claims := func(now time.Time) map[string]any {
		return map[string]any{"jti": randomToken(8), "htm": "POST", "htu": target, "iat": now.Unix(), "ath": accessTokenHash("tok")}
	}
	proof := func(method, htu, token string, iat time.Time) string {
		p, err := k.proof(jose.ES256, method, htu, "", token, iat)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	now := clock.now()
	for _, tc := range []struct {
		name    string
		req     *http.Request
		token   string
		wantErr error
	}{
		{"valid", withProof("POST", target, proof("POST", target, "tok", now)), "tok", nil},
		{"valid at a token endpoint (no ath)", withProof("POST", target, proof("POST", target, "", now)), "", nil},
		{"no proof", withProof("POST", target, ""), "tok", ErrInvalidDPoPProof},
		{"wrong htm", withProof("POST", target, proof("GET", target, "tok", now)), "tok", ErrInvalidDPoPProof},
		{"wrong htu", withProof("POST", target, proof("POST", "https://mcp.example.com/other", "tok", now)), "tok", ErrInvalidDPoPProof},
		{"other host", withProof("POST", target, proof("POST", "https://evil.example.com/mcp", "tok", now)), "tok", ErrInvalidDPoPProof},
		{"stale iat", withProof("POST", target, proof("POST", target, "tok", now.Add(-6*time.Minute))), "tok", ErrInvalidDPoPProof},
		{"future iat", withProof("POST", target, proof("POST", target, "tok", now.Add(2*time.Minute))), "tok", ErrInvalidDPoPProof},
		{"iat within skew", withProof("POST", target, proof("POST", target, "tok", now.Add(30*time.Second))), "tok", nil},
		{"wrong ath", withProof("POST", target, proof("POST", target, "another", now)), "tok", ErrInvalidDPoPProof},
		{"no ath", withProof("POST", target, proof("POST", target, "", now)), "tok", ErrInvalidDPoPProof},
		{"typ JWT", withProof("POST", target, rawProof(t, key, jose.ES256,
			map[jose.HeaderKey]any{"typ": "JWT", "jwk": pubJWK}, claims(now))), "tok", ErrInvalidDPoPProof},
		{"no jwk", withProof("POST", target, rawProof(t, key, jose.ES256,
			map[jose.HeaderKey]any{"typ": "dpop+jwt"}, claims(now))), "tok", ErrInvalidDPoPProof},
		{"private jwk", withProof("POST", target, rawProof(t, key, jose.ES256,
			map[jose.HeaderKey]any{"typ": "dpop+jwt", "jwk": privJWK}, claims(now))), "tok", ErrInvalidDPoPProof},
		{"signed by another key than its jwk", withProof("POST", target, rawProof(t, other, jose.ES256,
			map[jose.HeaderKey]any{"typ": "dpop+jwt", "jwk": pubJWK}, claims(now))), "tok", ErrInvalidDPoPProof},
		{"HS256", withProof("POST", target, hmacProof(t, claims(now))), "tok", ErrInvalidDPoPProof},
		{"missing jti", withProof("POST", target, rawProof(t, key, jose.ES256,
			map[jose.HeaderKey]any{"typ": "dpop+jwt", "jwk": pubJWK},
			map[string]any{"htm": "POST", "htu": target, "iat": now.Unix(), "ath": accessTokenHash("tok")})), "tok", ErrInvalidDPoPProof},
		{"iat not a number", withProof("POST", target, rawProof(t, key, jose.ES256,
			map[jose.HeaderKey]any{"typ": "dpop+jwt", "jwk": pubJWK},
			map[string]any{"jti": "j", "htm": "POST", "htu": target, "iat": "now"})), "tok", ErrInvalidDPoPProof},
		{"garbage", withProof("POST", target, "not.a.jwt"), "tok", ErrInvalidDPoPProof},
		{"too large", withProof("POST", target, strings.Repeat("a", DefaultMaxDPoPProofBytes+1)), "tok", ErrInvalidDPoPProof},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newTestDPoPVerifier(t, clock, nil)
			p, err := v.Verify(tc.req, target, tc.token)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err == nil && (p.KeyThumbprint != k.jkt || p.Method != "POST" || p.URL != target) {
				t.Errorf("proof %+v", p)
			}
		})
	}

	t.Run("two DPoP headers", func(t *testing.T) {
		v := newTestDPoPVerifier(t, clock, nil)
		r := withProof("POST", target, proof("POST", target, "tok", now))
		r.Header.Add("DPoP", proof("POST", target, "tok", now))
		if _, err := v.Verify(r, target, "tok"); !errors.Is(err, ErrInvalidDPoPProof) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("replay", func(t *testing.T) {
		v := newTestDPoPVerifier(t, clock, nil)
		p := proof("POST", target, "tok", clock.now())
		if _, err := v.Verify(withProof("POST", target, p), target, "tok"); err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(withProof("POST", target, p), target, "tok"); !errors.Is(err, ErrInvalidDPoPProof) {
			t.Errorf("replayed proof: err = %v", err)
		}
	})
	t.Run("algorithms restricted", func(t *testing.T) {
		v := newTestDPoPVerifier(t, clock, &DPoPVerifierOptions{Algorithms: []string{"EdDSA"}})
		if _, err := v.Verify(withProof("POST", target, proof("POST", target, "tok", now)), target, "tok"); !errors.Is(err, ErrInvalidDPoPProof) {
			t.Errorf("ES256 accepted by an EdDSA-only verifier: %v", err)
		}
		for _, bad := range [][]string{{"none"}, {"HS256"}, {}} {
			if _, err := NewDPoPVerifier(&DPoPVerifierOptions{Algorithms: bad}); err == nil {
				t.Errorf("algorithms %q accepted", bad)
			}
		}
	})
}

func TestDPoPReplayCacheBounded(t *testing.T) {
	const target = "https://as.example.com/token"
	clock := &proofClock{t: time.Unix(1767225600, 0)}
	v := newTestDPoPVerifier(t, clock, &DPoPVerifierOptions{MaxReplayEntries: 2, MaxProofAge: time.Minute, ClockSkew: time.Second})
	k := mustDPoPKey(t, newP256(t), "")
	verify := func() error {
		p, _ := k.proof(jose.ES256, "POST", target, "", "", clock.now())
		_, err := v.Verify(withProof("POST", target, p), target, "")
		return err
	}
	for i := range 2 {
		if err := verify(); err != nil {
			t.Fatalf("proof %d: %v", i, err)
		}
	}
	if err := verify(); !errors.Is(err, ErrDPoPReplayCacheFull) {
		t.Fatalf("third proof in a cache of 2: %v", err)
	}
	clock.add(time.Minute + 2*time.Second) // the first two expire
	if err := verify(); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if n := v.replay.len(); n != 1 {
		t.Errorf("%d entries kept, want 1", n)
	}
}

func TestDPoPVerifierNonces(t *testing.T) {
	const target = "https://mcp.example.com/mcp"
	clock := &proofClock{t: time.Unix(1767225600, 0)}
	shared := make([]byte, 32)
	rand.Read(shared)
	v := newTestDPoPVerifier(t, clock, &DPoPVerifierOptions{RequireNonce: true, NonceKey: shared})
	k := mustDPoPKey(t, newP256(t), "")
	verify := func(v *DPoPVerifier, nonce string) error {
		p, _ := k.proof(jose.ES256, "POST", target, nonce, "tok", clock.now())
		_, err := v.Verify(withProof("POST", target, p), target, "tok")
		return err
	}
	if err := verify(v, ""); !errors.Is(err, ErrUseDPoPNonce) {
		t.Errorf("no nonce: %v", err)
	}
	n := v.Nonce()
	if !validNonce(n) {
		t.Fatalf("nonce %q is not NQCHAR", n)
	}
	if err := verify(v, n); err != nil {
		t.Errorf("fresh nonce: %v", err)
	}
	// Another instance with the same key accepts it; one with another
	// key does not.
	twin := newTestDPoPVerifier(t, clock, &DPoPVerifierOptions{RequireNonce: true, NonceKey: shared})
	if err := verify(twin, n); err != nil {
		t.Errorf("nonce of a twin verifier: %v", err)
	}
	stranger := newTestDPoPVerifier(t, clock, &DPoPVerifierOptions{RequireNonce: true})
	if err := verify(stranger, n); !errors.Is(err, ErrUseDPoPNonce) {
		t.Errorf("foreign nonce: %v", err)
	}
	if err := verify(v, "bm90LWEtbm9uY2U"); !errors.Is(err, ErrUseDPoPNonce) {
		t.Errorf("forged nonce: %v", err)
	}
	clock.add(DefaultDPoPNonceLifetime + time.Second)
	if err := verify(v, n); !errors.Is(err, ErrUseDPoPNonce) {
		t.Errorf("stale nonce: %v", err)
	}
	if _, err := NewDPoPVerifier(&DPoPVerifierOptions{NonceKey: []byte("short")}); err == nil {
		t.Error("short nonce key accepted")
	}
}

func TestValidNonce(t *testing.T) {
	for s, want := range map[string]bool{
		"abc-_.~!#$": true, "": false, "a b": false, `a"b`: false, `a\b`: false, "é": false,
		strings.Repeat("n", maxDPoPNonceBytes): true, strings.Repeat("n", maxDPoPNonceBytes+1): false,
	} {
		if validNonce(s) != want {
			t.Errorf("validNonce(%q) = %v", s, !want)
		}
	}
}
