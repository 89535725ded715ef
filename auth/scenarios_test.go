package auth

// One test per conformance auth/* scenario (0.1.16 and 0.2.0-alpha.12),
// against mocks that behave like the suite's, checking what its checks
// check.

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// setup starts a mock AS and a mock MCP server pointing at it.
func setup(t *testing.T, asCfg asConfig, rsCfg rsConfig) (*mockAS, *mockRS) {
	t.Helper()
	tokens := &tokenScopes{}
	as := newMockAS(t, tokens, asCfg)
	if rsCfg.asURL == nil {
		rsCfg.asURL = func() string { return as.url() + as.cfg.prefix }
	}
	return as, newMockRS(t, tokens, rsCfg)
}

func mustCall(t *testing.T, c *http.Client, rs *mockRS, method string) {
	t.Helper()
	status, err := rpc(c, rs.mcpURL(), method, 1)
	if err != nil || status != http.StatusOK {
		t.Fatalf("%s: status %d, err %v", method, status, err)
	}
}

// full flow checks shared by the metadata scenarios.
func checkFullFlow(t *testing.T, as *mockAS, rs *mockRS) {
	t.Helper()
	if as.metadataServed() == 0 {
		t.Error("authorization-server-metadata: not requested")
	}
	if len(as.registrations()) == 0 {
		t.Error("client-registration: none")
	}
	as.checkPKCE(t)
	as.checkResource(t, rs.prmResource())
	if got := rs.servedMethods(); len(got) == 0 {
		t.Error("no authenticated MCP request was served")
	}
}

func TestScenarioMetadataDefault(t *testing.T) {
	as, rs := setup(t, asConfig{issSupported: boolp(true)}, rsConfig{trapRootPRM: true})
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	checkFullFlow(t, as, rs)
	if rs.rootRequested() {
		t.Error("prm-priority-order: root PRM requested")
	}
}

func TestScenarioMetadataVar1(t *testing.T) {
	as, rs := setup(t, asConfig{metadataPath: WellKnownOpenIDConfiguration}, rsConfig{noPRMInHeader: true})
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	checkFullFlow(t, as, rs)
	if rs.prmCount() == 0 {
		t.Error("prm-pathbased-requested: no")
	}
}

func TestScenarioMetadataVar2(t *testing.T) {
	as, rs := setup(t,
		asConfig{prefix: "/tenant1", metadataPath: WellKnownAuthorizationServer + "/tenant1"},
		rsConfig{prmPath: WellKnownProtectedResource, noPRMInHeader: true})
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	checkFullFlow(t, as, rs)
	if as.missed(WellKnownAuthorizationServer) {
		t.Error("authorization-server-metadata-wrong-path: root requested")
	}
	if r := as.authRequests()[0].Get("resource"); r != rs.srv.URL {
		t.Errorf("resource %q, want the origin %q verbatim", r, rs.srv.URL)
	}
}

func TestScenarioMetadataVar3(t *testing.T) {
	as, rs := setup(t,
		asConfig{prefix: "/tenant1", metadataPath: "/tenant1" + WellKnownOpenIDConfiguration},
		rsConfig{prmPath: "/custom/metadata/location.json"})
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	checkFullFlow(t, as, rs)
	if as.missed(WellKnownAuthorizationServer) {
		t.Error("authorization-server-metadata-wrong-path: root requested")
	}
}

const cimdURL = "https://conformance-test.local/client-metadata.json"

func TestScenarioBasicCIMD(t *testing.T) {
	as, rs := setup(t, asConfig{cimd: true}, rsConfig{})
	c, _ := testClient(t, ClientOptions{ClientMetadataURL: cimdURL})
	mustCall(t, c, rs, "initialize")
	if got := as.authRequests()[0].Get("client_id"); got != cimdURL {
		t.Errorf("cimd-client-id-used: client_id %q", got)
	}
	if len(as.registrations()) != 0 {
		t.Error("registered although the server supports CIMD")
	}
	if tr := as.tokenRequests()[0]; tr.form.Get("client_id") != cimdURL || tr.authz != "" {
		t.Errorf("token request: client_id %q, Authorization %q", tr.form.Get("client_id"), tr.authz)
	}
}

