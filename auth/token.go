package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
	"github.com/go-jose/go-jose/v4/jwt"
)

// tokenResponse is a successful token endpoint response (RFC 6749 §5.1,
// RFC 8693 §2.2.1).
type tokenResponse struct {
	AccessToken     string    `json:"access_token"`
	TokenType       string    `json:"token_type"`
	ExpiresIn       expiresIn `json:"expires_in"`
	RefreshToken    string    `json:"refresh_token"`
	Scope           string    `json:"scope"`
	IssuedTokenType string    `json:"issued_token_type"`

	dpopJKT      string // the thumbprint of the DPoP key of the request's proof
	dpopRequired bool   // a bearer token must be refused
}

// expiresIn accepts a number or a numeric string, as servers send both.
type expiresIn int64

// UnmarshalJSON reads a number or a numeric string; non-positive or
// absurd values mean unknown.
func (e *expiresIn) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("expires_in %s: %w", b, err)
	}
	if f > 0 && f < 1<<40 {
		*e = expiresIn(f)
	}
	return nil
}

// postToken sends a request to the token endpoint of d's authorization
// server, authenticated as c (nil: no client authentication), and
// decodes the response. With DPoP it sends a proof and, when the server
// answers use_dpop_nonce with a nonce (RFC 9449 §8), sends the request
// once more with a new proof carrying it.
func (t *Transport) postToken(ctx context.Context, d *discovery, c *ClientCredentials, form url.Values) (*tokenResponse, error) {
	alg, err := t.dpop.tokenAlg(d)
	if err != nil {
		return nil, err
	}
	for retried := false; ; retried = true {
		f := maps.Clone(form)
		hdr := http.Header{}
		if c != nil {
			// Again for each attempt: a client assertion is single use.
			if err := t.authenticate(c, d.as, f, hdr); err != nil {
				return nil, err
			}
		}
		if alg != "" {
			proof, err := t.tokenProof(d, alg, t.now())
			if err != nil {
				return nil, err
			}
			hdr.Set(headerDPoP, proof)
		}
		resp, err := t.doer.postForm(ctx, d.as.TokenEndpoint, f, hdr)
		if err != nil {
			return nil, fmt.Errorf("auth: token request: %w", err)
		}
		if alg == "" {
			return decodeTokenResponse("token", resp)
		}
		noted := t.dpop.noteASNonce(d.issuer, resp.header)
		if !retried && noted && resp.status == http.StatusBadRequest && oauthError("token", resp).Code == "use_dpop_nonce" {
			t.log.Debug("auth: token request again with the DPoP nonce", "issuer", d.issuer)
			continue
		}
		tr, err := decodeTokenResponse("token", resp)
		if err != nil {
			return nil, err
		}
		tr.dpopJKT, tr.dpopRequired = t.dpop.key.jkt, t.dpop.required(d)
		return tr, nil
	}
}

func decodeTokenResponse(endpoint string, resp *response) (*tokenResponse, error) {
	if resp.status != http.StatusOK {
		return nil, oauthError(endpoint, resp)
	}
	var tr tokenResponse
	if err := resp.decodeJSON(&tr); err != nil {
		return nil, fmt.Errorf("auth: %s response: %w", endpoint, err)
	}
	if tr.AccessToken == "" {
		return nil, fmt.Errorf("auth: %s response has no access_token", endpoint)
	}
	return &tr, nil
}

