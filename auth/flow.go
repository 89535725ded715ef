package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// obtain runs the configured grant for d with scopes.
func (t *Transport) obtain(ctx context.Context, d *discovery, scopes []string) (*Token, error) {
	switch g := t.opts.grant(); g {
	case GrantAuthorizationCode:
		return t.authorizationCode(ctx, d, scopes)
	case GrantClientCredentials:
		return t.clientCredentials(ctx, d, scopes)
	case GrantJWTBearer:
		return t.jwtBearer(ctx, d, scopes)
	default:
		return nil, fmt.Errorf("auth: unsupported grant %q", g)
	}
}

// authorizationCode runs the authorization code grant with PKCE S256
// (OAuth 2.1 §4.1, RFC 7636), state, RFC 8707 resource indicators and
// RFC 9207 issuer checks.
func (t *Transport) authorizationCode(ctx context.Context, d *discovery, scopes []string) (*Token, error) {
	a := t.opts.Authorizer
	if a == nil {
		return nil, ErrNoAuthorizer
	}
	if !d.fallback && !supports(d.as.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("%w (issuer %s)", ErrPKCEUnsupported, d.issuer)
	}
	if d.as.AuthorizationEndpoint == "" {
		return nil, fmt.Errorf("%w: %s has no authorization endpoint", ErrNoMetadata, d.issuer)
	}
	endpoint, err := checkAuthorizationURL(d.as.AuthorizationEndpoint, t.opts.AllowLoopbackHTTP)
	if err != nil {
		return nil, err
	}
	redirectURI := a.RedirectURI()
	if err := checkRedirectURI(redirectURI); err != nil {
		return nil, err
	}
	client, err := t.clientFor(ctx, d, redirectURI, true)
	if err != nil {
		return nil, err
	}
	verifier, challenge := newPKCE()
	state := randomToken(32)
	q := endpoint.Query()
	q.Set("response_type", "code")
	q.Set("client_id", client.ClientID)
	q.Set("redirect_uri", redirectURI)
	q.Set("code_challenge", challenge)
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	q.Set("resource", d.resource)
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	endpoint.RawQuery = q.Encode()
	t.log.Debug("auth: authorization request", "issuer", d.issuer, "client_id", client.ClientID, "scope", strings.Join(scopes, " "))
	cb, err := a.Authorize(ctx, endpoint.String())
	if err != nil {
		return nil, fmt.Errorf("auth: authorization: %w", err)
	}
	code, err := checkAuthorizationResponse(cb, redirectURI, state, d.as)
	if err != nil {
		return nil, err
	}
	form := url.Values{
		"grant_type":    {string(GrantAuthorizationCode)},
		"code":          {code},
		"redirect_uri":  {redirectURI},
		"code_verifier": {verifier},
		"resource":      {d.resource},
	}
	tr, err := t.postToken(ctx, d, client, form)
	if err != nil {
		return nil, err
	}
	return t.newToken(tr, d, scopes)
}

// checkAuthorizationURL parses an authorization endpoint and refuses
// anything but https (or allowed loopback http): never javascript:,
// data:, file: or the like, which a malicious server could otherwise
// have a browser open.
func checkAuthorizationURL(raw string, allowLoopbackHTTP bool) (*url.URL, error) {
	u, err := checkSecureURL(raw, allowLoopbackHTTP)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsafeAuthorizationURL, err)
	}
	return u, nil
}