func TestScenarioScopeFromWWWAuthenticate(t *testing.T) {
	as, rs := setup(t, asConfig{}, rsConfig{challengeScope: []string{"mcp:basic"}})
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	if got := as.authRequests()[0].Get("scope"); !slices.Contains(strings.Fields(got), "mcp:basic") {
		t.Errorf("scope %q lacks mcp:basic", got)
	}
}

func TestScenarioScopeFromScopesSupported(t *testing.T) {
	all := []string{"mcp:basic", "mcp:read", "mcp:write"}
	as, rs := setup(t, asConfig{}, rsConfig{scopesSupported: all})
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	got := strings.Fields(as.authRequests()[0].Get("scope"))
	for _, s := range all {
		if !slices.Contains(got, s) {
			t.Errorf("scope %q lacks %s", got, s)
		}
	}
}

func TestScenarioScopeOmittedWhenUndefined(t *testing.T) {
	as, rs := setup(t, asConfig{}, rsConfig{})
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	if q := as.authRequests()[0]; q.Has("scope") {
		t.Errorf("scope sent: %q", q.Get("scope"))
	}
}

// stepUpAuth is the suite's step-up middleware: initialize and
// notifications pass, tools/list needs mcp:basic, tools/call mcp:write;
// the 403 names challenged (alpha: only mcp:write; 0.1.16: both).
func stepUpAuth(rs **mockRS, challenged string) func(http.ResponseWriter, *http.Request, string) bool {
	return func(w http.ResponseWriter, r *http.Request, method string) bool {
		if method == "initialize" || strings.HasPrefix(method, "notifications/") {
			return true
		}
		prm := (*rs).metadataURL()
		h := r.Header.Get("Authorization")
		if !strings.HasPrefix(h, "Bearer ") {
			w.Header().Set("WWW-Authenticate", `Bearer scope="mcp:basic", resource_metadata="`+prm+`"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
			return false
		}
		scopes, ok := (*rs).tokens.get(strings.TrimPrefix(h, "Bearer "))
		need := "mcp:basic"
		if method == "tools/call" {
			need = "mcp:write"
		}
		if !ok || !slices.Contains(scopes, need) {
			w.Header().Set("WWW-Authenticate", `Bearer scope="`+challenged+`", resource_metadata="`+prm+`", error="insufficient_scope"`)
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
			return false
		}
		return true
	}
}

func TestScenarioScopeStepUp(t *testing.T) {
	for _, challenged := range []string{"mcp:write", "mcp:basic mcp:write"} {
		t.Run(challenged, func(t *testing.T) {
			var rs *mockRS
			as, rsv := setup(t, asConfig{}, rsConfig{scopesSupported: []string{"mcp:profile"}, auth: stepUpAuth(&rs, challenged)})
			rs = rsv
			c, _ := testClient(t, ClientOptions{})
			mustCall(t, c, rs, "initialize")
			if _, err := rpc(c, rs.mcpURL(), "notifications/initialized", 0); err != nil {
				t.Fatal(err)
			}
			mustCall(t, c, rs, "tools/list")
			mustCall(t, c, rs, "tools/call")
			auths := as.authRequests()
			if len(auths) != 2 {
				t.Fatalf("%d authorization requests, want 2", len(auths))
			}
			if s := strings.Fields(auths[0].Get("scope")); !slices.Contains(s, "mcp:basic") {
				t.Errorf("scope-step-up-initial: %q", s)
			}
			s := strings.Fields(auths[1].Get("scope"))
			if !slices.Contains(s, "mcp:write") {
				t.Errorf("scope-step-up-escalation: %q", s)
			}
			if !slices.Contains(s, "mcp:basic") {
				t.Errorf("sep-2350-scope-union-on-reauth: %q", s)
			}
		})
	}
}

func TestScenarioScopeRetryLimit(t *testing.T) {
	var rs *mockRS
	var forbidden atomic.Int32
	auth := func(w http.ResponseWriter, r *http.Request, method string) bool {
		if method == "initialize" || strings.HasPrefix(method, "notifications/") {
			return true
		}
		prm := rs.metadataURL()
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			w.Header().Set("WWW-Authenticate", `Bearer scope="mcp:admin", resource_metadata="`+prm+`"`)
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
			return false
		}
		if forbidden.Add(1) > 3 {
			writeJSON(w, http.StatusGone, map[string]string{"error": "test_complete"})
			return false
		}
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="mcp:admin", resource_metadata="`+prm+`", error_description="Scope upgrade will never succeed"`)
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "insufficient_scope"})
		return false
	}
	as, rsv := setup(t, asConfig{}, rsConfig{scopesSupported: []string{"mcp:admin"}, auth: auth})
	rs = rsv
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	for range 3 { // a client that keeps trying still stops
		status, err := rpc(c, rs.mcpURL(), "tools/list", 2)
		if err == nil && status == http.StatusOK {
			t.Fatal("tools/list succeeded")
		}
	}
	if n := len(as.authRequests()); n == 0 || n > 3 {
		t.Errorf("scope-retry-limit: %d authorization requests", n)
	}
}

