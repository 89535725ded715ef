package auth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeVerifier accepts "good-<scopes joined by +, with ~ for :>" tokens.
var fakeVerifier = TokenVerifierFunc(func(_ context.Context, tok string) (*TokenInfo, error) {
	switch {
	case tok == "outage":
		return nil, errors.New("introspection endpoint unreachable")
	case strings.HasPrefix(tok, "good"):
		var scopes []string
		if _, s, ok := strings.Cut(tok, "-"); ok {
			scopes = strings.Split(strings.ReplaceAll(s, "~", ":"), "+")
		}
		return &TokenInfo{Issuer: testIssuer, Subject: "alice", Scopes: scopes, Expiry: time.Now().Add(time.Hour)}, nil
	}
	return nil, ErrInvalidToken
})

func newResourceServer(t *testing.T, mod func(*ResourceOptions)) *ResourceServer {
	t.Helper()
	opts := &ResourceOptions{
		Resource:             testAudience,
		AuthorizationServers: []string{testIssuer},
		Verifier:             fakeVerifier,
		Scopes:               []string{"mcp:basic"},
		ToolScopes:           map[string][]string{"delete": {"mcp:write"}},
	}
	if mod != nil {
		mod(opts)
	}
	rs, err := NewResourceServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

type seen struct {
	body   string
	authz  string
	info   *TokenInfo
	called bool
}

func serveOnce(rs *ResourceServer, req *http.Request) (*httptest.ResponseRecorder, *seen) {
	s := &seen{}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.body, s.authz, s.called = string(b), r.Header.Get("Authorization"), true
		s.info, _ = TokenInfoFromContext(r.Context())
		w.WriteHeader(http.StatusOK)
	})
	rec := httptest.NewRecorder()
	rs.Middleware(next).ServeHTTP(rec, req)
	return rec, s
}

func post(token, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "https://mcp.example.com/mcp", strings.NewReader(body))
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return r
}

const metaURL = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"