// checkAuthorizationResponse validates the URL the authorization server
// sent the user back to, and returns its code. In order: the redirect
// target, state (exact, constant time; single use since each
// authorization makes a new one), iss (RFC 9207: when present it must be
// the issuer exactly, with no normalization; when absent, the server
// must not have promised it), then an error response, then the code.
func checkAuthorizationResponse(cb *url.URL, redirectURI, state string, as *AuthServerMetadata) (string, error) {
	if cb == nil {
		return "", errors.New("auth: no authorization response")
	}
	want, err := url.Parse(redirectURI)
	if err != nil {
		return "", err
	}
	if !sameRedirectTarget(cb, want) {
		return "", fmt.Errorf("auth: authorization response went to %s, not the redirect URI", redact(cb))
	}
	q := cb.Query()
	if len(q["state"]) != 1 || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
		return "", ErrStateMismatch
	}
	if iss, ok := q["iss"]; ok {
		if len(iss) != 1 || iss[0] != as.Issuer {
			return "", fmt.Errorf("%w: authorization response iss %q, expected %q", ErrIssuerMismatch, truncate(strings.Join(iss, ","), 200), as.Issuer)
		}
	} else if as.AuthorizationResponseIssParameterSupported {
		return "", fmt.Errorf("%w: authorization response lacks the iss its server promised", ErrIssuerMismatch)
	}
	if code := q.Get("error"); code != "" {
		return "", &OAuthError{Endpoint: "authorization", Code: code, Description: q.Get("error_description"), URI: q.Get("error_uri")}
	}
	code := q.Get("code")
	if code == "" || len(q["code"]) != 1 {
		return "", errors.New("auth: authorization response has no code")
	}
	return code, nil
}

// clientCredentials runs the client credentials grant.
func (t *Transport) clientCredentials(ctx context.Context, d *discovery, scopes []string) (*Token, error) {
	client, err := t.clientFor(ctx, d, "", true)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {string(GrantClientCredentials)}, "resource": {d.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	tr, err := t.postToken(ctx, d, client, form)
	if err != nil {
		return nil, err
	}
	return t.newToken(tr, d, scopes)
}

// jwtBearer runs the JWT bearer grant with the configured assertion,
// authenticated as the client when credentials are available.
func (t *Transport) jwtBearer(ctx context.Context, d *discovery, scopes []string) (*Token, error) {
	if t.opts.Assertion == nil {
		return nil, errors.New("auth: GrantJWTBearer needs ClientOptions.Assertion")
	}
	assertion, err := t.opts.Assertion(ctx, &AssertionRequest{
		Issuer:            d.issuer,
		TokenEndpoint:     d.as.TokenEndpoint,
		Resource:          d.resource,
		Scopes:            scopes,
		doer:              t.doer,
		allowLoopbackHTTP: t.opts.AllowLoopbackHTTP,
	})
	if err != nil {
		return nil, fmt.Errorf("auth: assertion: %w", err)
	}
	client, err := t.clientFor(ctx, d, "", false)
	if err != nil && !errors.Is(err, ErrNoRegistration) {
		return nil, err
	}
	form := url.Values{"grant_type": {string(GrantJWTBearer)}, "assertion": {assertion}, "resource": {d.resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	tr, err := t.postToken(ctx, d, client, form)
	if err != nil {
		return nil, err
	}
	return t.newToken(tr, d, scopes)
}

// refresh renews tok with its refresh token (keeping the refresh token
// when the server does not rotate it). It needs the registration the
// token was obtained with.
func (t *Transport) refresh(ctx context.Context, d *discovery, tok *Token) (*Token, error) {
	if tok.RefreshToken == "" {
		return nil, errors.New("auth: no refresh token")
	}
	client, err := t.clientFor(ctx, d, "", false)
	if err != nil {
		return nil, err
	}
	form := url.Values{
		"grant_type":    {grantRefreshToken},
		"refresh_token": {tok.RefreshToken},
		"resource":      {d.resource},
	}
	tr, err := t.postToken(ctx, d, client, form)
	if err != nil {
		return nil, err
	}
	nt, err := t.newToken(tr, d, tok.Requested)
	if err != nil {
		return nil, err
	}
	if nt.RefreshToken == "" {
		nt.RefreshToken = tok.RefreshToken
	}
	if tr.Scope == "" {
		nt.Scopes = tok.Scopes
	}
	return nt, nil
}
