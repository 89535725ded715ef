package auth

import (
	"context"
	"errors"
	"slices"
	"time"
)

// ErrInvalidToken is what a TokenVerifier wraps when it rejects a token:
// malformed, badly signed, expired, not yet valid, from the wrong
// issuer, for another audience, or revoked. The middleware answers 401
// with error="invalid_token". Any other verifier error (the key set or
// the introspection endpoint unreachable) is answered 503, so that
// clients do not start a new authorization for a server-side outage.
var ErrInvalidToken = errors.New("auth: invalid token")

// A TokenVerifier checks an access token presented to this resource
// server and describes it. Implementations must check that the token was
// issued for this resource (its audience, RFC 8707), that it is within
// its validity period, and who issued it. JWTVerifier and
// IntrospectionVerifier are the two provided; a custom verifier (for
// opaque tokens of a private scheme, say) implements this interface.
type TokenVerifier interface {
	// VerifyToken returns the token's description, or an error wrapping
	// ErrInvalidToken when the token must be refused. It is called
	// concurrently.
	VerifyToken(ctx context.Context, token string) (*TokenInfo, error)
}

// TokenVerifierFunc adapts a function to TokenVerifier.
type TokenVerifierFunc func(ctx context.Context, token string) (*TokenInfo, error)

// VerifyToken calls f.
func (f TokenVerifierFunc) VerifyToken(ctx context.Context, token string) (*TokenInfo, error) {
	return f(ctx, token)
}

// TokenInfo describes a verified access token. It deliberately does not
// hold the token itself: an MCP server must never pass the client's
// token on to other services (no token passthrough); it obtains its own
// tokens for upstream APIs.
type TokenInfo struct {
	// Issuer is the authorization server that issued the token ("iss").
	Issuer string
	// Subject names the resource owner ("sub"): the user, or the client
	// itself for client-credentials tokens.
	Subject string
	// ClientID is the OAuth client the token was issued to ("client_id",
	// or "azp" for some issuers).
	ClientID string
	// Scopes are the granted scopes.
	Scopes []string
	// Audience lists the token's audiences ("aud").
	Audience []string
	// Expiry is when the token expires; zero if it does not say.
	Expiry time.Time
	// IssuedAt is when the token was issued; zero if unknown.
	IssuedAt time.Time
	// DPoPKeyThumbprint is the cnf.jkt claim of a DPoP-bound token (RFC
	// 9449 §6): the JWK SHA-256 thumbprint of the only key whose proofs
	// may accompany it. "" for a bearer token. The middleware refuses a
	// bound token presented as a bearer token, and one whose proof was
	// signed by another key. A custom verifier sets it, or leaves cnf in
	// Claims.
	DPoPKeyThumbprint string
	// Claims holds every claim of the JWT payload or of the introspection
	// response, decoded as encoding/json decodes into any.
	Claims map[string]any
}

// dpopThumbprint returns the key the token is bound to: the field, else
// cnf.jkt of Claims.
func (t *TokenInfo) dpopThumbprint() string {
	if t.DPoPKeyThumbprint != "" {
		return t.DPoPKeyThumbprint
	}
	jkt, _ := confirmationJKT(t.Claims)
	return jkt
}

// confirmationJKT reads the cnf.jkt claim (RFC 9449 §6.1): "" when there
// is none; ok is false when cnf is not an object or jkt not a non-empty
// string, a token to refuse.
func confirmationJKT(claims map[string]any) (jkt string, ok bool) {
	raw, has := claims["cnf"]
	if !has {
		return "", true
	}
	cnf, isObj := raw.(map[string]any)
	if !isObj {
		return "", false
	}
	v, has := cnf["jkt"]
	if !has {
		return "", true
	}
	jkt, _ = v.(string)
	return jkt, jkt != ""
}

// HasScope reports whether the token grants scope.
func (t *TokenInfo) HasScope(scope string) bool {
	return t != nil && slices.Contains(t.Scopes, scope)
}

// missingScopes returns the scopes of need the token does not grant.
func (t *TokenInfo) missingScopes(need []string) []string {
	var miss []string
	for _, s := range need {
		if !t.HasScope(s) {
			miss = append(miss, s)
		}
	}
	return miss
}

type tokenInfoKey struct{}

// WithTokenInfo returns a context carrying info; the middleware does this
// for every request it lets through. Tests of MCP handlers use it to fake
// an authenticated caller.
func WithTokenInfo(ctx context.Context, info *TokenInfo) context.Context {
	return context.WithValue(ctx, tokenInfoKey{}, info)
}

// TokenInfoFromContext returns the verified token of the request whose
// context is ctx, as the middleware stored it.
func TokenInfoFromContext(ctx context.Context) (*TokenInfo, bool) {
	info, ok := ctx.Value(tokenInfoKey{}).(*TokenInfo)
	return info, ok && info != nil
}

// SubjectFromContext returns the "sub" of the request's token, or "" when
// the request was not authenticated. See Principal for a key that stays
// unique across several authorization servers.
func SubjectFromContext(ctx context.Context) string {
	if info, ok := TokenInfoFromContext(ctx); ok {
		return info.Subject
	}
	return ""
}

// Principal names who a request comes from, for binding state to a user:
// the token's issuer and subject ("https://as.example.com#alice"), the
// subject alone when the issuer is unknown, "client:" and the client id
// for a token without subject, and "" for an unauthenticated request.
//
// Its signature fits server.Options.Principal, so that multi round-trip
// request state and tasks are bound to the user:
//
//	srv := server.New(info, &server.Options{Principal: auth.Principal})
//
// and an HTTP transport binds legacy sessions to it: a session created by
// one principal must not be usable by another (answer 404, as for an
// unknown session).
func Principal(ctx context.Context) string {
	info, ok := TokenInfoFromContext(ctx)
	if !ok {
		return ""
	}
	switch {
	case info.Subject != "" && info.Issuer != "":
		return info.Issuer + "#" + info.Subject
	case info.Subject != "":
		return info.Subject
	case info.ClientID != "":
		return "client:" + info.ClientID
	}
	return ""
}
