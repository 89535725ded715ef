package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
)

// DefaultMaxBodyBytes bounds the request body the middleware reads to
// find out which tool a request calls.
const DefaultMaxBodyBytes = 4 << 20

// ResourceOptions configure a ResourceServer: the MCP server seen as an
// OAuth 2.1 protected resource.
type ResourceOptions struct {
	// Resource is this MCP server's resource identifier, its canonical
	// URI ("https://mcp.example.com/mcp"). It is published in the
	// Protected Resource Metadata, and tokens must name it as their
	// audience. Required.
	Resource string
	// AuthorizationServers lists the issuer identifiers of the
	// authorization servers whose tokens this server accepts. At least
	// one is required (MCP).
	AuthorizationServers []string
	// Verifier checks access tokens. Required.
	Verifier TokenVerifier
	// DPoP, if set, accepts DPoP-bound tokens (RFC 9449): presented as
	// "Authorization: DPoP <token>" with a DPoP proof that it verifies,
	// signed by the key the token is bound to (its cnf.jkt). Its
	// algorithms are published in the metadata and in DPoP challenges;
	// with DPoPVerifierOptions.RequireNonce the middleware asks clients
	// for its nonces. Without it, DPoP-bound tokens are refused.
	DPoP *DPoPVerifier
	// RequireDPoP refuses bearer tokens: every token must be DPoP-bound
	// and come with its proof. It is published as
	// dpop_bound_access_tokens_required. Needs DPoP.
	RequireDPoP bool
	// RequestURL returns the URI a client addressed r to, which DPoP
	// proofs name (htu). Default: the scheme and host of Resource with
	// the path of r. Set it when a proxy in front changes the path.
	RequestURL func(r *http.Request) string
	// Scopes are required of every request; they are also the scope of
	// the 401 challenge. Keep them few: clients ask for more when a
	// request needs more (step-up).
	Scopes []string
	// ToolScopes maps a tool name to the scopes a tools/call of that tool
	// needs, in addition to Scopes.
	ToolScopes map[string][]string
	// RequiredScopes, if set, returns further scopes a request needs: the
	// middleware reads the JSON-RPC message (or batch) of a POST and asks
	// once per call. Return nil for none.
	RequiredScopes func(r *http.Request, call Call) []string
	// ScopesSupported is published as scopes_supported in the metadata.
	// Default: Scopes. Clients that get no scope in a challenge request
	// all of scopes_supported, so list only what every client should get
	// up front and let the 403 challenges of tools ask for more (scope
	// minimization).
	ScopesSupported []string
	// ResourceName and ResourceDocumentation are published in the
	// metadata (human-readable name, documentation URL).
	ResourceName, ResourceDocumentation string
	// MetadataURL is where the Protected Resource Metadata is served,
	// named in every challenge. Default: the path-inserted well-known URL
	// of Resource.
	MetadataURL string
	// MaxBodyBytes bounds the body read to find the called tool (413
	// beyond it). Default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// KeepAuthorizationHeader passes the Authorization header on to the
	// wrapped handler. By default it is removed, so that nothing
	// downstream can forward the client's token.
	KeepAuthorizationHeader bool
	// Logger receives the reasons tokens are refused (never the tokens).
	// Default: discarded.
	Logger *slog.Logger
}

// A Call is one JSON-RPC request as the middleware sees it, for choosing
// the scopes it needs.
type Call struct {
	// Method is the JSON-RPC method ("tools/call").
	Method string
	// Name is params.name for tools/call and prompts/get, params.uri for
	// resources/read; "" otherwise, and when it is not a string (such a
	// call names nothing: the MCP handler refuses it).
	Name string
}

// A ResourceServer protects MCP HTTP handlers with bearer tokens and
// serves their Protected Resource Metadata (RFC 9728).
type ResourceServer struct {
	opts     ResourceOptions
	metaURL  string
	metadata ProtectedResourceMetadata
	log      *slog.Logger
	byBody   bool   // the middleware must read POST bodies
	origin   string // of Resource, for DPoP's htu
}

