package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
)

// The auth/* scenarios: the mock MCP server wants a bearer token from a
// mock authorization server. The client connects through an auth.Transport
// that runs the OAuth flow the scenario sets up, then lists the tools and
// calls test-tool, as the reference client does.

// authContext is what MCP_CONFORMANCE_CONTEXT holds for auth scenarios.
type authContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	Issuer           string `json:"issuer"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	ValidJWT         string `json:"valid_jwt"`
	IDPTokenEndpoint string `json:"idp_token_endpoint"`
	IDPClientID      string `json:"idp_client_id"`
	IDPIDToken       string `json:"idp_id_token"`
}

// conformanceClientMetadataURL is the Client ID Metadata Document URL the
// suite expects (it never fetches it).
const conformanceClientMetadataURL = "https://conformance-test.local/client-metadata.json"

// authHTTPClient returns the HTTP client of an auth scenario.
func (e *env) authHTTPClient() (*http.Client, error) {
	var ac authContext
	if len(e.context) > 0 {
		if err := json.Unmarshal(e.context, &ac); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	opts := &auth.ClientOptions{
		AllowLoopbackHTTP: true, // every mock is http://localhost
		Authorizer:        &auth.HeadlessAuthorizer{RedirectURL: "http://localhost:3000/callback"},
		ClientMetadataURL: conformanceClientMetadataURL,
		// DPoP in every scenario: with the default options the Transport
		// sends proofs only to authorization servers that list
		// dpop_signing_alg_values_supported (the auth/dpop* mocks) and
		// presents tokens with the DPoP scheme only when the server bound
		// them (token_type DPoP); everywhere else nothing changes.
		DPoP:   &auth.DPoPOptions{},
		Logger: e.log,
	}
	if ac.ClientID != "" {
		c := auth.ClientCredentials{Issuer: ac.Issuer, ClientID: ac.ClientID, ClientSecret: ac.ClientSecret}
		if ac.PrivateKeyPEM != "" {
			block, _ := pem.Decode([]byte(ac.PrivateKeyPEM))
			if block == nil {
				return nil, errors.New("private_key_pem is not PEM")
			}
			key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("private_key_pem: %w", err)
			}
			signer, ok := key.(crypto.Signer)
			if !ok {
				return nil, fmt.Errorf("private_key_pem: %T cannot sign", key)
			}
			c.PrivateKey, c.SigningAlgorithm = signer, ac.SigningAlgorithm
		}
		opts.Clients = []auth.ClientCredentials{c}
	}
	switch {
	case strings.HasPrefix(e.scenario, "auth/client-credentials"):
		opts.Grant = auth.GrantClientCredentials
	case strings.Contains(e.scenario, "wif-jwt-bearer"):
		opts.Grant = auth.GrantJWTBearer
		opts.Assertion = func(context.Context, *auth.AssertionRequest) (string, error) { return ac.ValidJWT, nil }
	case strings.Contains(e.scenario, "cross-app-access") || strings.Contains(e.scenario, "enterprise-managed-authorization"):
		x := &auth.IDJAGExchange{
			TokenEndpoint: ac.IDPTokenEndpoint,
			ClientID:      ac.IDPClientID,
			IDToken:       func(context.Context) (string, error) { return ac.IDPIDToken, nil },
		}
		opts.Grant = auth.GrantJWTBearer
		opts.Assertion = x.Assertion
	}
	tr, err := auth.NewTransport(nil, opts)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: tr}, nil
}

// authorized is the scenario of every auth/* test: connect through the
// OAuth transport, list the tools and call test-tool.
func authorized(ctx context.Context, e *env) error {
	hc, err := e.authHTTPClient()
	if err != nil {
		return err
	}
	e.httpClient = hc
	return e.withTools(ctx, func(s *client.Session, list []*mcp.Tool) error {
		for _, t := range list {
			if t.Name == "test-tool" {
				_, err := call(ctx, s, t.Name, map[string]any{})
				return err
			}
		}
		return nil
	})
}
