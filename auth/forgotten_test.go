package auth

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// A token that expires without a refresh token is dropped, and the next
// authorization asks again for every scope it had, step-up included, so
// that the user is not sent through a second step-up.
func TestExpiredTokenKeepsSteppedUpScopes(t *testing.T) {
	var rs *mockRS
	var tokens *tokenScopes
	auth := func(w http.ResponseWriter, r *http.Request, method string) bool {
		h := r.Header.Get("Authorization")
		scopes, ok := tokens.get(strings.TrimPrefix(h, "Bearer "))
		if !strings.HasPrefix(h, "Bearer ") || !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope="read"`, rs.metadataURL()))
			w.WriteHeader(http.StatusUnauthorized)
			return false
		}
		if method == "tools/call" && !slices.Contains(scopes, "write") {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="read write"`)
			w.WriteHeader(http.StatusForbidden)
			return false
		}
		return true
	}
	as, rsv := setup(t, asConfig{}, rsConfig{auth: auth})
	rs, tokens = rsv, as.tokens
	c, tr := testClient(t, ClientOptions{})
	clock := time.Now()
	tr.now = func() time.Time { return clock }

	mustCall(t, c, rs, "tools/list") // authorization for read
	mustCall(t, c, rs, "tools/call") // step-up for read write
	if n := len(as.authRequests()); n != 2 {
		t.Fatalf("%d authorizations before expiry, want 2", n)
	}
	clock = clock.Add(2 * time.Hour) // the mock's tokens last an hour, without refresh tokens
	mustCall(t, c, rs, "tools/list")
	reqs := as.authRequests()
	if len(reqs) != 3 {
		t.Fatalf("%d authorizations after expiry, want 3", len(reqs))
	}
	if got := strings.Fields(reqs[2].Get("scope")); !slices.Contains(got, "write") {
		t.Errorf("authorization after expiry asked for %v; want the stepped-up scope write kept", got)
	}
	mustCall(t, c, rs, "tools/call")
	if n := len(as.authRequests()); n != 3 {
		t.Errorf("%d authorizations in all, want 3 (no second step-up)", n)
	}
}
