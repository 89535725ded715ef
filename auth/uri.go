package auth

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// Well-known path suffixes (RFC 8615) used by MCP authorization.
const (
	// WellKnownProtectedResource is the RFC 9728 suffix of Protected
	// Resource Metadata.
	WellKnownProtectedResource = "/.well-known/oauth-protected-resource"
	// WellKnownAuthorizationServer is the RFC 8414 suffix of
	// authorization server metadata.
	WellKnownAuthorizationServer = "/.well-known/oauth-authorization-server"
	// WellKnownOpenIDConfiguration is the OpenID Connect Discovery 1.0
	// suffix.
	WellKnownOpenIDConfiguration = "/.well-known/openid-configuration"
)

// ErrInsecureURL reports a URL the authorization machinery refuses to
// use: not https (and not an allowed loopback http URL), or not an
// absolute URL at all.
var ErrInsecureURL = errors.New("auth: insecure or invalid URL")

// CanonicalResourceURI returns the canonical form of an MCP server or
// resource URI (RFC 8707 §2, MCP "Canonical Server URI"): scheme and host
// lower-cased, the default port removed, no fragment, and no trailing
// slash on the path. The query, if any, is kept as it is. It fails for a
// URI that is not absolute http(s).
//
// Canonical forms are for comparing identifiers (for example a token's
// audience against this resource). On the wire, send a resource exactly
// as the Protected Resource Metadata publishes it.
func CanonicalResourceURI(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("auth: resource %q: %w", raw, err)
	}
	if u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("auth: resource %q is not an absolute URI", raw)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return "", fmt.Errorf("auth: resource %q: scheme must be http or https", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("auth: resource %q must not carry user information", raw)
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	s := scheme + "://" + host + path
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s, nil
}

// resourceCovers reports whether the resource identifier published in
// Protected Resource Metadata covers the MCP server URL: same origin,
// and the resource path equal to the server path or a whole-segment
// prefix of it (https://h covers https://h/mcp; https://h/m does not
// cover https://h/mcp). This is the rule the official TypeScript SDK
// applies; the conformance scenario metadata-var2 publishes the bare
// origin for a server at /mcp.
func resourceCovers(resource, server string) bool {
	r, err1 := url.Parse(resource)
	s, err2 := url.Parse(server)
	if err1 != nil || err2 != nil || r.Fragment != "" {
		return false
	}
	if origin(r) == "" || origin(r) != origin(s) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(s.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}

// origin returns scheme://host[:port] lower-cased with the default port
// removed, or "" for a URL that is not absolute http(s).
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Host == "" {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// ProtectedResourceMetadataURL returns the path-inserted well-known URL of
// the Protected Resource Metadata of resource (RFC 9728 §3.1):
// https://h/mcp gives https://h/.well-known/oauth-protected-resource/mcp,
// and https://h gives https://h/.well-known/oauth-protected-resource.
func ProtectedResourceMetadataURL(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil || origin(u) == "" {
		return "", fmt.Errorf("auth: resource %q is not an absolute http(s) URI", resource)
	}
	return wellKnown(u, WellKnownProtectedResource, true), nil
}

// wellKnown builds the well-known URL for suffix on u's origin. With
// insert, u's path (without a trailing slash) is appended after the
// suffix (RFC 8414 §3.1, RFC 9728 §3.1); the query and fragment of u are
// dropped.
func wellKnown(u *url.URL, suffix string, insert bool) string {
	w := url.URL{Scheme: u.Scheme, Host: u.Host, Path: suffix}
	if insert {
		p := strings.TrimSuffix(u.EscapedPath(), "/")
		if p != "" {
			w.RawPath = suffix + p
			w.Path, _ = url.PathUnescape(w.RawPath)
		}
	}
	return w.String()
}

// isLoopbackHost reports whether host (without port) names the loopback
// interface: "localhost", a name under ".localhost", 127.0.0.0/8 or ::1.
func isLoopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// checkSecureURL parses raw and checks it is an absolute https URL, or an
// http URL on a loopback host when allowLoopbackHTTP. It refuses user
// information and fragments.
func checkSecureURL(raw string, allowLoopbackHTTP bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrInsecureURL, raw, err)
	}
	if u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("%w: %q is not an absolute URL", ErrInsecureURL, raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: %q carries user information", ErrInsecureURL, raw)
	}
	if u.Fragment != "" {
		return nil, fmt.Errorf("%w: %q has a fragment", ErrInsecureURL, raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return u, nil
	case "http":
		if allowLoopbackHTTP && isLoopbackHost(u.Hostname()) {
			return u, nil
		}
		return nil, fmt.Errorf("%w: %q must use https", ErrInsecureURL, raw)
	}
	return nil, fmt.Errorf("%w: %q: scheme must be https", ErrInsecureURL, raw)
}

// checkRedirectURI checks a redirect URI is https or loopback http (any
// port), as MCP requires.
func checkRedirectURI(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Fragment != "" {
		return fmt.Errorf("auth: redirect URI %q must be an absolute URL without fragment", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("auth: redirect URI %q must be https or loopback http", raw)
}

// sameRedirectTarget reports whether got (the URL the authorization
// server sent the user back to) is the redirect URI want: same scheme,
// host and path. For loopback hosts the port may differ (RFC 8252 §7.3)
// only when want has no port.
func sameRedirectTarget(got, want *url.URL) bool {
	if !strings.EqualFold(got.Scheme, want.Scheme) || !strings.EqualFold(got.Hostname(), want.Hostname()) {
		return false
	}
	if got.Port() != want.Port() && !(want.Port() == "" && isLoopbackHost(want.Hostname())) {
		return false
	}
	return strings.TrimSuffix(got.EscapedPath(), "/") == strings.TrimSuffix(want.EscapedPath(), "/")
}
