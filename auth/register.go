package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// clientFor returns the registration to use at the authorization server
// of d, in MCP's order of priority: pre-registered credentials, a Client
// ID Metadata Document, a registration made earlier (from the store),
// dynamic registration. redirectURI is "" for grants without one.
// register false only looks (for refreshing tokens).
func (t *Transport) clientFor(ctx context.Context, d *discovery, redirectURI string, register bool) (*ClientCredentials, error) {
	if c := t.preRegistered(d.issuer); c != nil {
		return c, nil
	}
	if t.opts.grant() == GrantAuthorizationCode && t.opts.ClientMetadataURL != "" && d.as.ClientIDMetadataDocumentSupported {
		return &ClientCredentials{Issuer: d.issuer, ClientID: t.opts.ClientMetadataURL, AuthMethod: AuthMethodNone}, nil
	}
	stored, err := t.store.Client(ctx, d.issuer)
	if err != nil {
		return nil, fmt.Errorf("auth: token store: %w", err)
	}
	if stored != nil && t.usable(stored, redirectURI) {
		return stored, nil
	}
	if !register {
		return nil, ErrNoRegistration
	}
	if d.as.RegistrationEndpoint == "" {
		return nil, fmt.Errorf("%w: %s has no registration endpoint; configure pre-registered credentials", ErrNoRegistration, d.issuer)
	}
	c, err := t.register(ctx, d, redirectURI)
	if err != nil {
		return nil, err
	}
	if err := t.store.SetClient(ctx, d.issuer, c); err != nil {
		return nil, fmt.Errorf("auth: token store: %w", err)
	}
	return c, nil
}

// preRegistered returns the configured credentials for issuer: those
// naming it exactly, else those naming no issuer.
func (t *Transport) preRegistered(issuer string) *ClientCredentials {
	var anyIssuer *ClientCredentials
	for i := range t.opts.Clients {
		c := &t.opts.Clients[i]
		switch c.Issuer {
		case issuer:
			cc := *c
			return &cc
		case "":
			if anyIssuer == nil {
				cc := *c
				cc.Issuer = issuer
				anyIssuer = &cc
			}
		}
	}
	return anyIssuer
}

// usable reports whether a stored registration can be used: its secret
// has not expired and, for the authorization code grant, it registered
// redirectURI (a loopback URI registered without the port, or with
// another one, matches: RFC 8252 §7.3).
func (t *Transport) usable(c *ClientCredentials, redirectURI string) bool {
	if !c.SecretExpiry.IsZero() && !t.now().Before(c.SecretExpiry) {
		return false
	}
	if redirectURI == "" {
		return true
	}
	want, err := url.Parse(redirectURI)
	if err != nil {
		return false
	}
	for _, r := range c.RedirectURIs {
		if r == redirectURI {
			return true
		}
		got, err := url.Parse(r)
		if err == nil && isLoopbackHost(want.Hostname()) && strings.EqualFold(got.Scheme, want.Scheme) &&
			strings.EqualFold(got.Hostname(), want.Hostname()) && got.EscapedPath() == want.EscapedPath() {
			return true // loopback: any port (RFC 8252 §7.3)
		}
	}
	return false
}

// registrationRequest is the client metadata of RFC 7591 §2 that MCP
// clients send.
type registrationRequest struct {
	RedirectURIs            []string `json:"redirect_uris,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`
}

