package auth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

// ProtectedResourceMetadata is the RFC 9728 document describing an MCP
// server as an OAuth protected resource. MCP requires Resource and at
// least one of AuthorizationServers.
type ProtectedResourceMetadata struct {
	// Resource is the resource identifier (required).
	Resource string `json:"resource"`
	// AuthorizationServers lists the issuer identifiers of the
	// authorization servers whose tokens the resource accepts.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// JWKSURI locates the resource's own signing keys, if any.
	JWKSURI string `json:"jwks_uri,omitempty"`
	// ScopesSupported lists scopes clients may request for the resource.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported lists how tokens may be sent; MCP uses
	// "header" only.
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceSigningAlgValuesSupported lists the algorithms of signed
	// responses.
	ResourceSigningAlgValuesSupported []string `json:"resource_signing_alg_values_supported,omitempty"`
	// ResourceName is a human-readable name.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation, ResourcePolicyURI and ResourceTOSURI locate
	// developer documentation, the data usage policy and the terms of
	// service.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
	ResourcePolicyURI     string `json:"resource_policy_uri,omitempty"`
	ResourceTOSURI        string `json:"resource_tos_uri,omitempty"`
	// TLSClientCertificateBoundAccessTokens requires RFC 8705
	// certificate-bound tokens.
	TLSClientCertificateBoundAccessTokens bool `json:"tls_client_certificate_bound_access_tokens,omitempty"`
	// AuthorizationDetailsTypesSupported lists RFC 9396 authorization
	// details types.
	AuthorizationDetailsTypesSupported []string `json:"authorization_details_types_supported,omitempty"`
	// DPoPSigningAlgValuesSupported lists RFC 9449 DPoP proof algorithms;
	// DPoPBoundAccessTokensRequired requires DPoP-bound tokens.
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
	DPoPBoundAccessTokensRequired bool     `json:"dpop_bound_access_tokens_required,omitempty"`
}

// MetadataHandler serves md as JSON to GET and HEAD (405 otherwise). It
// allows any origin (CORS), since the document is public and browser
// clients must read it, and lets caches keep it for an hour.
func MetadataHandler(md ProtectedResourceMetadata) http.Handler {
	body, err := json.Marshal(md)
	if err != nil {
		panic(err) // only strings, slices and bools: cannot happen
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "MCP-Protocol-Version")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=3600")
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	})
}

// AuthServerMetadata is authorization server metadata (RFC 8414), as
// also served by OpenID Connect Discovery; the members MCP uses.
type AuthServerMetadata struct {
	// Issuer is the issuer identifier; it must equal the one the
	// metadata was looked up for.
	Issuer string `json:"issuer"`
	// AuthorizationEndpoint is where the user authorizes;
	// TokenEndpoint where codes, refresh tokens and assertions become
	// tokens; RegistrationEndpoint where clients register (RFC 7591).
	AuthorizationEndpoint string `json:"authorization_endpoint,omitempty"`
	TokenEndpoint         string `json:"token_endpoint,omitempty"`
	RegistrationEndpoint  string `json:"registration_endpoint,omitempty"`
	// JWKSURI locates the server's signing keys.
	JWKSURI string `json:"jwks_uri,omitempty"`
	// ScopesSupported lists the scopes it issues; offline_access is
	// requested only when listed.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// ResponseTypesSupported and GrantTypesSupported list the response
	// and grant types.
	ResponseTypesSupported []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported    []string `json:"grant_types_supported,omitempty"`
	// TokenEndpointAuthMethodsSupported lists client authentication
	// methods (absent: client_secret_basic);
	// TokenEndpointAuthSigningAlgValuesSupported the algorithms of
	// private_key_jwt assertions.
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	// IntrospectionEndpoint (RFC 7662) and RevocationEndpoint (RFC 7009),
	// with their client authentication methods.
	IntrospectionEndpoint                     string   `json:"introspection_endpoint,omitempty"`
	RevocationEndpoint                        string   `json:"revocation_endpoint,omitempty"`
	IntrospectionEndpointAuthMethodsSupported []string `json:"introspection_endpoint_auth_methods_supported,omitempty"`
	RevocationEndpointAuthMethodsSupported    []string `json:"revocation_endpoint_auth_methods_supported,omitempty"`
	// CodeChallengeMethodsSupported lists PKCE methods; MCP clients
	// refuse a server without "S256".
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported,omitempty"`
	// AuthorizationResponseIssParameterSupported promises iss in
	// authorization responses (RFC 9207).
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// ClientIDMetadataDocumentSupported accepts Client ID Metadata
	// Document URLs as client ids.
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
	// DPoPSigningAlgValuesSupported lists RFC 9449 DPoP proof algorithms.
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported,omitempty"`
}

// supports reports whether list contains v.
func supports(list []string, v string) bool { return slices.Contains(list, v) }

func parseAbs(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("auth: %q: %w", raw, err)
	}
	if u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("auth: %q is not an absolute URL", raw)
	}
	return u, nil
}