func TestMiddleware(t *testing.T) {
	rs := newResourceServer(t, nil)
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	}
	tests := []struct {
		name      string
		req       *http.Request
		status    int
		challenge string
	}{
		{"no token", post("", call("read")), 401,
			`Bearer scope="mcp:basic", resource_metadata="` + metaURL + `"`},
		{"bad token", post("bad", call("read")), 401,
			`Bearer error="invalid_token", error_description="The access token is invalid or expired.", scope="mcp:basic", resource_metadata="` + metaURL + `"`},
		{"missing base scope", post("good-other", call("read")), 403,
			`Bearer error="insufficient_scope", error_description="The access token lacks a scope this request needs.", scope="mcp:basic", resource_metadata="` + metaURL + `"`},
		{"tool needs more", post("good-mcp~basic", call("delete")), 403,
			`Bearer error="insufficient_scope", error_description="The access token lacks a scope this request needs.", scope="mcp:basic mcp:write", resource_metadata="` + metaURL + `"`},
		{"tool allowed", post("good-mcp~basic+mcp~write", call("delete")), 200, ""},
		{"other tool", post("good-mcp~basic", call("read")), 200, ""},
		{"batch takes the union", post("good-mcp~basic", `[`+call("read")+`,`+call("delete")+`]`), 403,
			`Bearer error="insufficient_scope", error_description="The access token lacks a scope this request needs.", scope="mcp:basic mcp:write", resource_metadata="` + metaURL + `"`},
		{"case-sensitive members", post("good-mcp~basic", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete","Name":"read"}}`), 403, ""},
		{"duplicate members refused", post("good-mcp~basic", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete","name":"read"}}`), 400, ""},
		{"not JSON", post("good-mcp~basic", `hello`), 400, ""},
		{"token in query", httptest.NewRequest(http.MethodGet, "https://mcp.example.com/mcp?access_token=x", nil), 400, ""},
		{"malformed header", post("a b", call("read")), 400, ""},
		{"outage", post("outage", call("read")), 503, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, s := serveOnce(rs, tt.req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d (%s)", rec.Code, tt.status, rec.Body)
			}
			if got := rec.Header().Get("WWW-Authenticate"); tt.challenge != "" && got != tt.challenge {
				t.Errorf("WWW-Authenticate:\n got %s\nwant %s", got, tt.challenge)
			}
			if s.called != (tt.status == 200) {
				t.Errorf("next called: %v", s.called)
			}
			if rec.Code >= 400 {
				var body map[string]string
				if json.Unmarshal(rec.Body.Bytes(), &body) != nil || body["error"] == "" {
					t.Errorf("error body %q", rec.Body)
				}
			}
		})
	}
}

func TestMiddlewarePassesBodyAndIdentity(t *testing.T) {
	rs := newResourceServer(t, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete"}}`
	rec, s := serveOnce(rs, post("good-mcp~basic+mcp~write", body))
	if rec.Code != 200 || s.body != body {
		t.Fatalf("status %d, body seen %q", rec.Code, s.body)
	}
	if s.authz != "" {
		t.Error("the Authorization header reached the handler")
	}
	if s.info == nil || s.info.Subject != "alice" {
		t.Fatalf("TokenInfo %+v", s.info)
	}
	ctx := WithTokenInfo(context.Background(), s.info)
	if got := Principal(ctx); got != testIssuer+"#alice" {
		t.Errorf("Principal = %q", got)
	}
	if got := SubjectFromContext(ctx); got != "alice" {
		t.Errorf("SubjectFromContext = %q", got)
	}
	if Principal(context.Background()) != "" || SubjectFromContext(context.Background()) != "" {
		t.Error("identity without a token")
	}
	if got := Principal(WithTokenInfo(context.Background(), &TokenInfo{ClientID: "svc"})); got != "client:svc" {
		t.Errorf("Principal of a client token = %q", got)
	}

	rs = newResourceServer(t, func(o *ResourceOptions) { o.KeepAuthorizationHeader = true })
	if _, s := serveOnce(rs, post("good-mcp~basic", body[:0]+`{}`)); s.authz == "" {
		t.Error("KeepAuthorizationHeader: header removed")
	}
}

func TestMiddlewareBodyLimit(t *testing.T) {
	rs := newResourceServer(t, func(o *ResourceOptions) { o.MaxBodyBytes = 64 })
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + strings.Repeat("x", 100) + `"}}`
	if rec, s := serveOnce(rs, post("good-mcp~basic", big)); rec.Code != http.StatusRequestEntityTooLarge || s.called {
		t.Errorf("status %d", rec.Code)
	}
	// Without tool scopes the body is not read at all.
	rs = newResourceServer(t, func(o *ResourceOptions) { o.MaxBodyBytes = 64; o.ToolScopes = nil })
	if rec, s := serveOnce(rs, post("good-mcp~basic", big)); rec.Code != 200 || s.body != big {
		t.Errorf("status %d", rec.Code)
	}
}

func TestRequiredScopesHook(t *testing.T) {
	rs := newResourceServer(t, func(o *ResourceOptions) {
		o.ToolScopes = nil
		o.RequiredScopes = func(r *http.Request, c Call) []string {
			if c.Method == "resources/read" && strings.HasPrefix(c.Name, "secret://") {
				return []string{"secrets:read"}
			}
			return nil
		}
	})
	req := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"secret://x"}}`
	if rec, _ := serveOnce(rs, post("good-mcp~basic", req)); rec.Code != 403 ||
		!strings.Contains(rec.Header().Get("WWW-Authenticate"), `scope="mcp:basic secrets:read"`) {
		t.Errorf("status %d, %s", rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
}

func TestResourceServerMetadata(t *testing.T) {
	rs := newResourceServer(t, func(o *ResourceOptions) { o.ResourceName = "Example" })
	mux := http.NewServeMux()
	if err := rs.Mount(mux, http.NotFoundHandler(), true); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://mcp.example.com"+path, nil))
		var md ProtectedResourceMetadata
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &md) != nil {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
		}
		want := ProtectedResourceMetadata{
			Resource: testAudience, AuthorizationServers: []string{testIssuer},
			ScopesSupported: []string{"mcp:basic"}, BearerMethodsSupported: []string{"header"}, ResourceName: "Example",
		}
		if !reflect.DeepEqual(md, want) {
			t.Errorf("%s: %+v", path, md)
		}
		if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Error("no CORS header")
		}
	}
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "https://mcp.example.com/mcp", nil))
	if rec.Code != 401 {
		t.Errorf("mounted MCP endpoint unprotected: %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	rs.MetadataHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/x", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST metadata: %d", rec.Code)
	}
}

func TestNewResourceServerValidates(t *testing.T) {
	for name, o := range map[string]*ResourceOptions{
		"nil":           nil,
		"no resource":   {AuthorizationServers: []string{testIssuer}, Verifier: fakeVerifier},
		"no AS":         {Resource: testAudience, Verifier: fakeVerifier},
		"http AS":       {Resource: testAudience, AuthorizationServers: []string{"http://as.example.com"}, Verifier: fakeVerifier},
		"no verifier":   {Resource: testAudience, AuthorizationServers: []string{testIssuer}},
		"relative rsrc": {Resource: "/mcp", AuthorizationServers: []string{testIssuer}, Verifier: fakeVerifier},
	} {
		if _, err := NewResourceServer(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("RequireBearer did not panic on invalid options")
		}
	}()
	RequireBearer(http.NotFoundHandler(), &ResourceOptions{})
}
