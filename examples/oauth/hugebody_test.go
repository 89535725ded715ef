package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/bodytest"
)

// TestHugeBodyRefusedEarly (the class of the Python and Java SDKs' CVEs
// for request bodies without a size limit): a request of 200 MiB, made as
// it is sent, declared or chunked, to each endpoint of the authorization
// server is refused once it has read at most maxRequestBody (64 KiB): 413
// with an OAuth error that says so for registration and tokens; the GET
// endpoints answer without reading the body.
func TestHugeBodyRefusedEarly(t *testing.T) {
	s := bodytest.NewUnstartedServer(t)
	as, err := newAuthServer(s.URL, s.URL+"/mcp", "bob", []string{"notes:read"})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	as.mount(mux)
	s.Start(mux)
	for _, tc := range []struct {
		method, path, contentType string
		body                      bodytest.Body
		status                    int
		answer                    string // in the answer's body
	}{
		{"POST", "/register", "application/json", bodytest.Body{Prefix: `{"redirect_uris":["http://127.0.0.1:1/cb"],"client_name":"`},
			http.StatusRequestEntityTooLarge, `"error_description":"the request body exceeds 65536 bytes"`},
		{"POST", "/token", "application/x-www-form-urlencoded", bodytest.Body{Prefix: "grant_type=refresh_token&refresh_token="},
			http.StatusRequestEntityTooLarge, `"error_description":"the request body exceeds 65536 bytes"`},
		{"GET", "/authorize?client_id=x", "", bodytest.Body{}, http.StatusBadRequest, "unknown client"},
		{"GET", "/.well-known/oauth-authorization-server", "", bodytest.Body{}, http.StatusOK, `"issuer"`},
		{"GET", "/jwks", "", bodytest.Body{}, http.StatusOK, `"keys"`},
	} {
		for _, chunked := range []bool{false, true} {
			hdr := http.Header{}
			if tc.contentType != "" {
				hdr.Set("Content-Type", tc.contentType)
			}
			res := s.Post(t, tc.method, tc.path, hdr, tc.body, chunked)
			if res.Status != tc.status || !strings.Contains(res.Answer, tc.answer) || res.Read > maxRequestBody+bodytest.Slack || res.Allocated > 16<<20 {
				t.Errorf("%s %s, chunked %v: %v\nwant %d %s, with at most %d bytes read", tc.method, tc.path, chunked, res, tc.status, tc.answer, maxRequestBody+bodytest.Slack)
			} else {
				t.Logf("%s %s, chunked %v: %v", tc.method, tc.path, chunked, res)
			}
		}
	}
}
