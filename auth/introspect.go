package auth

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
)

// Defaults of IntrospectionVerifier.
const (
	// DefaultIntrospectionCacheTTL is the longest an introspection
	// answer is reused (never beyond the token's expiry).
	DefaultIntrospectionCacheTTL = 2 * time.Minute
	// DefaultMaxIntrospectionCache bounds the cached answers.
	DefaultMaxIntrospectionCache = 10000
)

// IntrospectionOptions configure an IntrospectionVerifier.
type IntrospectionOptions struct {
	// Endpoint is the authorization server's introspection endpoint
	// (RFC 7662). Required.
	Endpoint string
	// ClientID and ClientSecret authenticate this resource server to
	// the endpoint.
	ClientID, ClientSecret string
	// AuthMethod is "client_secret_basic" (default) or
	// "client_secret_post".
	AuthMethod string
	// Audience is this resource's identifier: the response's "aud" must
	// name it (compared as canonical URIs). Required.
	Audience string
	// AllowMissingAudience accepts active tokens whose introspection
	// response has no "aud", trusting the authorization server to issue
	// tokens only for this resource. Off by default.
	AllowMissingAudience bool
	// Issuer, if set, must equal the response's "iss" when it has one.
	Issuer string
	// CacheTTL bounds how long an active answer is reused; it is never
	// reused past the token's "exp". Default DefaultIntrospectionCacheTTL;
	// negative disables the cache.
	CacheTTL time.Duration
	// MaxCacheEntries bounds the cache. Default
	// DefaultMaxIntrospectionCache.
	MaxCacheEntries int
	// ClockSkew is the leeway on exp and nbf. Default DefaultClockSkew.
	ClockSkew time.Duration
	// HTTPClient calls the endpoint. Default: no redirects.
	HTTPClient *http.Client
	// RequestTimeout bounds each call. Default DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxResponseBytes bounds each answer. Default
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxTokenBytes bounds the token's size. Default
	// DefaultMaxTokenBytes.
	MaxTokenBytes int
}

// An IntrospectionVerifier verifies opaque access tokens by asking the
// authorization server (RFC 7662), caching active answers for a short
// time. It is a TokenVerifier. Tokens are cached under their SHA-256
// hash, never in clear.
type IntrospectionVerifier struct {
	opts IntrospectionOptions
	aud  string
	doer *httpDoer
	now  func() time.Time

	mu    sync.Mutex
	cache map[[32]byte]cached
}

type cached struct {
	info  *TokenInfo
	until time.Time
}

// NewIntrospectionVerifier checks opts and returns a verifier.
func NewIntrospectionVerifier(opts *IntrospectionOptions) (*IntrospectionVerifier, error) {
	if opts == nil {
		return nil, errors.New("auth: IntrospectionOptions are required")
	}
	v := &IntrospectionVerifier{opts: *opts, now: time.Now, cache: map[[32]byte]cached{}}
	o := &v.opts
	if _, err := checkSecureURL(o.Endpoint, true); err != nil {
		return nil, fmt.Errorf("auth: introspection endpoint: %w", err)
	}
	aud, err := CanonicalResourceURI(o.Audience)
	if err != nil {
		return nil, fmt.Errorf("auth: IntrospectionOptions.Audience: %w", err)
	}
	v.aud = aud
	switch o.AuthMethod {
	case "":
		o.AuthMethod = AuthMethodClientSecretBasic
	case AuthMethodClientSecretBasic, AuthMethodClientSecretPost:
	default:
		return nil, fmt.Errorf("auth: unsupported introspection auth method %q", o.AuthMethod)
	}
	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultIntrospectionCacheTTL
	}
	o.MaxCacheEntries = orInt(o.MaxCacheEntries, DefaultMaxIntrospectionCache)
	if o.ClockSkew == 0 {
		o.ClockSkew = DefaultClockSkew
	}
	o.MaxTokenBytes = orInt(o.MaxTokenBytes, DefaultMaxTokenBytes)
	v.doer = newDoer(o.HTTPClient, o.RequestTimeout, o.MaxResponseBytes)
	return v, nil
}