type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret"`
	ClientSecretExpiresAt   int64    `json:"client_secret_expires_at"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	RedirectURIs            []string `json:"redirect_uris"`
}

// register performs dynamic client registration (RFC 7591).
func (t *Transport) register(ctx context.Context, d *discovery, redirectURI string) (*ClientCredentials, error) {
	req := registrationRequest{
		ClientName:      t.opts.ClientName,
		ClientURI:       t.opts.ClientURI,
		ApplicationType: t.opts.ApplicationType,
	}
	if req.ClientName == "" {
		req.ClientName = "mcpwire"
	}
	switch t.opts.grant() {
	case GrantAuthorizationCode:
		req.RedirectURIs = []string{redirectURI}
		req.GrantTypes = []string{string(GrantAuthorizationCode), grantRefreshToken}
		req.ResponseTypes = []string{"code"}
	default:
		req.GrantTypes = []string{string(t.opts.grant())}
	}
	if req.ApplicationType == "" {
		req.ApplicationType = "native"
		if strings.HasPrefix(strings.ToLower(redirectURI), "https:") {
			req.ApplicationType = "web"
		}
	}
	// Ask for what the server supports, preferring a public client for
	// the authorization code grant (PKCE protects it) and a secret
	// otherwise. With no list, let the server choose.
	supported := d.as.TokenEndpointAuthMethodsSupported
	prefs := []string{AuthMethodClientSecretBasic, AuthMethodClientSecretPost}
	if t.opts.grant() == GrantAuthorizationCode {
		prefs = []string{AuthMethodNone, AuthMethodClientSecretBasic, AuthMethodClientSecretPost}
	}
	for _, m := range prefs {
		if supports(supported, m) {
			req.TokenEndpointAuthMethod = m
			break
		}
	}
	t.log.Debug("auth: dynamic client registration", "endpoint", d.as.RegistrationEndpoint, "issuer", d.issuer)
	resp, err := t.doer.postJSON(ctx, d.as.RegistrationEndpoint, req, nil)
	if err != nil {
		return nil, fmt.Errorf("auth: registration: %w", err)
	}
	if resp.status != http.StatusCreated && resp.status != http.StatusOK {
		return nil, oauthError("registration", resp)
	}
	var rr registrationResponse
	if err := resp.decodeJSON(&rr); err != nil {
		return nil, fmt.Errorf("auth: registration: %w", err)
	}
	if rr.ClientID == "" {
		return nil, fmt.Errorf("auth: registration response has no client_id")
	}
	c := &ClientCredentials{
		Issuer:       d.issuer,
		ClientID:     rr.ClientID,
		ClientSecret: rr.ClientSecret,
		AuthMethod:   rr.TokenEndpointAuthMethod,
		RedirectURIs: rr.RedirectURIs,
	}
	if len(c.RedirectURIs) == 0 && redirectURI != "" {
		c.RedirectURIs = []string{redirectURI}
	}
	if rr.ClientSecretExpiresAt > 0 {
		c.SecretExpiry = time.Unix(rr.ClientSecretExpiresAt, 0)
	}
	return c, nil
}

// authMethod chooses how c authenticates at the token endpoint of as.
func authMethod(c *ClientCredentials, as *AuthServerMetadata) string {
	if c.AuthMethod != "" {
		return c.AuthMethod
	}
	supported := as.TokenEndpointAuthMethodsSupported
	if c.PrivateKey != nil && (len(supported) == 0 || supports(supported, AuthMethodPrivateKeyJWT)) {
		return AuthMethodPrivateKeyJWT
	}
	if c.ClientSecret == "" {
		return AuthMethodNone
	}
	switch {
	case len(supported) == 0 || supports(supported, AuthMethodClientSecretBasic):
		return AuthMethodClientSecretBasic // RFC 8414's default
	case supports(supported, AuthMethodClientSecretPost):
		return AuthMethodClientSecretPost
	case supports(supported, AuthMethodNone):
		return AuthMethodNone
	}
	return AuthMethodClientSecretBasic
}

// authenticate adds c's client authentication to a token endpoint
// request.
func (t *Transport) authenticate(c *ClientCredentials, as *AuthServerMetadata, form url.Values, hdr http.Header) error {
	switch m := authMethod(c, as); m {
	case AuthMethodNone:
		form.Set("client_id", c.ClientID)
	case AuthMethodClientSecretPost:
		form.Set("client_id", c.ClientID)
		form.Set("client_secret", c.ClientSecret)
	case AuthMethodClientSecretBasic:
		hdr.Set("Authorization", basicAuth(c.ClientID, c.ClientSecret))
	case AuthMethodPrivateKeyJWT:
		if c.PrivateKey == nil {
			return fmt.Errorf("auth: private_key_jwt needs ClientCredentials.PrivateKey")
		}
		assertion, err := ClientAssertion(c, as.Issuer, t.now())
		if err != nil {
			return err
		}
		form.Set("client_id", c.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default:
		return fmt.Errorf("auth: unsupported token endpoint auth method %q", m)
	}
	return nil
}
