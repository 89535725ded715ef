package auth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/mcpwire/mcpwire/auth"
)

// An MCP endpoint protected by bearer tokens, with a tool that needs an
// extra scope.
func ExampleNewResourceServer() {
	// A real server uses auth.NewJWTVerifier or auth.NewIntrospectionVerifier.
	verifier := auth.TokenVerifierFunc(func(ctx context.Context, token string) (*auth.TokenInfo, error) {
		if token != "valid" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Issuer: "https://login.example.com", Subject: "alice", Scopes: []string{"mcp:basic"}}, nil
	})
	rs, err := auth.NewResourceServer(&auth.ResourceOptions{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://login.example.com"},
		Verifier:             verifier,
		Scopes:               []string{"mcp:basic"},
		ToolScopes:           map[string][]string{"delete_file": {"files:write"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	mcpHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", auth.Principal(r.Context()))
	})
	mux := http.NewServeMux()
	if err := rs.Mount(mux, mcpHandler, true); err != nil {
		log.Fatal(err)
	}

	send := func(token, body string) {
		req := httptest.NewRequest(http.MethodPost, "https://mcp.example.com/mcp", strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK {
			fmt.Println(rec.Code, rec.Body)
			return
		}
		fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
	send("", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	send("valid", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	send("valid", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_file"}}`)
	// Output:
	// 401 Bearer scope="mcp:basic", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// 200 hello https://login.example.com#alice
	// 403 Bearer error="insufficient_scope", error_description="The access token lacks a scope this request needs.", scope="mcp:basic files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
}

// A command-line client: tokens kept in a file, the user sent to the
// browser when the server asks for authorization.
func ExampleNewTransport() {
	loopback, err := auth.NewLoopbackAuthorizer(&auth.LoopbackOptions{Output: os.Stderr})
	if err != nil {
		log.Fatal(err)
	}
	defer loopback.Close()
	tr, err := auth.NewTransport(nil, &auth.ClientOptions{
		Authorizer:    loopback,
		Store:         auth.NewFileTokenStore("/home/me/.config/mcpwire/tokens.json"),
		ClientName:    "mcpwire",
		OfflineAccess: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	httpClient := &http.Client{Transport: tr}
	_ = httpClient // hand it to the Streamable HTTP client transport
}

// A service calling an MCP server with its own credentials.
func ExampleNewTransport_clientCredentials() {
	tr, err := auth.NewTransport(nil, &auth.ClientOptions{
		Grant: auth.GrantClientCredentials,
		Clients: []auth.ClientCredentials{{
			Issuer:       "https://login.example.com",
			ClientID:     "reporting-service",
			ClientSecret: os.Getenv("CLIENT_SECRET"),
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = &http.Client{Transport: tr}
}

// Logging in ahead of any MCP request, as "mcpwire login --url" does.
func ExampleTransport_Login() {
	loopback, err := auth.NewLoopbackAuthorizer(&auth.LoopbackOptions{Output: os.Stderr})
	if err != nil {
		log.Fatal(err)
	}
	defer loopback.Close()
	tr, err := auth.NewTransport(nil, &auth.ClientOptions{Authorizer: loopback, Store: auth.NewFileTokenStore("tokens.json")})
	if err != nil {
		log.Fatal(err)
	}
	tok, err := tr.Login(context.Background(), "https://mcp.example.com/mcp")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("logged in until", tok.Expiry)
}

func ExampleParseChallenges() {
	for _, c := range auth.ParseChallenges([]string{
		`Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`,
	}) {
		fmt.Println(c.Scheme, c.Param("error"), c.Scopes(), c.Param("resource_metadata"))
	}
	// Output:
	// Bearer insufficient_scope [files:read files:write] https://mcp.example.com/.well-known/oauth-protected-resource/mcp
}

func ExampleProtectedResourceMetadataURL() {
	u, _ := auth.ProtectedResourceMetadataURL("https://mcp.example.com/tenant/mcp")
	fmt.Println(u)
	// Output:
	// https://mcp.example.com/.well-known/oauth-protected-resource/tenant/mcp
}

// A client whose tokens are bound to a key (DPoP, RFC 9449): stolen, they
// are of no use. DPoP is used with the authorization servers that
// advertise it; the others give bearer tokens, as before.
func ExampleNewTransport_dpop() {
	tr, err := auth.NewTransport(nil, &auth.ClientOptions{
		Authorizer: &auth.HeadlessAuthorizer{},
		DPoP:       &auth.DPoPOptions{}, // a fresh P-256 key, in memory
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = &http.Client{Transport: tr}
}

// An MCP endpoint that accepts DPoP-bound tokens only, and wants its
// nonces in the proofs.
func ExampleNewDPoPVerifier() {
	dpop, err := auth.NewDPoPVerifier(&auth.DPoPVerifierOptions{
		Algorithms:   []string{"ES256", "EdDSA"},
		RequireNonce: true,
	})
	if err != nil {
		log.Fatal(err)
	}
	verifier, err := auth.NewJWTVerifier(&auth.JWTOptions{
		Issuer:   "https://login.example.com",
		Audience: "https://mcp.example.com/mcp",
		JWKSURL:  "https://login.example.com/.well-known/jwks.json",
	})
	if err != nil {
		log.Fatal(err)
	}
	rs, err := auth.NewResourceServer(&auth.ResourceOptions{
		Resource:             "https://mcp.example.com/mcp",
		AuthorizationServers: []string{"https://login.example.com"},
		Verifier:             verifier,
		DPoP:                 dpop,
		RequireDPoP:          true,
	})
	if err != nil {
		log.Fatal(err)
	}
	mcpHandler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	rec := httptest.NewRecorder()
	rs.Middleware(mcpHandler).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "https://mcp.example.com/mcp", nil))
	fmt.Println(rec.Code, rec.Header().Get("WWW-Authenticate"))
	fmt.Println("nonce provided:", rec.Header().Get("DPoP-Nonce") != "")
	// Output:
	// 401 DPoP algs="ES256 EdDSA", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	// nonce provided: true
}

// The token endpoint of an authorization server that issues DPoP-bound
// tokens: it checks the proof, then binds the token to the proof's key
// (the cnf.jkt claim of a JWT access token, or of the introspection
// response).
func ExampleDPoPVerifier_Verify() {
	dpop, err := auth.NewDPoPVerifier(nil)
	if err != nil {
		log.Fatal(err)
	}
	tokenEndpoint := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// … authenticate the client, check the grant …
		tokenType, cnf := "Bearer", map[string]string(nil)
		if r.Header.Get("DPoP") != "" {
			proof, err := dpop.Verify(r, "https://login.example.com/token", "")
			if err != nil {
				http.Error(w, `{"error":"invalid_dpop_proof"}`, http.StatusBadRequest)
				return
			}
			tokenType, cnf = "DPoP", map[string]string{"jkt": proof.KeyThumbprint}
		}
		_, _ = tokenType, cnf // … mint the token with "cnf": cnf, answer token_type …
	})
	_ = tokenEndpoint
}