// NewResourceServer checks opts and returns a ResourceServer.
func NewResourceServer(opts *ResourceOptions) (*ResourceServer, error) {
	if opts == nil {
		return nil, errors.New("auth: ResourceOptions are required")
	}
	rs := &ResourceServer{opts: *opts}
	o := &rs.opts
	if _, err := CanonicalResourceURI(o.Resource); err != nil {
		return nil, err
	}
	if len(o.AuthorizationServers) == 0 {
		return nil, errors.New("auth: at least one authorization server is required")
	}
	for _, as := range o.AuthorizationServers {
		if _, err := checkSecureURL(as, true); err != nil {
			return nil, fmt.Errorf("auth: authorization server: %w", err)
		}
	}
	if o.Verifier == nil {
		return nil, errors.New("auth: a TokenVerifier is required")
	}
	if o.RequireDPoP && o.DPoP == nil {
		return nil, errors.New("auth: RequireDPoP needs a DPoPVerifier (ResourceOptions.DPoP)")
	}
	if ru, err := parseAbs(o.Resource); err == nil {
		rs.origin = origin(ru)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	rs.log = o.Logger
	if rs.log == nil {
		rs.log = slog.New(slog.DiscardHandler)
	}
	rs.metaURL = o.MetadataURL
	if rs.metaURL == "" {
		u, err := ProtectedResourceMetadataURL(o.Resource)
		if err != nil {
			return nil, err
		}
		rs.metaURL = u
	}
	supported := o.ScopesSupported
	if supported == nil {
		supported = slices.Clone(o.Scopes)
	}
	rs.metadata = ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   slices.Clone(o.AuthorizationServers),
		ScopesSupported:        supported,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           o.ResourceName,
		ResourceDocumentation:  o.ResourceDocumentation,
	}
	if o.DPoP != nil {
		rs.metadata.DPoPSigningAlgValuesSupported = o.DPoP.Algorithms()
		rs.metadata.DPoPBoundAccessTokensRequired = o.RequireDPoP
	}
	rs.byBody = len(o.ToolScopes) > 0 || o.RequiredScopes != nil
	return rs, nil
}

// RequireBearer wraps next so that every request must carry a valid
// bearer token for the resource of opts; see ResourceServer.Middleware.
// It panics if opts are invalid (as http.Handle panics on a bad pattern);
// use NewResourceServer to get the error instead.
func RequireBearer(next http.Handler, opts *ResourceOptions) http.Handler {
	rs, err := NewResourceServer(opts)
	if err != nil {
		panic(err)
	}
	return rs.Middleware(next)
}

// MetadataURL returns the URL of the Protected Resource Metadata that
// challenges name.
func (rs *ResourceServer) MetadataURL() string { return rs.metaURL }

// Metadata returns the Protected Resource Metadata document served.
func (rs *ResourceServer) Metadata() ProtectedResourceMetadata {
	md := rs.metadata
	md.AuthorizationServers = slices.Clone(md.AuthorizationServers)
	md.ScopesSupported = slices.Clone(md.ScopesSupported)
	md.BearerMethodsSupported = slices.Clone(md.BearerMethodsSupported)
	md.DPoPSigningAlgValuesSupported = slices.Clone(md.DPoPSigningAlgValuesSupported)
	return md
}

// MetadataHandler serves the Protected Resource Metadata; mount it at
// the path of MetadataURL (and, for a host with a single MCP server, at
// the root form /.well-known/oauth-protected-resource as well). Mount
// does both.
func (rs *ResourceServer) MetadataHandler() http.Handler { return MetadataHandler(rs.metadata) }

// Mount registers on mux: the MCP handler, protected, at the path of
// Resource; the metadata at the path of MetadataURL; and, when that is
// not already the root form and withRoot is true, at
// /.well-known/oauth-protected-resource too.
func (rs *ResourceServer) Mount(mux *http.ServeMux, mcpHandler http.Handler, withRoot bool) error {
	ru, err := parseAbs(rs.opts.Resource)
	if err != nil {
		return err
	}
	mu, err := parseAbs(rs.metaURL)
	if err != nil {
		return err
	}
	p := ru.Path
	if p == "" {
		p = "/"
	}
	mux.Handle(p, rs.Middleware(mcpHandler))
	mux.Handle(mu.Path, rs.MetadataHandler())
	if withRoot && mu.Path != WellKnownProtectedResource {
		mux.Handle(WellKnownProtectedResource, rs.MetadataHandler())
	}
	return nil
}