func TestScenarioTokenEndpointAuth(t *testing.T) {
	for _, method := range []string{AuthMethodClientSecretBasic, AuthMethodClientSecretPost, AuthMethodNone} {
		t.Run(method, func(t *testing.T) {
			as, rs := setup(t, asConfig{authMethods: []string{method}, regMethod: method, regNoSecret: method == AuthMethodNone}, rsConfig{})
			c, _ := testClient(t, ClientOptions{})
			mustCall(t, c, rs, "initialize")
			tr := as.tokenRequests()[0]
			got := AuthMethodNone
			switch {
			case strings.HasPrefix(tr.authz, "Basic "):
				got = AuthMethodClientSecretBasic
			case tr.form.Get("client_secret") != "":
				got = AuthMethodClientSecretPost
			}
			if got != method {
				t.Errorf("token-endpoint-auth-method: used %s, want %s", got, method)
			}
			if method == AuthMethodClientSecretBasic && tr.authz != basicAuth("test-client-id", "test-client-secret") {
				t.Errorf("Basic credentials %q", tr.authz)
			}
			if reg := as.registrations()[0]; reg["token_endpoint_auth_method"] != method {
				t.Errorf("registration asked for %v", reg["token_endpoint_auth_method"])
			}
			as.checkResource(t, rs.prmResource())
		})
	}
}

func TestScenarioPreRegistration(t *testing.T) {
	for _, withIssuer := range []bool{false, true} {
		as, rs := setup(t, asConfig{noRegistration: true, authMethods: []string{AuthMethodClientSecretBasic}}, rsConfig{})
		cred := ClientCredentials{ClientID: "pre-registered-client", ClientSecret: "pre-registered-secret"}
		if withIssuer {
			cred.Issuer = as.url()
		}
		c, _ := testClient(t, ClientOptions{Clients: []ClientCredentials{cred}})
		mustCall(t, c, rs, "initialize")
		if got := as.tokenRequests()[0].authz; got != basicAuth("pre-registered-client", "pre-registered-secret") {
			t.Errorf("pre-registration-auth: Authorization %q", got)
		}
	}
}

