package auth

// The middleware with DPoP: binding, proofs, nonces and challenges.

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// boundVerifier accepts "bound.<jkt>" (a token bound to jkt),
// "claims.<jkt>" (bound, said only in Claims, as a custom verifier may)
// and the tokens of fakeVerifier (bearer tokens).
var boundVerifier = TokenVerifierFunc(func(ctx context.Context, tok string) (*TokenInfo, error) {
	if jkt, ok := strings.CutPrefix(tok, "bound."); ok {
		return &TokenInfo{Subject: "alice", Scopes: []string{"mcp:basic"}, DPoPKeyThumbprint: jkt}, nil
	}
	if jkt, ok := strings.CutPrefix(tok, "claims."); ok {
		return &TokenInfo{Subject: "alice", Scopes: []string{"mcp:basic"}, Claims: map[string]any{"cnf": map[string]any{"jkt": jkt}}}, nil
	}
	return fakeVerifier(ctx, tok)
})

type dpopRS struct {
	rs    *ResourceServer
	v     *DPoPVerifier
	clock *proofClock
	key   *dpopKey
}

func newDPoPRS(t *testing.T, vopts *DPoPVerifierOptions, mod func(*ResourceOptions)) *dpopRS {
	t.Helper()
	clock := &proofClock{t: time.Now()}
	v := newTestDPoPVerifier(t, clock, vopts)
	rs := newResourceServer(t, func(o *ResourceOptions) {
		o.Verifier = boundVerifier
		o.DPoP = v
		if mod != nil {
			mod(o)
		}
	})
	return &dpopRS{rs: rs, v: v, clock: clock, key: mustDPoPKey(t, newP256(t), "")}
}

