package auth

import (
	"context"
	"crypto"
	"errors"
	"log/slog"
	"net/http"
	"time"
)

// Token endpoint client authentication methods (RFC 7591 §2, RFC 7523).
const (
	AuthMethodNone              = "none"
	AuthMethodClientSecretBasic = "client_secret_basic"
	AuthMethodClientSecretPost  = "client_secret_post"
	AuthMethodPrivateKeyJWT     = "private_key_jwt"
)

// A GrantType selects how a Transport obtains access tokens.
type GrantType string

// Grants a Transport can run.
const (
	// GrantAuthorizationCode is the authorization code grant with PKCE,
	// with a user in the loop through an Authorizer. The default.
	GrantAuthorizationCode GrantType = "authorization_code"
	// GrantClientCredentials is the client credentials grant, for
	// machine-to-machine clients with pre-registered credentials.
	GrantClientCredentials GrantType = "client_credentials"
	// GrantJWTBearer is the JWT bearer grant (RFC 7523) with an
	// assertion from ClientOptions.Assertion: workload identity, or the
	// ID-JAG of cross-app access (see IDJAGExchange).
	GrantJWTBearer GrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

const (
	grantRefreshToken  = "refresh_token"
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
)

// Errors of the client side. Errors returned by Transport.RoundTrip
// wrap one of these, an *OAuthError, or a network error.
var (
	// ErrResourceMismatch: the Protected Resource Metadata names a
	// resource that does not cover the server's URL; no authorization
	// is attempted.
	ErrResourceMismatch = errors.New("auth: protected resource metadata names another resource")
	// ErrIssuerMismatch: authorization server metadata whose issuer is
	// not the issuer it was fetched for, or an authorization response
	// whose iss is wrong, unexpected, or missing where promised (RFC
	// 8414 §3.3, RFC 9207).
	ErrIssuerMismatch = errors.New("auth: issuer mismatch")
	// ErrNoMetadata: no Protected Resource Metadata or authorization
	// server metadata could be found.
	ErrNoMetadata = errors.New("auth: authorization metadata not found")
	// ErrPKCEUnsupported: the authorization server does not advertise
	// S256 in code_challenge_methods_supported.
	ErrPKCEUnsupported = errors.New("auth: authorization server does not support PKCE S256")
	// ErrNoRegistration: no pre-registered credentials, Client ID
	// Metadata Document or dynamic registration is available for the
	// authorization server.
	ErrNoRegistration = errors.New("auth: no way to register with the authorization server")
	// ErrStateMismatch: the authorization response's state is not the
	// one sent (or was already used).
	ErrStateMismatch = errors.New("auth: authorization response state mismatch")
	// ErrNoAuthorizer: the authorization code grant needs an Authorizer.
	ErrNoAuthorizer = errors.New("auth: no Authorizer to obtain the user's consent")
	// ErrUnsafeAuthorizationURL: an authorization URL that is not http(s)
	// was refused before reaching a browser.
	ErrUnsafeAuthorizationURL = errors.New("auth: unsafe authorization URL")
)

// ClientCredentials are a client's registration at one authorization
// server: pre-registered (ClientOptions.Clients), or obtained by dynamic
// registration and kept in the TokenStore.
type ClientCredentials struct {
	// Issuer is the authorization server these credentials belong to.
	// For pre-registered credentials "" matches any server, which
	// defeats the protection against reusing credentials at another
	// server: set it whenever it is known.
	Issuer string `json:"issuer,omitempty"`
	// ClientID is the client identifier.
	ClientID string `json:"client_id"`
	// ClientSecret is the client secret, for confidential clients.
	ClientSecret string `json:"client_secret,omitempty"`
	// SecretExpiry is when the secret expires (zero: never); an expired
	// registration is replaced.
	SecretExpiry time.Time `json:"client_secret_expires_at,omitzero"`
	// AuthMethod is the token endpoint authentication method to use.
	// Default: the one the registration returned, else the best the
	// server supports for what the credentials hold (private_key_jwt
	// with PrivateKey, client_secret_basic or client_secret_post with a
	// secret, none otherwise).
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
	// RedirectURIs are the registered redirect URIs.
	RedirectURIs []string `json:"redirect_uris,omitempty"`
	// PrivateKey signs private_key_jwt client assertions (RFC 7523):
	// an *ecdsa.PrivateKey, *rsa.PrivateKey, ed25519.PrivateKey or any
	// crypto.Signer of those key types.
	PrivateKey crypto.Signer `json:"-"`
	// KeyID is put in the assertion's "kid" header, if set.
	KeyID string `json:"-"`
	// SigningAlgorithm is the assertion's "alg": default ES256, ES384 or
	// ES512 by curve for EC keys, RS256 for RSA, EdDSA for Ed25519.
	SigningAlgorithm string `json:"-"`
}

// An AssertionRequest tells an AssertionFunc what the assertion is for.
type AssertionRequest struct {
	// Issuer is the authorization server's issuer, the assertion's
	// audience.
	Issuer string
	// TokenEndpoint is where the assertion will be presented.
	TokenEndpoint string
	// Resource is the MCP server's resource identifier.
	Resource string
	// Scopes are the scopes about to be requested.
	Scopes []string

	doer              *httpDoer
	allowLoopbackHTTP bool
}

// An AssertionFunc returns the JWT to present in a JWT bearer grant.
type AssertionFunc func(ctx context.Context, req *AssertionRequest) (string, error)

// ClientOptions configure a Transport. A nil *ClientOptions, and zero
// fields, mean the defaults; the authorization code grant then still
// needs an Authorizer.
type ClientOptions struct {
	// Grant selects the grant; default GrantAuthorizationCode.
	Grant GrantType
	// Authorizer runs the user's step of the authorization code grant:
	// NewLoopbackAuthorizer for a command-line tool, HeadlessAuthorizer
	// for tests and automated clients.
	Authorizer Authorizer
	// Assertion provides the assertion of GrantJWTBearer.
	Assertion AssertionFunc
	// Clients are pre-registered credentials, tried before anything else
	// (MCP registration priority: pre-registered, Client ID Metadata
	// Document, dynamic registration).
	Clients []ClientCredentials
	// ClientMetadataURL is the https URL of this client's Client ID
	// Metadata Document; it becomes the client_id at servers that
	// advertise client_id_metadata_document_supported.
	ClientMetadataURL string
	// ClientName is the client_name of dynamic registration. Default
	// "mcpwire".
	ClientName string
	// ClientURI is the client_uri of dynamic registration, if set.
	ClientURI string
	// ApplicationType is the application_type of dynamic registration:
	// "native" or "web". Default: "native" for loopback redirect URIs
	// and clients without one, "web" for https ones.
	ApplicationType string
	// OfflineAccess requests the offline_access scope (for a refresh
	// token) when, and only when, the authorization server lists it in
	// scopes_supported.
	OfflineAccess bool
	// Store keeps tokens and registrations. Default: a MemoryTokenStore.
	Store TokenStore
	// HTTPClient, if set, is used for every request to metadata and
	// authorization server endpoints instead of the built-in client (in
	// which case BlockPrivateNetworks is up to it). Give it a Timeout and
	// make it follow no redirects for POST.
	HTTPClient *http.Client
	// AllowLoopbackHTTP allows plain http for metadata and authorization
	// server URLs on loopback hosts (localhost, 127.0.0.0/8, ::1), for
	// development and tests. Everything else must be https.
	AllowLoopbackHTTP bool
	// BlockPrivateNetworks refuses connections, for discovery and
	// authorization, to addresses that are not public (private,
	// loopback, link-local, …), checked on each dial after DNS
	// resolution. Use it when server URLs come from untrusted sources.
	BlockPrivateNetworks bool
	// MaxAuthAttempts bounds the authorizations one request may trigger,
	// and the step-up authorizations of one operation on one resource
	// before it is given up (MCP: clients SHOULD cap retries). Default 3.
	MaxAuthAttempts int
	// RefreshBefore refreshes a token this long before it expires.
	// Default one minute.
	RefreshBefore time.Duration
	// RequestTimeout bounds each exchange with a metadata or
	// authorization server endpoint. Default DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxResponseBytes bounds each such response. Default
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// MaxBufferedBody bounds the request body kept to resend a request
	// after authorization. Larger bodies without GetBody are sent once,
	// and a 401 for them is returned as it is. Default 16 MiB.
	MaxBufferedBody int64
	// DPoP, if set, binds tokens to a key of the client with DPoP (RFC
	// 9449): proofs go with token requests to authorization servers
	// that advertise DPoP, and DPoP-bound tokens are presented with the
	// DPoP scheme and a fresh proof on every request. &DPoPOptions{}
	// uses a fresh P-256 key. See the package documentation.
	DPoP *DPoPOptions
	// Logger receives the steps of discovery and authorization (never
	// tokens or secrets). Default: discarded.
	Logger *slog.Logger
}

func (o *ClientOptions) grant() GrantType {
	if o.Grant == "" {
		return GrantAuthorizationCode
	}
	return o.Grant
}