// The 2025-03-26 metadata lives on the MCP server's origin; alpha.12's
// mock names the origin as issuer, 0.1.16's names "<origin>/oauth"; an
// issuer on another origin is refused.
func TestScenarioBackcompatMetadata(t *testing.T) {
	for _, tc := range []struct {
		name, issuerPath string
		ok               bool
	}{{"origin issuer", "", true}, {"issuer with path", "/oauth", true}, {"foreign issuer", "!", false}} {
		t.Run(tc.name, func(t *testing.T) {
			tokens := &tokenScopes{}
			rs := newMockRS(t, tokens, rsConfig{prmPath: "-", asURL: func() string { return "" }})
			issuer := rs.srv.URL + tc.issuerPath
			if tc.issuerPath == "!" {
				issuer = "https://attacker.example.com"
			}
			// The AS shares the MCP server's origin: mount it on the same server.
			as := &mockAS{t: t, tokens: tokens, srv: rs.srv, cfg: asConfig{prefix: "/oauth", metadataPath: WellKnownAuthorizationServer, issuer: issuer,
				grantTypes: []string{"authorization_code", "refresh_token"}, authMethods: []string{"none"}, issMode: "omit", regClientID: "test-client-id"}}
			rs.srv.Config.Handler.(*http.ServeMux).HandleFunc("/", as.serve)
			c, _ := testClient(t, ClientOptions{})
			status, err := rpc(c, rs.mcpURL(), "initialize", 1)
			if !tc.ok {
				if !errors.Is(err, ErrIssuerMismatch) || len(as.authRequests()) != 0 {
					t.Errorf("status %d, err %v, %d authorizations", status, err, len(as.authRequests()))
				}
				return
			}
			if err != nil || status != 200 {
				t.Fatalf("status %d, err %v", status, err)
			}
			if as.metadataServed() == 0 || len(as.registrations()) == 0 || len(as.authRequests()) == 0 || len(as.tokenRequests()) == 0 {
				t.Fatalf("metadata %d, registrations %d, authorizations %d, tokens %d",
					as.metadataServed(), len(as.registrations()), len(as.authRequests()), len(as.tokenRequests()))
			}
			as.checkPKCE(t)
			as.checkResource(t, rs.mcpURL())
		})
	}
}

func TestScenarioBackcompatEndpointFallback(t *testing.T) {
	tokens := &tokenScopes{}
	rs := newMockRS(t, tokens, rsConfig{prmPath: "-", asURL: func() string { return "" }})
	as := &mockAS{t: t, tokens: tokens, srv: rs.srv, cfg: asConfig{metadataPath: "/no-metadata",
		grantTypes: []string{"authorization_code"}, authMethods: []string{"none"}, issMode: "omit", regClientID: "test-client-id"}}
	mux := rs.srv.Config.Handler.(*http.ServeMux)
	mux.HandleFunc("/", as.serve)
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	if len(as.registrations()) == 0 || len(as.authRequests()) == 0 || len(as.tokenRequests()) == 0 {
		t.Fatal("fallback endpoints not used")
	}
	if !as.missed(WellKnownAuthorizationServer) {
		t.Error("the root metadata was not tried first")
	}
	as.checkPKCE(t)
}

func TestScenarioResourceMismatch(t *testing.T) {
	as, rs := setup(t, asConfig{}, rsConfig{resource: "https://evil.example.com/mcp"})
	c, _ := testClient(t, ClientOptions{})
	_, err := rpc(c, rs.mcpURL(), "initialize", 1)
	if !errors.Is(err, ErrResourceMismatch) {
		t.Errorf("err = %v, want ErrResourceMismatch", err)
	}
	if rs.prmCount() == 0 {
		t.Error("the PRM was never fetched")
	}
	if len(as.authRequests()) != 0 || len(as.registrations()) != 0 {
		t.Error("resource-mismatch-rejected: the client went on to authorize")
	}
}

func TestScenarioOfflineAccessScope(t *testing.T) {
	as, rs := setup(t, asConfig{scopesSupported: []string{"mcp:basic", "offline_access"}, cimd: true, regNoSecret: true, regMethod: "none"},
		rsConfig{scopesSupported: []string{"mcp:basic"}})
	c, _ := testClient(t, ClientOptions{OfflineAccess: true})
	mustCall(t, c, rs, "initialize")
	reg := as.registrations()[0]
	if gt, _ := reg["grant_types"].([]any); !slices.Contains(gt, any("refresh_token")) {
		t.Errorf("sep-2207-client-metadata-grant-types: %v", reg["grant_types"])
	}
	if s := strings.Fields(as.authRequests()[0].Get("scope")); !slices.Contains(s, "offline_access") {
		t.Errorf("sep-2207-offline-access-requested: %q", s)
	}
}

