// Package auth is OAuth 2.1 authorization for MCP over HTTP, for both
// sides: a resource-server middleware with Protected Resource Metadata for
// MCP servers, and an http.RoundTripper that discovers, registers,
// authorizes and retries for MCP clients. It follows the authorization
// chapter of MCP 2025-11-25 and the changes of 2026-07-28 (RFC 9207 iss
// checks, application_type in registration, credentials bound to their
// authorization server, scope union on re-authorization), and keeps the
// 2025-03-26 fallbacks.
//
// The package is plain net/http: it does not depend on any MCP transport,
// and the MCP core does not depend on it, so stdio servers never link it.
// stdio servers should not use OAuth at all: they take credentials from
// their environment.
//
// # Server side: protecting an MCP endpoint
//
// An MCP server is an OAuth protected resource. It names its resource
// identifier (its canonical URL), the authorization servers it trusts,
// and how tokens are checked:
//
//	verifier, err := auth.NewJWTVerifier(&auth.JWTOptions{
//		Issuer:   "https://login.example.com",
//		Audience: "https://mcp.example.com/mcp",
//		JWKSURL:  "https://login.example.com/.well-known/jwks.json",
//	})
//	rs, err := auth.NewResourceServer(&auth.ResourceOptions{
//		Resource:             "https://mcp.example.com/mcp",
//		AuthorizationServers: []string{"https://login.example.com"},
//		Verifier:             verifier,
//		Scopes:               []string{"mcp:basic"},
//		ToolScopes:           map[string][]string{"delete_file": {"files:write"}},
//	})
//	mux := http.NewServeMux()
//	rs.Mount(mux, mcpHandler, true) // /mcp, protected, and its metadata
//
// Mount serves the Protected Resource Metadata (RFC 9728) at the
// path-inserted well-known URL (/.well-known/oauth-protected-resource/mcp)
// and, when asked, at the root form, and puts the middleware in front of
// the MCP handler. Use ResourceServer.Middleware (or RequireBearer) and
// ResourceServer.MetadataHandler to mount them yourself.
//
// For each request the middleware answers:
//
//   - 401 with WWW-Authenticate: Bearer resource_metadata="…",
//     scope="mcp:basic" when there is no token, with error="invalid_token"
//     when the token is refused (bad signature, expired, another issuer,
//     another audience: tokens must be issued for this very resource);
//   - 403 with error="insufficient_scope" and the scope of everything the
//     request needs, granted or not, when a scope is missing;
//   - 400 for several Authorization headers or a token in the URL;
//   - 503 when the token cannot be checked (key set or introspection
//     endpoint down), so that clients do not re-authorize for an outage.
//
// Per-tool scopes need the JSON-RPC body: when ToolScopes or
// RequiredScopes are set, the middleware reads the body of POSTs (bounded
// by MaxBodyBytes), decides, and hands the same bytes to the MCP handler.
// It reads member names case-sensitively and refuses duplicate members,
// as the strict MCP decoder does, so it sees the tool the handler calls.
// A call whose params name no tool (none, not an object, a name that is
// not a string) needs Scopes only, and goes on to the handler, which
// answers it in JSON-RPC (-32602): the middleware refuses only the
// bodies it cannot read (not JSON, a method that is not a string, a
// member twice).
//
// With a DPoPVerifier (ResourceOptions.DPoP), the middleware also
// accepts DPoP-bound tokens; see "DPoP" below.
//
// Tokens are checked by a TokenVerifier: JWTVerifier for JWT access
// tokens (keys from the authorization server's JWKS, cached, refetched on
// an unknown key id at most every 30 seconds; issuer compared exactly;
// audience compared as canonical URIs; exp, nbf and iat with a one-minute
// skew; asymmetric algorithms only unless an HMAC key is configured;
// never "none"), IntrospectionVerifier for opaque tokens (RFC 7662, with
// the resource server's client credentials, answers cached no longer than
// the token lives), or your own.
//
// # Who is calling
//
// The middleware puts the verified token's description in the request's
// context: TokenInfoFromContext gives the subject, scopes, client id,
// expiry and every claim. It deliberately omits the token itself and, by
// default, removes the Authorization header before the MCP handler runs:
// an MCP server must never pass its client's token on to another service
// (it gets its own tokens for upstream APIs).
//
// Principal fits server.Options.Principal, binding multi round-trip
// request state and tasks to the user:
//
//	srv := server.New(info, &server.Options{Principal: auth.Principal})
//
// Sessions (2025 era) must be bound to the principal too, since a session
// id is not a credential. The HTTP handlers of packages transport/streamable
// and transport/sse do it with their SessionOwner option: they record the
// principal of the request that creates a session, and answer 404, as for
// an unknown session, to a request of another principal:
//
//	h := streamable.NewHandler(srv, &streamable.HandlerOptions{
//		SessionOwner: func(r *http.Request) string { return auth.Principal(r.Context()) },
//	})
//
// Every request still carries and is checked for its own token.
//
// # Client side: a RoundTripper
//
//	tr, err := auth.NewTransport(nil, &auth.ClientOptions{
//		Authorizer: loopback, // see below
//		Store:      auth.NewFileTokenStore(path),
//	})
//	httpClient := &http.Client{Transport: tr}
//	// give httpClient to the Streamable HTTP client transport
//
// Or put the Transport over the Streamable HTTP transport's own client,
// with streamable.ClientOptions.WrapTransport (NewTransport with the
// RoundTripper it is given as base): the calls then still go through
// that transport's HTTP/1.1 client, at a fraction of net/http's cost.
//
// A request costs the Transport little when it has nothing to do: without
// a token it goes on as it came (its body neither read nor copied), with
// one as a shallow copy with its own header. The operation that the
// step-up limit counts (below) is named from the Mcp-Method and Mcp-Name
// headers, or from the JSON-RPC body fetched again through GetBody, only
// after a 403 asks for a step-up. A body without GetBody is read into
// memory first (up to ClientOptions.MaxBufferedBody), to be sent again
// after a 401 or a 403.
//
// The Transport sends the token it holds for the MCP server a request
// goes to (and only to that server). On 401 it runs discovery:
//
//  1. Protected Resource Metadata from the challenge's resource_metadata,
//     else the path-inserted well-known URL, else the root one; its
//     resource must be the server's URL or a same-origin prefix of it,
//     else nothing more happens (ErrResourceMismatch);
//  2. metadata of the first authorization server, RFC 8414 and OpenID
//     Connect URLs in MCP's order (three for an issuer with a path, two
//     without); a document naming another issuer is refused
//     (ErrIssuerMismatch) and no further URL is tried;
//  3. without Protected Resource Metadata, the 2025-03-26 rules: metadata
//     at the server's origin, else /authorize, /token and /register there.
//
// Then it registers, in MCP's order of priority: pre-registered
// credentials (ClientOptions.Clients, per issuer), a Client ID Metadata
// Document (ClientOptions.ClientMetadataURL, when the server advertises
// support), a registration made before with this authorization server
// (kept in the TokenStore under its issuer, so a server that moves to
// another authorization server gets a fresh registration there), or
// dynamic client registration (RFC 7591, with application_type and the
// refresh_token grant).
//
// The authorization code grant uses PKCE S256 (refused when the server
// does not advertise it), a fresh single-use state, the resource
// parameter (RFC 8707, exactly as the metadata publishes it) in both the
// authorization and the token request, and checks the iss of the
// response (RFC 9207): present, it must equal the issuer exactly; absent,
// the server must not have advertised it. Scopes are those of the
// challenge, else the resource's scopes_supported, else none, joined with
// those asked before; offline_access only when the authorization server
// lists it (and ClientOptions.OfflineAccess asks for it).
//
// At the token endpoint the client authenticates as its registration says,
// else with the best method the server supports: client_secret_basic,
// client_secret_post, none, or private_key_jwt (RFC 7523, with
// ClientCredentials.PrivateKey). Tokens are refreshed shortly before they
// expire and after the server refuses them; a refused refresh falls back
// to a new authorization.
//
// On 403 insufficient_scope the Transport re-authorizes for the union of
// the scopes it asked before and the challenged ones, then retries; it
// stops when the token already had the challenged scopes, after
// MaxAuthAttempts authorizations in one request, and after
// MaxAuthAttempts step-ups of one operation (method and tool) on one
// server without success.
//
// Other grants: GrantClientCredentials (secret or private_key_jwt), and
// GrantJWTBearer with an AssertionFunc: a workload identity token, or the
// ID-JAG of cross-app access, obtained by IDJAGExchange through RFC 8693
// token exchange at the enterprise identity provider.
//
// # The user's step
//
// An Authorizer takes the user to the authorization URL and brings back
// the redirect. NewLoopbackAuthorizer is the interactive one for
// command-line tools: it listens on 127.0.0.1 on a free port, opens the
// URL with OpenBrowser (xdg-open, open or the Windows URL handler, run
// directly, never through a shell, and only for http and https URLs) or
// prints it, and waits for the browser to come back, showing "you can
// close this window". HeadlessAuthorizer follows the first redirect
// without a user: for tests and for authorization servers that grant
// without interaction, such as the conformance suite's.
//
// A login command needs no MCP request: Transport.Login discovers and
// authorizes for a server URL and stores the token; Transport.Logout
// forgets it; Transport.Token shows it.
//
// # DPoP: tokens bound to a key
//
// A bearer token works for whoever holds it: a token leaked from a log or
// a proxy is as good as the client's. DPoP (RFC 9449, MCP SEP-1932)
// binds tokens to a key pair of the client instead. With every request
// the client sends a proof, a small JWT signed by its key, naming the
// request (method and URL), the time, a random jti and the hash of the
// token; the token names the key (cnf.jkt, its JWK thumbprint). A stolen
// token is useless without the key, and a stolen proof is good for one
// request, once.
//
// The client turns it on with one option:
//
//	tr, err := auth.NewTransport(nil, &auth.ClientOptions{
//		Authorizer: loopback,
//		DPoP:       &auth.DPoPOptions{}, // or {Key: signer} for a key of your own
//	})
//
// The Transport then sends a proof with its token requests (every grant,
// and refreshes) to authorization servers that list
// dpop_signing_alg_values_supported, in an algorithm they list
// (DPoPOptions.Always sends them to the others too). A server that
// supports DPoP answers token_type DPoP, and that token goes to the MCP
// server as "Authorization: DPoP <token>" with a fresh proof carrying
// its hash (ath) on every request. A server that ignores DPoP answers
// Bearer, and the token is used as a bearer token, as RFC 9449 allows;
// DPoPOptions.Require (or the resource's
// dpop_bound_access_tokens_required) refuses that with
// ErrDPoPUnsupported. The default key is a P-256 key made for the
// Transport and kept in memory: tokens bound to it live and die with
// the Transport.
//
// Servers may want nonces of theirs in the proofs, which bounds their
// life by the server's clock: the authorization server answers 400
// error="use_dpop_nonce" with a DPoP-Nonce header, the MCP server 401
// with a DPoP challenge of that error. The Transport sends the request
// again, once, with a proof carrying the nonce, and keeps the latest
// nonce of each server (authorization and resource servers apart) from
// every DPoP-Nonce header it sees. It reads DPoP challenges alongside
// Bearer ones, so a server that only offers DPoP is answered too.
//
// On the server side, a DPoPVerifier checks proofs: exactly one DPoP
// header, type dpop+jwt, an asymmetric algorithm, a signature by the
// public key in the proof's jwk header, htm and htu of the request
// (query and fragment ignored, URLs compared after normalization), iat
// at most five minutes old and not in the future beyond the clock skew,
// ath of the token presented, a nonce of its own when RequireNonce is
// set (stateless nonces: a time and a MAC, shared by instances through
// NonceKey), and a jti not seen before (remembered as long as the proof
// could be accepted, in a cache bounded by MaxReplayEntries, which fails
// closed with 503 when full). Given to the middleware, it accepts
// DPoP-bound tokens:
//
//	dpop, err := auth.NewDPoPVerifier(&auth.DPoPVerifierOptions{RequireNonce: true})
//	rs, err := auth.NewResourceServer(&auth.ResourceOptions{
//		// … Resource, AuthorizationServers, Verifier as above …
//		DPoP:        dpop,
//		RequireDPoP: true, // no bearer tokens at all
//	})
//
// The middleware verifies the token (JWTVerifier and
// IntrospectionVerifier read cnf.jkt into TokenInfo.DPoPKeyThumbprint),
// then requires the proof's key to be the token's. A DPoP-bound token
// presented as a bearer token is refused, with or without a
// DPoPVerifier. Challenges name the scheme the request used; a request
// without credentials gets a Bearer challenge (unless RequireDPoP) and a
// DPoP one with the accepted algs, and the metadata publishes
// dpop_signing_alg_values_supported and
// dpop_bound_access_tokens_required. The htu of proofs is compared with
// the scheme and host of Resource and the request's path;
// ResourceOptions.RequestURL overrides that behind a proxy that rewrites
// paths. An authorization server's token endpoint can use a DPoPVerifier
// as well (Verify with no access token), and DPoPThumbprint gives the
// cnf.jkt of a key.
//
// # Defences and limits
//
// Every URL of discovery and every authorization server endpoint must be
// https, except loopback http when ClientOptions.AllowLoopbackHTTP is set.
// BlockPrivateNetworks refuses connections to private, loopback,
// link-local and other non-public addresses, checked on each dial after
// name resolution (so DNS rebinding cannot get around it). Each exchange
// with an authorization endpoint is bounded in time (DefaultRequestTimeout)
// and size (DefaultMaxResponseBytes); POSTs never follow redirects, GETs
// follow at most three, each re-checked. WWW-Authenticate parsing is
// bounded. Error messages never contain tokens or secrets, and neither do
// the logs.
//
// Not supported: mutual-TLS bound tokens (RFC 8705), and the dpop_jkt
// parameter of authorization requests (RFC 9449 §10, binding the
// authorization code itself to the key).
package auth