// newToken makes a Token of a token response for d, requested with
// scopes.
func (t *Transport) newToken(tr *tokenResponse, d *discovery, requested []string) (*Token, error) {
	var jkt string
	switch {
	case strings.EqualFold(tr.TokenType, schemeBearer):
		if tr.dpopRequired {
			return nil, fmt.Errorf("%w: %s issued a Bearer token", ErrDPoPUnsupported, d.issuer)
		}
	case strings.EqualFold(tr.TokenType, schemeDPoP) && tr.dpopJKT != "":
		jkt = tr.dpopJKT // bound to the key of the proof (RFC 9449 §5)
	default:
		return nil, fmt.Errorf("auth: unsupported token_type %q", truncate(tr.TokenType, 40))
	}
	tok := &Token{
		DPoPKeyThumbprint: jkt,
		AccessToken:       tr.AccessToken,
		TokenType:         tr.TokenType,
		RefreshToken:      tr.RefreshToken,
		Scopes:            strings.Fields(tr.Scope),
		Requested:         requested,
		Issuer:            d.issuer,
		Resource:          d.resource,
	}
	if tok.Scopes == nil {
		tok.Scopes = requested
	}
	if tr.ExpiresIn > 0 {
		tok.Expiry = t.now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	return tok, nil
}

// newPKCE returns a code verifier (32 random bytes, base64url: 43
// characters, RFC 7636 §4.1) and its S256 challenge.
func newPKCE() (verifier, challenge string) {
	verifier = randomToken(32)
	return verifier, pkceS256(verifier)
}

// pkceS256 is the S256 code challenge of verifier: base64url, without
// padding, of its SHA-256.
func pkceS256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// randomToken returns n random bytes in base64url without padding.
func randomToken(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// signingAlgorithm returns c's assertion algorithm, explicit or by key
// type.
func signingAlgorithm(c *ClientCredentials) (jose.SignatureAlgorithm, error) {
	if c.SigningAlgorithm != "" {
		return jose.SignatureAlgorithm(c.SigningAlgorithm), nil
	}
	switch pub := c.PrivateKey.Public().(type) {
	case *ecdsa.PublicKey:
		switch pub.Curve {
		case elliptic.P256():
			return jose.ES256, nil
		case elliptic.P384():
			return jose.ES384, nil
		case elliptic.P521():
			return jose.ES512, nil
		}
	case *rsa.PublicKey:
		return jose.RS256, nil
	case ed25519.PublicKey:
		return jose.EdDSA, nil
	}
	return "", errors.New("auth: unsupported private key type for a client assertion")
}

// ClientAssertion returns a private_key_jwt client assertion (RFC 7523
// §2.2) for c at the authorization server audience (its issuer
// identifier): iss and sub are the client id, aud the audience, with a
// random jti, iat now and exp five minutes later.
func ClientAssertion(c *ClientCredentials, audience string, now time.Time) (string, error) {
	if c.PrivateKey == nil {
		return "", errors.New("auth: no private key for the client assertion")
	}
	alg, err := signingAlgorithm(c)
	if err != nil {
		return "", err
	}
	var key any = c.PrivateKey
	switch c.PrivateKey.(type) {
	case *ecdsa.PrivateKey, *rsa.PrivateKey, ed25519.PrivateKey:
	default:
		key = cryptosigner.Opaque(c.PrivateKey)
	}
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if c.KeyID != "" {
		opts = opts.WithHeader(jose.HeaderKey("kid"), c.KeyID)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		return "", fmt.Errorf("auth: client assertion: %w", err)
	}
	claims := jwt.Claims{
		Issuer:   c.ClientID,
		Subject:  c.ClientID,
		Audience: jwt.Audience{audience},
		ID:       randomToken(16),
		IssuedAt: jwt.NewNumericDate(now),
		Expiry:   jwt.NewNumericDate(now.Add(5 * time.Minute)),
	}
	s, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		return "", fmt.Errorf("auth: client assertion: %w", err)
	}
	return s, nil
}

// Token types of RFC 8693 and the Identity Assertion Authorization Grant.
const (
	tokenTypeIDToken = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG   = "urn:ietf:params:oauth:token-type:id-jag"
)

// IDJAGExchange obtains an Identity Assertion JWT Authorization Grant
// (ID-JAG) from the enterprise identity provider by token exchange (RFC
// 8693), for cross-app access (SEP-990, "Enterprise-Managed
// Authorization"). Use its Assertion method as ClientOptions.Assertion,
// with GrantJWTBearer: the Transport then presents the ID-JAG to the MCP
// server's authorization server in a JWT bearer grant, authenticated
// with the client's credentials there (ClientOptions.Clients).
type IDJAGExchange struct {
	// TokenEndpoint is the identity provider's token endpoint.
	TokenEndpoint string
	// ClientID identifies this client at the identity provider.
	ClientID string
	// ClientSecret, if set, authenticates it (client_secret_basic);
	// otherwise client_id is sent in the body.
	ClientSecret string
	// IDToken returns the user's ID token from the identity provider
	// (obtained at sign-in), the subject of the exchange.
	IDToken func(ctx context.Context) (string, error)
}

// Assertion exchanges the user's ID token for an ID-JAG whose audience
// is req.Issuer and whose resource is req.Resource.
func (x *IDJAGExchange) Assertion(ctx context.Context, req *AssertionRequest) (string, error) {
	if x.IDToken == nil {
		return "", errors.New("auth: IDJAGExchange.IDToken is required")
	}
	if _, err := checkSecureURL(x.TokenEndpoint, req.allowLoopbackHTTP); err != nil {
		return "", fmt.Errorf("auth: identity provider token endpoint: %w", err)
	}
	idToken, err := x.IDToken(ctx)
	if err != nil {
		return "", fmt.Errorf("auth: ID token: %w", err)
	}
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
		"audience":             {req.Issuer},
		"resource":             {req.Resource},
	}
	if len(req.Scopes) > 0 {
		form.Set("scope", strings.Join(req.Scopes, " "))
	}
	hdr := http.Header{}
	if x.ClientSecret != "" {
		hdr.Set("Authorization", basicAuth(x.ClientID, x.ClientSecret))
	} else {
		form.Set("client_id", x.ClientID)
	}
	doer := req.doer
	if doer == nil {
		doer = newDoer(nil, 0, 0)
	}
	resp, err := doer.postForm(ctx, x.TokenEndpoint, form, hdr)
	if err != nil {
		return "", fmt.Errorf("auth: token exchange: %w", err)
	}
	tr, err := decodeTokenResponse("token exchange", resp)
	if err != nil {
		return "", err
	}
	if tr.IssuedTokenType != "" && tr.IssuedTokenType != tokenTypeIDJAG {
		return "", fmt.Errorf("auth: token exchange issued %q, not an ID-JAG", truncate(tr.IssuedTokenType, 80))
	}
	return tr.AccessToken, nil
}
