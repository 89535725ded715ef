package auth

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/mcp"
)

// discovery is what a Transport learned about the authorization of one
// MCP server.
type discovery struct {
	server   string                     // the MCP server URL, without query
	resource string                     // the resource to request tokens for
	prm      *ProtectedResourceMetadata // nil in 2025-03-26 mode
	issuer   string                     // the authorization server's issuer
	as       *AuthServerMetadata        // never nil once discovered
	fallback bool                       // 2025-03-26 default endpoints, no metadata
}

// discover runs discovery for the MCP server at server, after a
// challenge (zero when there was none): Protected Resource Metadata from
// the challenge's resource_metadata, else the path-inserted well-known
// URL, else the root one; then the metadata of its first authorization
// server. Without Protected Resource Metadata it falls back to the
// 2025-03-26 rules (metadata at the server's origin, else default
// endpoints). hdr carries the MCP-Protocol-Version of the request.
func (t *Transport) discover(ctx context.Context, server *url.URL, ch Challenge, hdr http.Header) (*discovery, error) {
	d := &discovery{server: stripQuery(server)}
	prm, err := t.fetchPRM(ctx, server, ch.Param("resource_metadata"), hdr)
	if err != nil {
		return nil, err
	}
	if prm == nil {
		return t.discoverLegacy(ctx, d, server, hdr)
	}
	if !resourceCovers(prm.Resource, d.server) {
		return nil, fmt.Errorf("%w: %q does not cover %q%s", ErrResourceMismatch, truncate(prm.Resource, 200), d.server, loopbackHint(prm.Resource, d.server))
	}
	d.prm, d.resource = prm, prm.Resource
	if len(prm.AuthorizationServers) == 0 {
		return nil, fmt.Errorf("%w: protected resource metadata lists no authorization server", ErrNoMetadata)
	}
	// RFC 9728 §7.6 leaves the choice to the client: take the first.
	d.issuer = prm.AuthorizationServers[0]
	as, err := t.fetchASMetadata(ctx, d.issuer, hdr)
	if err != nil {
		return nil, err
	}
	if as == nil {
		return nil, fmt.Errorf("%w: no metadata for authorization server %s", ErrNoMetadata, d.issuer)
	}
	d.as = as
	return d, t.checkEndpoints(as)
}

// discoverLegacy applies the 2025-03-26 rules: the authorization server
// is the MCP server's origin; its metadata is at the root RFC 8414 URL,
// else its endpoints are /authorize, /token and /register.
func (t *Transport) discoverLegacy(ctx context.Context, d *discovery, server *url.URL, hdr http.Header) (*discovery, error) {
	base := origin(server)
	if base == "" {
		return nil, fmt.Errorf("%w: %s", ErrNoMetadata, d.server)
	}
	canon, err := CanonicalResourceURI(d.server)
	if err != nil {
		return nil, err
	}
	d.resource, d.issuer = canon, base
	t.log.Debug("auth: no protected resource metadata; 2025-03-26 discovery", "server", d.server)
	// The 2025-03-26 revision defines the authorization server by the
	// origin, not by an issuer identifier: accept metadata whose issuer
	// is on that origin (as some servers of that era, and the 0.1.16
	// conformance mock, publish "<origin>/oauth"), never another origin.
	sameOrigin := func(iss string) bool {
		u, err := url.Parse(iss)
		return err == nil && origin(u) == base
	}
	as, err := t.fetchASMetadataAt(ctx, sameOrigin, []string{base + WellKnownAuthorizationServer}, hdr)
	if err != nil {
		return nil, err
	}
	if as != nil {
		d.issuer = as.Issuer
	} else {
		d.fallback = true
		as = &AuthServerMetadata{
			Issuer:                        base,
			AuthorizationEndpoint:         base + "/authorize",
			TokenEndpoint:                 base + "/token",
			RegistrationEndpoint:          base + "/register",
			CodeChallengeMethodsSupported: []string{"S256"},
		}
	}
	d.as = as
	return d, t.checkEndpoints(as)
}

