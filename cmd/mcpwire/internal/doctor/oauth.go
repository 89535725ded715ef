package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/auth"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/config"
)

// maxMetadata bounds a metadata document read.
const maxMetadata = 1 << 20

// oauth follows the discovery an OAuth client does after a 401: the
// challenge, the protected resource metadata (RFC 9728), the
// authorization server's metadata (RFC 8414, or OpenID Connect
// Discovery), and says what is missing.
func oauth(ctx context.Context, r *Report, t *Target, base http.RoundTripper, o *Options) {
	hc := &http.Client{Transport: base, Timeout: o.ProbeTimeout}
	login := t.Login
	if login == "" {
		login = "--url " + config.MaskURL(t.URL)
	}

	// The resource's metadata: where the challenge says, else the
	// well-known place.
	s := r.add(&Step{ID: "oauth-resource", Title: "OAuth: the protected resource metadata"})
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	var ok bool
	timed(s, func() {
		where, how := challengeMetadata(ctx, hc, t)
		if where == "" {
			w, err := auth.ProtectedResourceMetadataURL(t.URL)
			if err != nil {
				s.Status, s.Detail = Fail, err.Error()
				return
			}
			where, how = w, "the 401 has no resource_metadata; tried the well-known URL"
		}
		status, err := getJSON(ctx, hc, where, &prm)
		s.HTTP = []Exchange{{Method: "GET", URL: config.MaskURL(where), Status: status}}
		switch {
		case err != nil:
			s.Status, s.Detail = Fail, fmt.Sprintf("%s: %v (%s)", config.MaskURL(where), err, how)
			s.next = "the server answers 401 but publishes no protected resource metadata (RFC 9728): clients cannot find its authorization server; fix the server, or pass a token with --header \"Authorization: Bearer ...\""
		case len(prm.AuthorizationServers) == 0:
			s.Status, s.Detail = Fail, fmt.Sprintf("%s names no authorization_servers", config.MaskURL(where))
			s.next = "the protected resource metadata names no authorization server: fix the server's metadata"
		default:
			s.Status, ok = OK, true
			s.Detail = fmt.Sprintf("resource %s, authorization server %s (%s)", prm.Resource, strings.Join(prm.AuthorizationServers, ", "), how)
		}
	})
	if !ok {
		r.skip("oauth-server", "OAuth: the authorization server's metadata", "no authorization server is known")
		return
	}
	defer func() {
		if r.Steps[len(r.Steps)-1].Status == Fail {
			return
		}
		a := r.add(&Step{ID: "authorization", Title: "authorization", Status: Fail,
			Detail: "the server wants a token, and its OAuth metadata is in order (mcpwire doctor sends no stored token)"})
		a.next = "the server needs authorization: run mcpwire login " + login
	}()

	s = r.add(&Step{ID: "oauth-server", Title: "OAuth: the authorization server's metadata"})
	timed(s, func() {
		issuer := prm.AuthorizationServers[0]
		var md struct {
			Issuer                string   `json:"issuer"`
			AuthorizationEndpoint string   `json:"authorization_endpoint"`
			TokenEndpoint         string   `json:"token_endpoint"`
			RegistrationEndpoint  string   `json:"registration_endpoint"`
			CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
			ClientIDMetadata      bool     `json:"client_id_metadata_document_supported"`
		}
		var errs []string
		found := false
		for _, where := range metadataURLs(issuer) {
			status, err := getJSON(ctx, hc, where, &md)
			s.HTTP = append(s.HTTP, Exchange{Method: "GET", URL: config.MaskURL(where), Status: status})
			if err == nil {
				found = true
				break
			}
			errs = append(errs, fmt.Sprintf("%s: %v", config.MaskURL(where), err))
		}
		if !found {
			s.Status, s.Detail = Fail, "no metadata: "+strings.Join(errs, "; ")
			s.next = fmt.Sprintf("the authorization server %s publishes no metadata (RFC 8414 or OpenID Connect Discovery): fix it, or pass a token with --header", issuer)
			return
		}
		var missing []string
		if md.AuthorizationEndpoint == "" {
			missing = append(missing, "authorization_endpoint")
		}
		if md.TokenEndpoint == "" {
			missing = append(missing, "token_endpoint")
		}
		if !slices.Contains(md.CodeChallengeMethods, "S256") {
			missing = append(missing, "S256 in code_challenge_methods_supported (PKCE)")
		}
		if len(missing) > 0 {
			s.Status, s.Detail = Fail, "the metadata lacks "+strings.Join(missing, ", ")
			s.next = "the authorization server's metadata lacks " + strings.Join(missing, ", ") + ": MCP clients cannot log in; fix it"
			return
		}
		s.Detail = fmt.Sprintf("authorize at %s, tokens at %s", md.AuthorizationEndpoint, md.TokenEndpoint)
		if md.RegistrationEndpoint == "" && !md.ClientIDMetadata {
			s.Status = Warn
			s.Detail += "; no dynamic client registration and no client ID metadata documents: a login needs a client id of your own"
		} else {
			s.Status = OK
		}
	})
}

// challengeMetadata asks the server for its challenge and returns the
// resource_metadata URL it names, if any, and how it was found.
func challengeMetadata(ctx context.Context, hc *http.Client, t *Target) (string, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		return "", ""
	}
	for k, v := range t.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return "", ""
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadata))
	resp.Body.Close()
	ch, ok := auth.BearerChallenge(resp.Header)
	if !ok {
		return "", ""
	}
	if m := ch.Param("resource_metadata"); m != "" {
		if u, err := url.Parse(m); err == nil && (u.Scheme == "https" || u.Scheme == "http") {
			return m, "named by the 401's WWW-Authenticate"
		}
	}
	return "", ""
}

// metadataURLs returns where an issuer's metadata may be: RFC 8414's
// well-known URL (the path after it), then OpenID Connect Discovery's.
func metadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	path := strings.TrimSuffix(u.Path, "/")
	origin := u.Scheme + "://" + u.Host
	out := []string{origin + "/.well-known/oauth-authorization-server" + path}
	out = append(out, origin+"/.well-known/openid-configuration"+path)
	if path != "" {
		out = append(out, origin+path+"/.well-known/openid-configuration")
	}
	return out
}

// getJSON GETs a JSON document into v.
func getJSON(ctx context.Context, hc *http.Client, where string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadata+1))
	switch {
	case err != nil:
		return resp.StatusCode, err
	case resp.StatusCode != http.StatusOK:
		return resp.StatusCode, fmt.Errorf("HTTP %d", resp.StatusCode)
	case len(data) > maxMetadata:
		return resp.StatusCode, fmt.Errorf("larger than %d bytes", maxMetadata)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return resp.StatusCode, fmt.Errorf("not valid JSON metadata: %v", err)
	}
	return resp.StatusCode, nil
}
