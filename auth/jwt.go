package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Defaults of JWTVerifier.
const (
	// DefaultClockSkew is the leeway allowed on exp, nbf and iat.
	DefaultClockSkew = time.Minute
	// DefaultMaxTokenBytes bounds the size of a bearer token.
	DefaultMaxTokenBytes = 16 << 10
)

// defaultJWTAlgorithms are the asymmetric algorithms accepted by default.
var defaultJWTAlgorithms = []string{
	"RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
	"ES256", "ES384", "ES512", "EdDSA",
}

var hmacAlgorithms = []string{"HS256", "HS384", "HS512"}

// notAccessTokenTypes are JWT "typ" values of tokens that are never
// access tokens; they are refused unless JWTOptions.TokenTypes allows
// them.
var notAccessTokenTypes = []string{
	"dpop+jwt", "oauth-id-jag+jwt", "logout+jwt", "secevent+jwt",
	"client-authentication+jwt", "token-introspection+jwt",
}

// JWTOptions configure a JWTVerifier.
type JWTOptions struct {
	// Issuer is the authorization server's issuer identifier; the "iss"
	// claim must equal it exactly. Required.
	Issuer string
	// Audience is this resource's identifier; some "aud" of the token
	// must name it (compared as canonical URIs, see
	// CanonicalResourceURI). Required.
	Audience string
	// JWKSURL is the authorization server's key set (its metadata's
	// jwks_uri). Required unless HMACKey is set.
	JWKSURL string
	// Algorithms lists the accepted "alg" values. Default: RS256, RS384,
	// RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA. "none" is
	// never accepted; HS256/384/512 only with HMACKey.
	Algorithms []string
	// HMACKey, if set, verifies HS256, HS384 and HS512 tokens (a shared
	// secret with the authorization server, at least 32 bytes).
	HMACKey []byte
	// ClockSkew is the leeway on exp, nbf and iat. Default
	// DefaultClockSkew; negative means none.
	ClockSkew time.Duration
	// AllowMissingExpiry accepts tokens without "exp". By default they
	// are refused.
	AllowMissingExpiry bool
	// TokenTypes, if set, lists the accepted "typ" header values
	// (compared case-insensitively, "application/" optional), for
	// example "at+jwt" (RFC 9068). Default: any type except those of
	// tokens that are never access tokens (DPoP proofs, ID-JAGs, logout
	// and security event tokens).
	TokenTypes []string
	// HTTPClient fetches the key set. Default: no redirects; each fetch
	// is bounded by RequestTimeout and MaxResponseBytes.
	HTTPClient *http.Client
	// RequestTimeout bounds a key-set fetch. Default
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxResponseBytes bounds a key set. Default DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// JWKSCacheTTL is how long a key set is used before being refetched.
	// Default DefaultJWKSCacheTTL.
	JWKSCacheTTL time.Duration
	// JWKSMinRefresh is the least time between two fetches of the key
	// set, when tokens name unknown keys. Default DefaultJWKSMinRefresh.
	JWKSMinRefresh time.Duration
	// MaxJWKSKeys bounds the keys kept from the set. Default
	// DefaultMaxJWKSKeys.
	MaxJWKSKeys int
	// MaxTokenBytes bounds the token's size. Default
	// DefaultMaxTokenBytes.
	MaxTokenBytes int
}

// A JWTVerifier verifies JWT access tokens (RFC 9068 style) signed by an
// authorization server, with keys from its JWKS. It is a TokenVerifier.
type JWTVerifier struct {
	opts JWTOptions
	algs []jose.SignatureAlgorithm
	skew time.Duration
	jwks *jwksCache
	now  func() time.Time
	aud  string // canonical audience
}

