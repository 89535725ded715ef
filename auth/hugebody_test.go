package auth

import (
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/internal/bodytest"
)

// TestHugeBodyRefusedEarly (the class of the Python and Java SDKs' CVEs
// for request bodies without a size limit): the package's own HTTP
// endpoints besides the resource server's middleware (resource.go) read
// no request body: the loopback authorizer's redirect page and the
// Protected Resource Metadata answer a request of 200 MiB, made as it is
// sent, declared or chunked, without reading more of it than net/http
// discards before it closes the connection.
func TestHugeBodyRefusedEarly(t *testing.T) {
	a, err := NewLoopbackAuthorizer(&LoopbackOptions{NoBrowser: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	loopback := bodytest.NewServer(t, http.HandlerFunc(a.serveHTTP))
	metadata := bodytest.NewServer(t, MetadataHandler(ProtectedResourceMetadata{Resource: "https://mcp.example.com/mcp"}))
	host := http.Header{"Host": {a.redirect.Host}}
	for _, tc := range []struct {
		name   string
		s      *bodytest.Server
		method string
		path   string
		hdr    http.Header
		status int
	}{
		{"loopback POST", loopback, "POST", a.redirect.Path + "?state=x&code=y", host, http.StatusMethodNotAllowed},
		{"loopback GET", loopback, "GET", a.redirect.Path + "?state=x&code=y", host, http.StatusBadRequest},
		{"metadata POST", metadata, "POST", "/.well-known/oauth-protected-resource", nil, http.StatusMethodNotAllowed},
		{"metadata GET", metadata, "GET", "/.well-known/oauth-protected-resource", nil, http.StatusOK},
	} {
		for _, chunked := range []bool{false, true} {
			res := tc.s.Post(t, tc.method, tc.path, tc.hdr, bodytest.Body{}, chunked)
			if res.Status != tc.status || res.Read > bodytest.Slack || res.Allocated > 16<<20 {
				t.Errorf("%s, chunked %v: %v\nwant %d with at most %d bytes read", tc.name, chunked, res, tc.status, bodytest.Slack)
			} else {
				t.Logf("%s, chunked %v: status %d, %d bytes read", tc.name, chunked, res.Status, res.Read)
			}
		}
	}
}
