package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// introspectionServer answers for the tokens in answers.
func introspectionServer(t *testing.T, answers map[string]map[string]any, calls *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != basicAuth("rs", "rs-secret") {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
		r.ParseForm()
		a, ok := answers[r.PostForm.Get("token")]
		if !ok {
			a = map[string]any{"active": false}
		}
		writeJSON(w, http.StatusOK, a)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestIntrospectionVerifier(t *testing.T) {
	now := time.Now()
	answers := map[string]map[string]any{
		"good":     {"active": true, "sub": "bob", "scope": "a b", "client_id": "c", "aud": testAudience, "iss": testIssuer, "exp": now.Add(time.Hour).Unix()},
		"short":    {"active": true, "sub": "bob", "aud": []string{"x", testAudience}, "exp": now.Add(30 * time.Second).Unix()},
		"otheraud": {"active": true, "sub": "bob", "aud": "https://other.example.com"},
		"noaud":    {"active": true, "sub": "bob"},
		"otheriss": {"active": true, "sub": "bob", "aud": testAudience, "iss": "https://evil.example.com"},
		"expired":  {"active": true, "sub": "bob", "aud": testAudience, "exp": now.Add(-time.Hour).Unix()},
	}
	var calls atomic.Int32
	srv := introspectionServer(t, answers, &calls)
	v, err := NewIntrospectionVerifier(&IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs", ClientSecret: "rs-secret", Audience: testAudience, Issuer: testIssuer})
	if err != nil {
		t.Fatal(err)
	}
	clock := now
	var mu sync.Mutex
	v.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	ctx := context.Background()
	info, err := v.VerifyToken(ctx, "good")
	if err != nil || info.Subject != "bob" || !info.HasScope("b") || info.ClientID != "c" || info.Expiry.Unix() != now.Add(time.Hour).Unix() {
		t.Fatalf("good: %+v, %v", info, err)
	}
	for _, tok := range []string{"otheraud", "noaud", "otheriss", "expired", "unknown"} {
		if _, err := v.VerifyToken(ctx, tok); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: %v", tok, err)
		}
	}
	// Cached answers: no new call within the TTL, a new one after it,
	// and never beyond the token's expiry.
	calls.Store(0)
	v.VerifyToken(ctx, "good")
	v.VerifyToken(ctx, "short")
	v.VerifyToken(ctx, "short")
	if n := calls.Load(); n != 1 {
		t.Errorf("%d calls, want 1 (good cached, short fetched once)", n)
	}
	mu.Lock()
	clock = clock.Add(45 * time.Second) // past short's exp, within the TTL
	mu.Unlock()
	v.VerifyToken(ctx, "good")
	v.VerifyToken(ctx, "short")
	if n := calls.Load(); n != 2 {
		t.Errorf("%d calls, want 2 (short re-introspected after its expiry)", n)
	}

	lax, _ := NewIntrospectionVerifier(&IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs", ClientSecret: "rs-secret", Audience: testAudience, AllowMissingAudience: true})
	if _, err := lax.VerifyToken(ctx, "noaud"); err != nil {
		t.Errorf("AllowMissingAudience: %v", err)
	}
	bad, _ := NewIntrospectionVerifier(&IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs", ClientSecret: "wrong", Audience: testAudience})
	if _, err := bad.VerifyToken(ctx, "good"); err == nil || errors.Is(err, ErrInvalidToken) {
		t.Errorf("endpoint refusing the resource server: %v (must not look like a bad token)", err)
	}
}

func TestIntrospectionCacheBounded(t *testing.T) {
	answers := map[string]map[string]any{}
	for _, tok := range []string{"t1", "t2", "t3", "t4"} {
		answers[tok] = map[string]any{"active": true, "aud": testAudience}
	}
	var calls atomic.Int32
	srv := introspectionServer(t, answers, &calls)
	v, _ := NewIntrospectionVerifier(&IntrospectionOptions{Endpoint: srv.URL, ClientID: "rs", ClientSecret: "rs-secret", Audience: testAudience, MaxCacheEntries: 2})
	for _, tok := range []string{"t1", "t2", "t3", "t4"} {
		if _, err := v.VerifyToken(context.Background(), tok); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(v.cache); n > 2 {
		t.Errorf("cache holds %d entries, bound 2", n)
	}
}