// checkEndpoints refuses metadata whose endpoints are not https (or
// allowed loopback http).
func (t *Transport) checkEndpoints(as *AuthServerMetadata) error {
	for _, ep := range []string{as.AuthorizationEndpoint, as.TokenEndpoint, as.RegistrationEndpoint} {
		if ep == "" {
			continue
		}
		if _, err := checkSecureURL(ep, t.opts.AllowLoopbackHTTP); err != nil {
			return fmt.Errorf("auth: authorization server endpoint: %w", err)
		}
	}
	if as.TokenEndpoint == "" {
		return fmt.Errorf("%w: authorization server %s has no token endpoint", ErrNoMetadata, as.Issuer)
	}
	return nil
}

// discoveryHeader returns the headers sent with metadata requests: the
// MCP-Protocol-Version of the MCP request, if any.
func discoveryHeader(req http.Header) http.Header {
	h := http.Header{}
	if v := req.Get(mcp.HeaderProtocolVersion); v != "" {
		h.Set(mcp.HeaderProtocolVersion, v)
	}
	return h
}

// fetchPRM finds the Protected Resource Metadata of server; nil and no
// error when there is none.
func (t *Transport) fetchPRM(ctx context.Context, server *url.URL, fromHeader string, hdr http.Header) (*ProtectedResourceMetadata, error) {
	var candidates []string
	if fromHeader != "" {
		if _, err := checkSecureURL(fromHeader, t.opts.AllowLoopbackHTTP); err != nil {
			t.log.Warn("auth: ignoring resource_metadata", "err", err)
		} else {
			candidates = append(candidates, fromHeader)
		}
	}
	if p := strings.TrimSuffix(server.EscapedPath(), "/"); p != "" {
		candidates = append(candidates, wellKnown(server, WellKnownProtectedResource, true))
	}
	candidates = append(candidates, wellKnown(server, WellKnownProtectedResource, false))
	var urls []string
	for _, u := range candidates {
		if slices.Contains(urls, u) {
			continue
		}
		if _, err := checkSecureURL(u, t.opts.AllowLoopbackHTTP); err != nil {
			return nil, err
		}
		urls = append(urls, u)
	}
	prm, u, err := fetchMetadata[ProtectedResourceMetadata](ctx, t, urls, hdr, "protected resource metadata")
	if prm == nil || err != nil {
		return nil, err
	}
	if prm.Resource == "" {
		return nil, fmt.Errorf("%w: protected resource metadata %s has no resource", ErrResourceMismatch, u)
	}
	t.log.Debug("auth: protected resource metadata", "url", u, "resource", prm.Resource)
	return prm, nil
}

// fetchMetadata GETs urls in order and decodes the first document
// answered with 200 into a new T, which it returns with its URL. When no
// URL gives one, it returns the last failure (wrapping ErrNoMetadata), or
// nothing at all if every URL answered with another status. what names
// the document in logs and errors.
func fetchMetadata[T any](ctx context.Context, t *Transport, urls []string, hdr http.Header, what string) (*T, string, error) {
	var lastErr error
	for _, u := range urls {
		resp, err := t.doer.get(ctx, u, hdr)
		if err != nil {
			if ctx.Err() != nil {
				return nil, "", ctx.Err()
			}
			lastErr = err
			continue
		}
		if resp.status != http.StatusOK {
			t.log.Debug("auth: no "+what, "url", u, "status", resp.status)
			continue
		}
		doc := new(T)
		if err := resp.decodeJSON(doc); err != nil {
			lastErr = fmt.Errorf("%s %s: %w", what, u, err)
			continue
		}
		return doc, u, nil
	}
	if lastErr != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrNoMetadata, lastErr)
	}
	return nil, "", nil
}

