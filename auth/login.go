package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Login authorizes the client for the MCP server at serverURL before any
// request is made, as a "login" command does: discovery through the
// well-known URLs (there is no challenge to read), then the configured
// grant for scopes (default: the scopes_supported of the server's
// metadata). The token is kept in the store and in the Transport, and
// later requests to serverURL send it.
func (t *Transport) Login(ctx context.Context, serverURL string, scopes ...string) (*Token, error) {
	u, err := url.Parse(serverURL)
	if err != nil || origin(u) == "" {
		return nil, fmt.Errorf("auth: server URL %q is not an absolute http(s) URL", serverURL)
	}
	st := t.state(serverKey(u))
	st.authMu.Lock()
	defer st.authMu.Unlock()
	d, err := t.discover(ctx, u, Challenge{}, http.Header{})
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	st.disc = d
	st.mu.Unlock()
	ch := Challenge{Params: map[string]string{}}
	if len(scopes) > 0 {
		ch.Params["scope"] = strings.Join(scopes, " ")
	}
	tok, err := t.obtain(ctx, d, selectScopes(ch, d, nil, t.opts.OfflineAccess))
	if err != nil {
		return nil, err
	}
	t.setToken(ctx, st, d, tok)
	return tok, nil
}

// Logout forgets the token of the MCP server at serverURL, in the
// Transport and in the store (the registration is kept). It runs
// discovery when the Transport has not, to find where the token is
// stored.
func (t *Transport) Logout(ctx context.Context, serverURL string) error {
	u, err := url.Parse(serverURL)
	if err != nil || origin(u) == "" {
		return fmt.Errorf("auth: server URL %q is not an absolute http(s) URL", serverURL)
	}
	st := t.state(serverKey(u))
	st.authMu.Lock()
	defer st.authMu.Unlock()
	st.mu.Lock()
	d := st.disc
	st.token = nil
	st.mu.Unlock()
	if d == nil {
		if d, err = t.discover(ctx, u, Challenge{}, http.Header{}); err != nil {
			return err
		}
	}
	return t.store.SetToken(ctx, d.resource, d.issuer, nil)
}

// Token returns the token the Transport holds for the MCP server at
// serverURL, or nil. It does not contact any server.
func (t *Transport) Token(serverURL string) *Token {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil
	}
	t.mu.Lock()
	st := t.servers[serverKey(u)]
	t.mu.Unlock()
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.token == nil {
		return nil
	}
	tok := *st.token
	return &tok
}
