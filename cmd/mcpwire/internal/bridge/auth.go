package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
)

// authFlags are the OAuth flags of a bridge of a stdio server.
type authFlags struct {
	issuer, jwks, resource string
	scopes                 []string
}

func (f *authFlags) addTo(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.Var(app.NamedString(&f.issuer, "URL"), "auth-issuer", "require OAuth bearer tokens issued by this authorization server (its issuer identifier)")
	fs.Var(app.NamedString(&f.jwks, "URL"), "auth-jwks", "the authorization server's key set (default: the jwks_uri of its metadata)")
	fs.Var(app.NamedString(&f.resource, "URL"), "auth-resource", "the bridge's resource identifier, the audience of its tokens (default: http://ADDR/mcp)")
	fs.Var(app.NamedStrings(&f.scopes, "SCOPE"), "auth-scope", "a scope every request's token must carry (repeatable)")
}

func (f *authFlags) enabled() bool { return f.issuer != "" }

// check refuses OAuth flags without --auth-issuer.
func (f *authFlags) check() error {
	if f.issuer == "" && (f.jwks != "" || f.resource != "" || len(f.scopes) > 0) {
		return app.UsageErrorf("--auth-jwks, --auth-resource and --auth-scope need --auth-issuer, the authorization server whose tokens the bridge accepts")
	}
	return nil
}

// resourceServer builds the token check of the bridge served at base.
func (f *authFlags) resourceServer(ctx context.Context, base string) (*auth.ResourceServer, error) {
	resource := f.resource
	if resource == "" {
		resource = base + "/mcp"
	}
	jwks := f.jwks
	if jwks == "" {
		var err error
		if jwks, err = discoverJWKS(ctx, f.issuer); err != nil {
			return nil, app.ConnectErrorf("--auth-issuer %s: %v (or give --auth-jwks)", f.issuer, err)
		}
	}
	verifier, err := auth.NewJWTVerifier(&auth.JWTOptions{Issuer: f.issuer, Audience: resource, JWKSURL: jwks})
	if err != nil {
		return nil, app.UsageErrorf("%v", strings.TrimPrefix(err.Error(), "auth: "))
	}
	rs, err := auth.NewResourceServer(&auth.ResourceOptions{
		Resource:             resource,
		AuthorizationServers: []string{f.issuer},
		Verifier:             verifier,
		Scopes:               f.scopes,
	})
	if err != nil {
		return nil, app.UsageErrorf("%v", strings.TrimPrefix(err.Error(), "auth: "))
	}
	return rs, nil
}

// Bounds of the discovery of the authorization server's keys.
const (
	discoveryTimeout  = 10 * time.Second
	maxDiscoveryBytes = 1 << 20
)

// discoverJWKS reads the jwks_uri of the authorization server issuer from
// its metadata: RFC 8414 (with the issuer's path inserted after the
// well-known prefix), then OpenID Connect discovery. The metadata must
// name the same issuer.
func discoverJWKS(ctx context.Context, issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("want an http or https URL")
	}
	path := strings.TrimSuffix(u.Path, "/")
	origin := u.Scheme + "://" + u.Host
	urls := []string{origin + "/.well-known/oauth-authorization-server" + path}
	if path != "" {
		urls = append(urls, origin+"/.well-known/openid-configuration"+path)
	}
	urls = append(urls, origin+path+"/.well-known/openid-configuration")
	ctx, cancel := context.WithTimeout(ctx, discoveryTimeout)
	defer cancel()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var last error
	for _, mu := range urls {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, mu, nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			last = err
			continue
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxDiscoveryBytes))
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			last = fmt.Errorf("GET %s: %s", mu, resp.Status)
			continue
		}
		var md auth.AuthServerMetadata
		if err := json.Unmarshal(body, &md); err != nil {
			return "", fmt.Errorf("the metadata at %s is not valid: %v", mu, err)
		}
		if md.Issuer != issuer {
			return "", fmt.Errorf("the metadata at %s names another issuer, %q", mu, md.Issuer)
		}
		if md.JWKSURI == "" {
			return "", fmt.Errorf("the metadata at %s names no jwks_uri", mu)
		}
		return md.JWKSURI, nil
	}
	return "", fmt.Errorf("no authorization server metadata: %v", last)
}