// asMetadataURLs returns where to look for the metadata of issuer, in
// the order MCP prescribes: for an issuer with a path, RFC 8414 with
// path insertion, OpenID Connect with path insertion, then OpenID
// Connect with the suffix appended; without a path, RFC 8414 then OpenID
// Connect.
func asMetadataURLs(issuer *url.URL) []string {
	base := url.URL{Scheme: issuer.Scheme, Host: issuer.Host}
	p := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if p == "" {
		return []string{
			base.String() + WellKnownAuthorizationServer,
			base.String() + WellKnownOpenIDConfiguration,
		}
	}
	return []string{
		base.String() + WellKnownAuthorizationServer + p,
		base.String() + WellKnownOpenIDConfiguration + p,
		base.String() + p + WellKnownOpenIDConfiguration,
	}
}

// fetchASMetadata discovers the metadata of issuer; nil and no error
// when none of the URLs has it.
func (t *Transport) fetchASMetadata(ctx context.Context, issuer string, hdr http.Header) (*AuthServerMetadata, error) {
	u, err := checkSecureURL(issuer, t.opts.AllowLoopbackHTTP)
	if err != nil {
		return nil, fmt.Errorf("auth: authorization server: %w", err)
	}
	if u.RawQuery != "" {
		return nil, fmt.Errorf("auth: issuer %q must not have a query", issuer)
	}
	return t.fetchASMetadataAt(ctx, func(iss string) bool { return iss == issuer }, asMetadataURLs(u), hdr)
}

// fetchASMetadataAt tries urls in order. The first document found must
// name an issuer that expected accepts (the exact issuer the URLs were
// built from, outside 2025-03-26 mode), else discovery fails: a mix-up
// defence, metadata for another issuer is never used, nor are further
// URLs tried.
func (t *Transport) fetchASMetadataAt(ctx context.Context, expected func(string) bool, urls []string, hdr http.Header) (*AuthServerMetadata, error) {
	as, u, err := fetchMetadata[AuthServerMetadata](ctx, t, urls, hdr, "authorization server metadata")
	if as == nil || err != nil {
		return nil, err
	}
	if !expected(as.Issuer) {
		return nil, fmt.Errorf("%w: metadata at %s names issuer %q", ErrIssuerMismatch, u, truncate(as.Issuer, 200))
	}
	t.log.Debug("auth: authorization server metadata", "url", u)
	return as, nil
}

// selectScopes chooses the scopes of an authorization request (MCP scope
// selection strategy): the challenge's scope, else the resource's
// scopes_supported, else none; joined with the scopes requested before
// for the same resource (SEP-2350: re-authorization asks for the union).
// offline_access is kept only when the authorization server lists it,
// and added when offline is true and it does.
func selectScopes(ch Challenge, d *discovery, previous []string, offline bool) []string {
	scopes := ch.Scopes()
	if len(scopes) == 0 && d.prm != nil {
		scopes = d.prm.ScopesSupported
	}
	scopes = unionScopes(previous, scopes)
	asOffline := d.as != nil && supports(d.as.ScopesSupported, "offline_access")
	out := scopes[:0:0]
	for _, s := range scopes {
		if s != "offline_access" || asOffline {
			out = append(out, s)
		}
	}
	if offline && asOffline {
		out = unionScopes(out, []string{"offline_access"})
	}
	return out
}

func stripQuery(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.ForceQuery = "", "", false
	return c.String()
}

// loopbackHint says what to do when the resource and the server's URL
// differ only in how they name this machine (localhost, 127.0.0.1, ::1):
// to OAuth they are two resources, and a person typed one for the other.
func loopbackHint(resource, server string) string {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(server)
	if err1 != nil || err2 != nil || r.Hostname() == s.Hostname() || r.Port() != s.Port() ||
		!isLoopbackName(r.Hostname()) || !isLoopbackName(s.Hostname()) {
		return ""
	}
	return fmt.Sprintf(" (%s and %s are two resources to OAuth: connect with the URL the server names, %s)", r.Hostname(), s.Hostname(), truncate(resource, 200))
}

// isLoopbackName: localhost, or a loopback address.
func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