// NewJWTVerifier checks opts and returns a verifier. The key set is
// fetched on first use.
func NewJWTVerifier(opts *JWTOptions) (*JWTVerifier, error) {
	if opts == nil {
		return nil, errors.New("auth: JWTOptions are required")
	}
	v := &JWTVerifier{opts: *opts, now: time.Now}
	o := &v.opts
	if o.Issuer == "" {
		return nil, errors.New("auth: JWTOptions.Issuer is required")
	}
	aud, err := CanonicalResourceURI(o.Audience)
	if err != nil {
		return nil, fmt.Errorf("auth: JWTOptions.Audience: %w", err)
	}
	v.aud = aud
	algs := o.Algorithms
	if algs == nil {
		algs = defaultJWTAlgorithms
		if len(o.HMACKey) > 0 {
			algs = append(slices.Clone(algs), hmacAlgorithms...)
		}
	}
	for _, a := range algs {
		switch {
		case strings.EqualFold(a, "none"):
			return nil, errors.New(`auth: the "none" algorithm is never accepted`)
		case slices.Contains(hmacAlgorithms, a):
			if len(o.HMACKey) < 32 {
				return nil, fmt.Errorf("auth: %s needs an HMACKey of at least 32 bytes", a)
			}
		case !slices.Contains(defaultJWTAlgorithms, a):
			return nil, fmt.Errorf("auth: unsupported JWT algorithm %q", a)
		}
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	if o.JWKSURL == "" && len(o.HMACKey) == 0 {
		return nil, errors.New("auth: JWTOptions.JWKSURL is required")
	}
	v.skew = o.ClockSkew
	switch {
	case v.skew == 0:
		v.skew = DefaultClockSkew
	case v.skew < 0:
		v.skew = 0
	}
	if o.MaxTokenBytes <= 0 {
		o.MaxTokenBytes = DefaultMaxTokenBytes
	}
	if o.JWKSURL != "" {
		if _, err := checkSecureURL(o.JWKSURL, true); err != nil {
			return nil, fmt.Errorf("auth: JWTOptions.JWKSURL: %w", err)
		}
		v.jwks = &jwksCache{
			url:        o.JWKSURL,
			doer:       newDoer(o.HTTPClient, o.RequestTimeout, o.MaxResponseBytes),
			ttl:        orDuration(o.JWKSCacheTTL, DefaultJWKSCacheTTL),
			minRefresh: orDuration(o.JWKSMinRefresh, DefaultJWKSMinRefresh),
			maxKeys:    orInt(o.MaxJWKSKeys, DefaultMaxJWKSKeys),
			now:        func() time.Time { return v.now() },
		}
	}
	return v, nil
}

func orDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

func orInt(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// VerifyToken verifies token's signature, type, issuer, audience and
// validity period, and describes it. A DPoP-bound token's cnf.jkt
// becomes TokenInfo.DPoPKeyThumbprint, for the middleware to check the
// proof that comes with it.
func (v *JWTVerifier) VerifyToken(ctx context.Context, token string) (*TokenInfo, error) {
	if len(token) > v.opts.MaxTokenBytes {
		return nil, fmt.Errorf("%w: token too long", ErrInvalidToken)
	}
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	if len(tok.Headers) != 1 {
		return nil, fmt.Errorf("%w: expected one signature", ErrInvalidToken)
	}
	hdr := tok.Headers[0]
	if err := v.checkType(hdr); err != nil {
		return nil, err
	}
	alg := hdr.Algorithm
	var std jwt.Claims
	var raw map[string]any
	if slices.Contains(hmacAlgorithms, alg) {
		if err := tok.Claims(v.opts.HMACKey, &std, &raw); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
		}
	} else {
		if v.jwks == nil {
			return nil, fmt.Errorf("%w: no key set for %s", ErrInvalidToken, alg)
		}
		keys, err := v.jwks.keysFor(ctx, hdr.KeyID)
		if err != nil {
			return nil, err
		}
		verified := false
		for _, k := range keys {
			if k.Algorithm != "" && k.Algorithm != alg {
				continue
			}
			if tok.Claims(k.Key, &std, &raw) == nil {
				verified = true
				break
			}
		}
		if !verified {
			return nil, fmt.Errorf("%w: signature does not verify", ErrInvalidToken)
		}
	}
	if std.Issuer != v.opts.Issuer {
		return nil, fmt.Errorf("%w: issuer %q", ErrInvalidToken, truncate(std.Issuer, 100))
	}
	if !slices.ContainsFunc(std.Audience, func(a string) bool { return canonicalEq(a, v.aud) }) {
		return nil, fmt.Errorf("%w: audience %q is not this resource", ErrInvalidToken, truncate(strings.Join(std.Audience, " "), 200))
	}
	if std.Expiry == nil && !v.opts.AllowMissingExpiry {
		return nil, fmt.Errorf("%w: no expiry", ErrInvalidToken)
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Time: v.now()}, v.skew); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	info := &TokenInfo{
		Issuer:   std.Issuer,
		Subject:  std.Subject,
		Audience: []string(std.Audience),
		Claims:   raw,
		Scopes:   scopesFromClaims(raw),
		ClientID: stringClaim(raw, "client_id"),
	}
	if info.ClientID == "" {
		info.ClientID = stringClaim(raw, "azp")
	}
	jkt, ok := confirmationJKT(raw)
	if !ok {
		return nil, fmt.Errorf("%w: malformed cnf claim", ErrInvalidToken)
	}
	info.DPoPKeyThumbprint = jkt
	if std.Expiry != nil {
		info.Expiry = std.Expiry.Time()
	}
	if std.IssuedAt != nil {
		info.IssuedAt = std.IssuedAt.Time()
	}
	return info, nil
}

func (v *JWTVerifier) checkType(hdr jose.Header) error {
	typ, _ := hdr.ExtraHeaders[jose.HeaderType].(string)
	norm := strings.TrimPrefix(strings.ToLower(typ), "application/")
	if v.opts.TokenTypes != nil {
		for _, t := range v.opts.TokenTypes {
			if strings.TrimPrefix(strings.ToLower(t), "application/") == norm {
				return nil
			}
		}
		return fmt.Errorf("%w: token type %q not accepted", ErrInvalidToken, truncate(typ, 50))
	}
	if slices.Contains(notAccessTokenTypes, norm) {
		return fmt.Errorf("%w: a %q token is not an access token", ErrInvalidToken, truncate(typ, 50))
	}
	return nil
}

// canonicalEq compares a resource identifier with an already canonical
// one.
func canonicalEq(a, canonical string) bool {
	c, err := CanonicalResourceURI(a)
	return err == nil && c == canonical
}

// scopesFromClaims reads "scope" (space-delimited, RFC 9068 / 8693) or
// "scp" (a string or an array, as some issuers send).
func scopesFromClaims(claims map[string]any) []string {
	for _, name := range []string{"scope", "scp"} {
		switch v := claims[name].(type) {
		case string:
			return strings.Fields(v)
		case []any:
			var out []string
			for _, e := range v {
				if s, ok := e.(string); ok && s != "" {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return nil
}

func stringClaim(claims map[string]any, name string) string {
	s, _ := claims[name].(string)
	return s
}

// numericClaim reads a JSON number claim as a time.
func numericClaim(claims map[string]any, name string) time.Time {
	switch v := claims[name].(type) {
	case float64:
		return time.Unix(int64(v), 0)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return time.Unix(n, 0)
		}
	}
	return time.Time{}
}