func TestScenarioOfflineAccessNotSupported(t *testing.T) {
	as, rs := setup(t, asConfig{scopesSupported: []string{"mcp:basic", "mcp:read"}},
		rsConfig{scopesSupported: []string{"mcp:basic", "mcp:read", "offline_access"}})
	c, _ := testClient(t, ClientOptions{OfflineAccess: true})
	mustCall(t, c, rs, "initialize")
	if s := strings.Fields(as.authRequests()[0].Get("scope")); slices.Contains(s, "offline_access") {
		t.Errorf("sep-2207-offline-access-not-requested: %q", s)
	}
}

func TestScenarioApplicationType(t *testing.T) {
	as, rs := setup(t, asConfig{}, rsConfig{})
	c, _ := testClient(t, ClientOptions{})
	mustCall(t, c, rs, "initialize")
	if at := as.registrations()[0]["application_type"]; at != "native" && at != "web" {
		t.Errorf("sep-837-application-type-present: %v", at)
	}
}

func TestScenarioIss(t *testing.T) {
	cases := []struct {
		name      string
		supported *bool
		mode      string
		proceed   bool
	}{
		{"iss-supported", boolp(true), "correct", true},
		{"iss-not-advertised", nil, "omit", true},
		{"iss-supported-missing", boolp(true), "omit", false},
		{"iss-wrong-issuer", boolp(true), "wrong", false},
		{"iss-unexpected", nil, "wrong", false},
		{"iss-normalized", boolp(true), "normalized", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			as, rs := setup(t, asConfig{issSupported: tc.supported, issMode: tc.mode}, rsConfig{})
			c, _ := testClient(t, ClientOptions{})
			status, err := rpc(c, rs.mcpURL(), "initialize", 1)
			if as.metadataServed() == 0 || len(as.authRequests()) == 0 {
				t.Fatal("the client stopped before reaching /authorize (untestable)")
			}
			made := len(as.tokenRequests()) > 0
			if made != tc.proceed {
				t.Errorf("token request made: %v, want %v (status %d, err %v)", made, tc.proceed, status, err)
			}
			if !tc.proceed && !errors.Is(err, ErrIssuerMismatch) {
				t.Errorf("err = %v, want ErrIssuerMismatch", err)
			}
		})
	}
}

func TestScenarioMetadataIssuerMismatch(t *testing.T) {
	as, rs := setup(t, asConfig{issuer: "https://attacker.example.com", prefix: "/mismatched-as"}, rsConfig{})
	rs.cfg.asURL = as.url // the PRM names the AS's own URL; its metadata claims another issuer
	c, _ := testClient(t, ClientOptions{})
	_, err := rpc(c, rs.mcpURL(), "initialize", 1)
	if !errors.Is(err, ErrIssuerMismatch) {
		t.Errorf("err = %v, want ErrIssuerMismatch", err)
	}
	if as.metadataServed() == 0 {
		t.Fatal("metadata never fetched (untestable)")
	}
	if len(as.authRequests())+len(as.tokenRequests())+len(as.registrations()) != 0 {
		t.Error("sep-2468-client-validate-metadata-issuer: endpoints of the mismatched metadata used")
	}
}

// TestLoopbackHint: a server reached as 127.0.0.1 that names itself
// localhost (as examples/oauth does) is still refused, with the URL to use;
// the error said only that one did not cover the other.
func TestLoopbackHint(t *testing.T) {
	for _, tc := range []struct{ resource, server, want string }{
		{"http://localhost:3001/mcp", "http://127.0.0.1:3001/mcp", "connect with the URL the server names, http://localhost:3001/mcp"},
		{"http://127.0.0.1:3001/mcp", "http://[::1]:3001/mcp", "connect with the URL the server names, http://127.0.0.1:3001/mcp"},
		{"http://localhost:3002/mcp", "http://127.0.0.1:3001/mcp", ""},
		{"https://evil.example.com/mcp", "http://127.0.0.1:3001/mcp", ""},
		{"http://localhost:3001/mcp", "http://localhost:3001/other", ""},
	} {
		got := loopbackHint(tc.resource, tc.server)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("loopbackHint(%q, %q) = %q, want %q", tc.resource, tc.server, got, tc.want)
		}
	}
}