// Middleware returns next wrapped by the token check. For each request
// it:
//
//   - answers 400 invalid_request to a request with several
//     Authorization headers or an access_token query parameter (MCP
//     forbids tokens in URLs);
//   - answers 401 with WWW-Authenticate: Bearer resource_metadata="…",
//     scope="…" when no token is present (and a DPoP challenge with the
//     accepted algs when DPoP is on; only that one with RequireDPoP),
//     adding error="invalid_token" when the token is refused;
//   - with DPoP, answers 401 with a DPoP challenge carrying
//     error="invalid_dpop_proof" when the proof is missing, invalid,
//     replayed or signed by a key the token is not bound to, and
//     error="use_dpop_nonce" with a DPoP-Nonce header when a nonce is
//     required; a DPoP-bound token presented as a bearer token is
//     refused (invalid_token);
//   - answers 403 with error="insufficient_scope" and the scope of
//     everything the request needs (granted or not) when a scope is
//     missing, for Scopes or for the tools a POST calls;
//   - otherwise calls next with the TokenInfo in the request's context
//     (TokenInfoFromContext) and, by default, without the Authorization
//     and DPoP headers.
//
// Challenges use the scheme the request used. The body of a POST is read
// only when tool scopes are configured; next then reads the same bytes.
func (rs *ResourceServer) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.serve(w, r, next)
	})
}

func (rs *ResourceServer) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	authz := r.Header.Values("Authorization")
	if len(authz) > 1 {
		rs.fail(w, http.StatusBadRequest, "invalid_request", "Send exactly one Authorization header.", nil)
		return
	}
	if r.URL.Query().Has("access_token") {
		rs.fail(w, http.StatusBadRequest, "invalid_request", "Access tokens are accepted only in the Authorization header.", nil)
		return
	}
	scheme, token, present := rs.credentials(authz)
	if !present {
		rs.fail(w, http.StatusUnauthorized, "", "", rs.opts.Scopes)
		return
	}
	if token == "" {
		rs.fail(w, http.StatusBadRequest, "invalid_request", "The Authorization header is malformed.", nil)
		return
	}
	if scheme == schemeBearer && rs.opts.RequireDPoP {
		rs.failScheme(w, http.StatusUnauthorized, schemeDPoP, "invalid_token", "This resource accepts DPoP-bound tokens only.", rs.opts.Scopes)
		return
	}
	var proof *DPoPProof
	if scheme == schemeDPoP {
		p, err := rs.opts.DPoP.check(r, rs.requestURL(r), token)
		if err != nil {
			rs.refuseProof(w, r, err)
			return
		}
		proof = p
	}
	info, err := rs.opts.Verifier.VerifyToken(r.Context(), token)
	if err != nil {
		if errors.Is(err, ErrInvalidToken) {
			rs.log.InfoContext(r.Context(), "auth: token refused", "err", err)
			rs.failScheme(w, http.StatusUnauthorized, scheme, "invalid_token", "The access token is invalid or expired.", rs.opts.Scopes)
			return
		}
		rs.log.ErrorContext(r.Context(), "auth: token verification failed", "err", err)
		w.Header().Set("Retry-After", "5")
		writeOAuthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "The token could not be verified; try again later.")
		return
	}
	if info == nil {
		info = &TokenInfo{}
	}
	if !rs.checkBinding(w, r, scheme, info, proof) {
		return
	}
	need := rs.opts.Scopes
	if rs.byBody && r.Method == http.MethodPost {
		calls, status := rs.readCalls(r)
		switch status {
		case http.StatusRequestEntityTooLarge:
			writeOAuthError(w, status, "invalid_request", "The request body is too large.")
			return
		case http.StatusBadRequest:
			writeOAuthError(w, status, "invalid_request", "The request body is not a JSON-RPC message.")
			return
		}
		for _, c := range calls {
			need = unionScopes(need, rs.opts.ToolScopes[toolName(c)])
			if rs.opts.RequiredScopes != nil {
				need = unionScopes(need, rs.opts.RequiredScopes(r, c))
			}
		}
	}
	if miss := info.missingScopes(need); len(miss) > 0 {
		rs.log.InfoContext(r.Context(), "auth: insufficient scope", "missing", miss, "subject", info.Subject)
		rs.failScheme(w, http.StatusForbidden, scheme, "insufficient_scope", "The access token lacks a scope this request needs.", need)
		return
	}
	r2 := r.WithContext(WithTokenInfo(r.Context(), info))
	if !rs.opts.KeepAuthorizationHeader {
		r2.Header = r.Header.Clone()
		r2.Header.Del("Authorization")
		r2.Header.Del(headerDPoP)
	}
	next.ServeHTTP(w, r2)
}

func toolName(c Call) string {
	if c.Method == mcp.MethodCallTool {
		return c.Name
	}
	return "\x00" // no tool has this name
}