// request makes a POST to the resource presenting token with scheme and,
// when proof is not "-", a DPoP header (a fresh proof of d.key for
// token when proof is "").
func (d *dpopRS) request(t *testing.T, scheme, token, nonce, proof string) *http.Request {
	t.Helper()
	r := post("", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r.Header.Set("Authorization", scheme+" "+token)
	if proof == "" {
		var err error
		proof, err = d.key.proof(jose.ES256, "POST", testAudience, nonce, token, d.clock.now())
		if err != nil {
			t.Fatal(err)
		}
	}
	if proof != "-" {
		r.Header.Set("DPoP", proof)
	}
	return r
}

func challenges(rec *httptest.ResponseRecorder) []Challenge {
	return ParseChallenges(rec.Header().Values("WWW-Authenticate"))
}

func TestMiddlewareDPoP(t *testing.T) {
	d := newDPoPRS(t, nil, nil)
	bound := "bound." + d.key.jkt

	t.Run("no token: both challenges", func(t *testing.T) {
		rec, _ := serveOnce(d.rs, post("", `{}`))
		chs := challenges(rec)
		if rec.Code != 401 || len(chs) != 2 || chs[0].Scheme != "Bearer" || chs[1].Scheme != "DPoP" {
			t.Fatalf("%d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
		}
		if chs[1].Param("algs") != strings.Join(dpopAlgorithms, " ") || chs[1].Param("resource_metadata") != metaURL || chs[1].Param("error") != "" {
			t.Errorf("DPoP challenge %+v", chs[1])
		}
	})
	t.Run("DPoP-bound token with its proof", func(t *testing.T) {
		rec, s := serveOnce(d.rs, d.request(t, "DPoP", bound, "", ""))
		if rec.Code != 200 || !s.called || s.info.Subject != "alice" {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		if s.authz != "" {
			t.Error("Authorization header passed on")
		}
	})
	t.Run("bound only in Claims", func(t *testing.T) {
		if rec, _ := serveOnce(d.rs, d.request(t, "DPoP", "claims."+d.key.jkt, "", "")); rec.Code != 200 {
			t.Errorf("%d %s", rec.Code, rec.Body)
		}
		rec, _ := serveOnce(d.rs, d.request(t, "Bearer", "claims."+d.key.jkt, "", "-"))
		if rec.Code != 401 {
			t.Errorf("bound (in Claims) token as bearer: %d", rec.Code)
		}
	})
	for _, tc := range []struct {
		name, scheme, token, proof string
		wantScheme, wantErr        string
	}{
		{"bound token as a bearer token", "Bearer", bound, "-", "Bearer", "invalid_token"},
		{"bound token without proof", "DPoP", bound, "-", "DPoP", "invalid_dpop_proof"},
		{"bearer token with the DPoP scheme", "DPoP", "good-mcp~basic", "", "DPoP", "invalid_token"},
		{"token bound to another key", "DPoP", "bound.someone-elses-thumbprint", "", "DPoP", "invalid_dpop_proof"},
		{"invalid token", "DPoP", "bad", "", "DPoP", "invalid_token"},
		{"malformed proof", "DPoP", bound, "x.y.z", "DPoP", "invalid_dpop_proof"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, s := serveOnce(d.rs, d.request(t, tc.scheme, tc.token, "", tc.proof))
			chs := challenges(rec)
			if rec.Code != 401 || s.called || len(chs) != 1 || chs[0].Scheme != tc.wantScheme || chs[0].Param("error") != tc.wantErr {
				t.Errorf("%d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
			}
		})
	}
	t.Run("proof for another token (ath)", func(t *testing.T) {
		p, _ := d.key.proof(jose.ES256, "POST", testAudience, "", "bound.other", d.clock.now())
		rec, _ := serveOnce(d.rs, d.request(t, "DPoP", bound, "", p))
		if ch := challenges(rec); rec.Code != 401 || ch[0].Param("error") != "invalid_dpop_proof" || !strings.Contains(ch[0].Param("error_description"), "ath") {
			t.Errorf("%d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
		}
	})
	t.Run("replayed request", func(t *testing.T) {
		r := d.request(t, "DPoP", bound, "", "")
		again := r.Clone(context.Background())
		again.Body = http.NoBody
		if rec, _ := serveOnce(d.rs, r); rec.Code != 200 {
			t.Fatalf("first: %d", rec.Code)
		}
		rec, s := serveOnce(d.rs, again)
		if rec.Code != 401 || s.called || challenges(rec)[0].Param("error") != "invalid_dpop_proof" {
			t.Errorf("replay: %d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
		}
	})
	t.Run("insufficient scope in the DPoP scheme", func(t *testing.T) {
		r := post("", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete"}}`)
		r.Header.Set("Authorization", "DPoP "+bound)
		p, _ := d.key.proof(jose.ES256, "POST", testAudience, "", bound, d.clock.now())
		r.Header.Set("DPoP", p)
		rec, _ := serveOnce(d.rs, r)
		chs := challenges(rec)
		if rec.Code != 403 || len(chs) != 1 || chs[0].Scheme != "DPoP" || chs[0].Param("error") != "insufficient_scope" ||
			chs[0].Param("scope") != "mcp:basic mcp:write" {
			t.Errorf("%d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
		}
	})
	t.Run("metadata", func(t *testing.T) {
		md := d.rs.Metadata()
		if !slices.Equal(md.DPoPSigningAlgValuesSupported, dpopAlgorithms) || md.DPoPBoundAccessTokensRequired {
			t.Errorf("metadata %+v", md)
		}
	})
}

func TestMiddlewareRequireDPoP(t *testing.T) {
	d := newDPoPRS(t, &DPoPVerifierOptions{Algorithms: []string{"ES256"}}, func(o *ResourceOptions) { o.RequireDPoP = true })
	rec, _ := serveOnce(d.rs, post("", `{}`))
	chs := challenges(rec)
	if rec.Code != 401 || len(chs) != 1 || chs[0].Scheme != "DPoP" || chs[0].Param("algs") != "ES256" {
		t.Errorf("no token: %d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
	}
	rec, s := serveOnce(d.rs, post("good-mcp~basic", `{}`))
	if chs := challenges(rec); rec.Code != 401 || s.called || chs[0].Scheme != "DPoP" || chs[0].Param("error") != "invalid_token" {
		t.Errorf("bearer token: %d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
	}
	if rec, _ := serveOnce(d.rs, d.request(t, "DPoP", "bound."+d.key.jkt, "", "")); rec.Code != 200 {
		t.Errorf("DPoP: %d %s", rec.Code, rec.Body)
	}
	if md := d.rs.Metadata(); !md.DPoPBoundAccessTokensRequired || !slices.Equal(md.DPoPSigningAlgValuesSupported, []string{"ES256"}) {
		t.Errorf("metadata %+v", md)
	}
	if _, err := NewResourceServer(&ResourceOptions{Resource: testAudience, AuthorizationServers: []string{testIssuer},
		Verifier: boundVerifier, RequireDPoP: true}); err == nil {
		t.Error("RequireDPoP without a DPoPVerifier accepted")
	}
}

func TestMiddlewareDPoPNonce(t *testing.T) {
	d := newDPoPRS(t, &DPoPVerifierOptions{RequireNonce: true}, nil)
	bound := "bound." + d.key.jkt

	// The first challenge already carries a nonce.
	rec, _ := serveOnce(d.rs, post("", `{}`))
	if n := rec.Header().Get("DPoP-Nonce"); rec.Code != 401 || !validNonce(n) {
		t.Fatalf("no token: %d, nonce %q", rec.Code, n)
	}
	// A proof without nonce: use_dpop_nonce, and the nonce to use.
	rec, s := serveOnce(d.rs, d.request(t, "DPoP", bound, "", ""))
	chs := challenges(rec)
	nonce := rec.Header().Get("DPoP-Nonce")
	if rec.Code != 401 || s.called || len(chs) != 1 || chs[0].Scheme != "DPoP" || chs[0].Param("error") != "use_dpop_nonce" || nonce == "" {
		t.Fatalf("%d %q nonce %q", rec.Code, rec.Header().Values("WWW-Authenticate"), nonce)
	}
	// With it: through, and no new nonce while this one is young.
	rec, s = serveOnce(d.rs, d.request(t, "DPoP", bound, nonce, ""))
	if rec.Code != 200 || !s.called || rec.Header().Get("DPoP-Nonce") != "" {
		t.Fatalf("with the nonce: %d, new nonce %q", rec.Code, rec.Header().Get("DPoP-Nonce"))
	}
	// Past half its life, the answer brings the next one.
	d.clock.add(DefaultDPoPNonceLifetime/2 + time.Second)
	rec, _ = serveOnce(d.rs, d.request(t, "DPoP", bound, nonce, ""))
	next := rec.Header().Get("DPoP-Nonce")
	if rec.Code != 200 || next == "" || next == nonce {
		t.Fatalf("aging nonce: %d, next %q", rec.Code, next)
	}
	// Expired: use_dpop_nonce again.
	d.clock.add(DefaultDPoPNonceLifetime)
	rec, _ = serveOnce(d.rs, d.request(t, "DPoP", bound, nonce, ""))
	if rec.Code != 401 || challenges(rec)[0].Param("error") != "use_dpop_nonce" {
		t.Errorf("stale nonce: %d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
	}
}

func TestMiddlewareDPoPReplayCacheFull(t *testing.T) {
	d := newDPoPRS(t, &DPoPVerifierOptions{MaxReplayEntries: 1}, nil)
	bound := "bound." + d.key.jkt
	if rec, _ := serveOnce(d.rs, d.request(t, "DPoP", bound, "", "")); rec.Code != 200 {
		t.Fatalf("%d", rec.Code)
	}
	rec, s := serveOnce(d.rs, d.request(t, "DPoP", bound, "", ""))
	if rec.Code != 503 || s.called || rec.Header().Get("Retry-After") == "" {
		t.Errorf("full replay cache: %d", rec.Code)
	}
	// Refused proofs do not fill it: only holders of valid tokens can.
	if n := d.v.replay.len(); n != 1 {
		t.Errorf("%d entries", n)
	}
}

func TestMiddlewareWithoutDPoP(t *testing.T) {
	rs := newResourceServer(t, func(o *ResourceOptions) { o.Verifier = boundVerifier })
	key := mustDPoPKey(t, newP256(t), "")
	// The DPoP scheme is not a credential here: a plain 401.
	r := post("", `{}`)
	r.Header.Set("Authorization", "DPoP bound."+key.jkt)
	rec, s := serveOnce(rs, r)
	if chs := challenges(rec); rec.Code != 401 || s.called || len(chs) != 1 || chs[0].Scheme != "Bearer" || chs[0].Param("error") != "" {
		t.Errorf("DPoP scheme: %d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
	}
	// A bound token is never a bearer token.
	rec, s = serveOnce(rs, post("bound."+key.jkt, `{}`))
	if chs := challenges(rec); rec.Code != 401 || s.called || chs[0].Param("error") != "invalid_token" {
		t.Errorf("bound token as bearer: %d %q", rec.Code, rec.Header().Values("WWW-Authenticate"))
	}
	if md := rs.Metadata(); md.DPoPSigningAlgValuesSupported != nil {
		t.Errorf("metadata advertises DPoP: %+v", md)
	}
}

func TestJWTVerifierConfirmation(t *testing.T) {
	k := newTestKeys(t)
	v := newVerifier(t, k, nil)
	now := time.Now()
	c := validClaims(now)
	c["cnf"] = map[string]any{"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}
	info, err := v.VerifyToken(context.Background(), k.sign(t, c, "at+jwt"))
	if err != nil || info.DPoPKeyThumbprint != "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I" {
		t.Fatalf("%+v %v", info, err)
	}
	for _, bad := range []any{"jkt", map[string]any{"jkt": 7}, map[string]any{"jkt": ""}} {
		c["cnf"] = bad
		if _, err := v.VerifyToken(context.Background(), k.sign(t, c, "at+jwt")); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("cnf %v: %v", bad, err)
		}
	}
	c["cnf"] = map[string]any{"x5t#S256": "abc"}
	if info, err := v.VerifyToken(context.Background(), k.sign(t, c, "at+jwt")); err != nil || info.DPoPKeyThumbprint != "" {
		t.Errorf("other confirmation method: %+v %v", info, err)
	}
	// A DPoP proof is never an access token.
	key := mustDPoPKey(t, newP256(t), "")
	proof, _ := key.proof(jose.ES256, "POST", testAudience, "", "", now)
	if _, err := v.VerifyToken(context.Background(), proof); !errors.Is(err, ErrInvalidToken) {
		t.Errorf("proof as token: %v", err)
	}
}