// VerifyToken introspects token (or reuses a recent answer).
func (v *IntrospectionVerifier) VerifyToken(ctx context.Context, token string) (*TokenInfo, error) {
	if len(token) > v.opts.MaxTokenBytes {
		return nil, fmt.Errorf("%w: token too long", ErrInvalidToken)
	}
	key := sha256.Sum256([]byte(token))
	now := v.now()
	v.mu.Lock()
	if c, ok := v.cache[key]; ok {
		if now.Before(c.until) {
			v.mu.Unlock()
			return c.info, nil
		}
		delete(v.cache, key)
	}
	v.mu.Unlock()

	info, err := v.introspect(ctx, token)
	if err != nil {
		return nil, err
	}
	if v.opts.CacheTTL > 0 {
		until := now.Add(v.opts.CacheTTL)
		if !info.Expiry.IsZero() && info.Expiry.Before(until) {
			until = info.Expiry
		}
		v.store(key, cached{info: info, until: until}, now)
	}
	return info, nil
}

func (v *IntrospectionVerifier) store(key [32]byte, c cached, now time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.cache) >= v.opts.MaxCacheEntries {
		for k, e := range v.cache {
			if !now.Before(e.until) {
				delete(v.cache, k)
			}
		}
		for k := range v.cache {
			if len(v.cache) < v.opts.MaxCacheEntries {
				break
			}
			delete(v.cache, k) // random eviction
		}
	}
	v.cache[key] = c
}

func (v *IntrospectionVerifier) introspect(ctx context.Context, token string) (*TokenInfo, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	hdr := http.Header{}
	switch v.opts.AuthMethod {
	case AuthMethodClientSecretBasic:
		if v.opts.ClientID != "" {
			hdr.Set("Authorization", basicAuth(v.opts.ClientID, v.opts.ClientSecret))
		}
	case AuthMethodClientSecretPost:
		form.Set("client_id", v.opts.ClientID)
		form.Set("client_secret", v.opts.ClientSecret)
	}
	resp, err := v.doer.postForm(ctx, v.opts.Endpoint, form, hdr)
	if err != nil {
		return nil, fmt.Errorf("auth: introspection: %w", err)
	}
	if resp.status != http.StatusOK {
		return nil, fmt.Errorf("auth: introspection: %w", oauthError("introspection", resp))
	}
	dec := json.NewDecoder(bytes.NewReader(resp.body))
	dec.UseNumber()
	var claims map[string]any
	if err := dec.Decode(&claims); err != nil {
		return nil, fmt.Errorf("auth: introspection: malformed response: %w", err)
	}
	if active, _ := claims["active"].(bool); !active {
		return nil, fmt.Errorf("%w: not active", ErrInvalidToken)
	}
	info := &TokenInfo{
		Issuer:   stringClaim(claims, "iss"),
		Subject:  stringClaim(claims, "sub"),
		ClientID: stringClaim(claims, "client_id"),
		Scopes:   scopesFromClaims(claims),
		Expiry:   numericClaim(claims, "exp"),
		IssuedAt: numericClaim(claims, "iat"),
		Claims:   claims,
	}
	jkt, ok := confirmationJKT(claims)
	if !ok {
		return nil, fmt.Errorf("%w: malformed cnf in the introspection response", ErrInvalidToken)
	}
	info.DPoPKeyThumbprint = jkt
	switch a := claims["aud"].(type) {
	case string:
		info.Audience = []string{a}
	case []any:
		for _, e := range a {
			if s, ok := e.(string); ok {
				info.Audience = append(info.Audience, s)
			}
		}
	}
	if v.opts.Issuer != "" && info.Issuer != "" && info.Issuer != v.opts.Issuer {
		return nil, fmt.Errorf("%w: issuer %q", ErrInvalidToken, truncate(info.Issuer, 100))
	}
	if len(info.Audience) == 0 {
		if !v.opts.AllowMissingAudience {
			return nil, fmt.Errorf("%w: introspection response names no audience", ErrInvalidToken)
		}
	} else if !slices.ContainsFunc(info.Audience, func(a string) bool { return canonicalEq(a, v.aud) }) {
		return nil, fmt.Errorf("%w: audience is not this resource", ErrInvalidToken)
	}
	now := v.now()
	if !info.Expiry.IsZero() && now.Add(-v.opts.ClockSkew).After(info.Expiry) {
		return nil, fmt.Errorf("%w: expired", ErrInvalidToken)
	}
	if nbf := numericClaim(claims, "nbf"); !nbf.IsZero() && now.Add(v.opts.ClockSkew).Before(nbf) {
		return nil, fmt.Errorf("%w: not yet valid", ErrInvalidToken)
	}
	return info, nil
}

// basicAuth returns the client_secret_basic Authorization value: the
// id and secret form-urlencoded (RFC 6749 §2.3.1), joined by ":", in
// base64.
func basicAuth(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
}