// credentials splits a single Authorization header into its scheme
// (Bearer, or DPoP when accepted) and token; present is false when there
// is no such credential at all, token "" when it is malformed.
func (rs *ResourceServer) credentials(authz []string) (scheme, token string, present bool) {
	if len(authz) != 1 {
		return "", "", false
	}
	s, rest, _ := strings.Cut(strings.TrimSpace(authz[0]), " ")
	switch {
	case strings.EqualFold(s, schemeBearer):
		scheme = schemeBearer
	case strings.EqualFold(s, schemeDPoP) && rs.opts.DPoP != nil:
		scheme = schemeDPoP
	default:
		return "", "", false
	}
	rest = strings.TrimSpace(rest)
	for i := 0; i < len(rest); i++ {
		if !isToken68Char(rest[i]) && rest[i] != '=' {
			return scheme, "", true
		}
	}
	return scheme, rest, true
}

// fail writes an OAuth error response with the challenges of every
// accepted scheme.
func (rs *ResourceServer) fail(w http.ResponseWriter, status int, code, desc string, scopes []string) {
	rs.failScheme(w, status, "", code, desc, scopes)
}

// writeOAuthError writes {"error":…,"error_description":…}.
func writeOAuthError(w http.ResponseWriter, status int, code, desc string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if code == "" {
		code, desc = "unauthorized", "An access token is required."
	}
	body, _ := json.Marshal(struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description,omitempty"`
	}{code, desc})
	w.Write(body)
}

// readCalls reads the POST body (bounded), puts it back for the next
// handler, and returns the JSON-RPC messages in it. status is 413 when
// the body exceeds the bound and 400 when it cannot be read as JSON-RPC.
func (rs *ResourceServer) readCalls(r *http.Request) (calls []Call, status int) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, 0
	}
	if r.ContentLength > rs.opts.MaxBodyBytes {
		return nil, http.StatusRequestEntityTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, rs.opts.MaxBodyBytes+1))
	r.Body.Close()
	if err != nil {
		r.Body = io.NopCloser(bytes.NewReader(nil))
		return nil, http.StatusBadRequest
	}
	if int64(len(data)) > rs.opts.MaxBodyBytes {
		return nil, http.StatusRequestEntityTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	calls, ok := parseCalls(data)
	if !ok {
		return nil, http.StatusBadRequest
	}
	return calls, 0
}

// parseCalls decodes a JSON-RPC message or batch, for scope decisions
// only. It reads member names case-sensitively and refuses duplicate
// members, as the strict MCP decoder does, so that the tool it sees is
// the tool the MCP handler will call. ok is false for a body that is not
// JSON, whose method is not a string, or whose message or params have a
// member twice: the middleware then refuses the request rather than
// guess which tool the handler would read.
//
// A call whose params name nothing (no params, params that are not an
// object, a name that is not a string: {"name":42}) is passed on with
// the empty name: it calls no tool, and the MCP handler answers it, in
// JSON-RPC (-32602), as it answers any invalid params (issue 18: the
// middleware refused it with an OAuth error body instead). It needs the
// base scopes only. A handler that would call a tool whose name it read
// from a number or an array must not be put behind ToolScopes.
func parseCalls(data []byte) (calls []Call, ok bool) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, false
	}
	if data[0] != '[' {
		c, ok := parseCall(data)
		return []Call{c}, ok
	}
	var batch []json.RawMessage
	if json.Unmarshal(data, &batch) != nil {
		return nil, false
	}
	for _, m := range batch {
		c, ok := parseCall(m)
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	}
	return calls, true
}

func parseCall(data []byte) (Call, bool) {
	obj, ok := objectMembers(data)
	if !ok {
		return Call{}, false
	}
	var c Call
	if m, has := obj["method"]; has {
		if json.Unmarshal(m, &c.Method) != nil {
			return Call{}, false
		}
	}
	key := mcp.NameHeaderParam(c.Method)
	raw := bytes.TrimSpace(obj["params"])
	if key == "" || len(raw) == 0 || raw[0] != '{' {
		return c, true // names nothing (see parseCalls)
	}
	params, ok := objectMembers(raw)
	if !ok {
		return Call{}, false // a member twice: which one counts is the handler's guess
	}
	if v, has := params[key]; has && json.Unmarshal(v, &c.Name) != nil {
		c.Name = "" // not a string: names nothing (see parseCalls)
	}
	return c, true
}

// objectMembers decodes a JSON object into its members, refusing
// duplicate names.
func objectMembers(data []byte) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if _, dup := members[name]; dup {
			return nil, false
		}
		members[name] = v
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	return members, true
}

// unionScopes returns a followed by the scopes of b not in a.
func unionScopes(a, b []string) []string {
	out := slices.Clip(a)
	for _, s := range b {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
