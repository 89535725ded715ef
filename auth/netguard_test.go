package auth

import (
	"errors"
	"net/http"
	"testing"
)

func TestBlockPrivateNetworks(t *testing.T) {
	as, rs := setup(t, asConfig{}, rsConfig{})
	c, _ := testClient(t, ClientOptions{BlockPrivateNetworks: true})
	_, err := rpc(c, rs.mcpURL(), "initialize", 1)
	if !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("err = %v, want ErrBlockedAddress", err)
	}
	if len(as.authRequests()) != 0 || rs.prmCount() != 0 {
		t.Error("a blocked address was reached")
	}
}

func TestHTTPSRequired(t *testing.T) {
	as, rs := setup(t, asConfig{}, rsConfig{})
	tr, err := NewTransport(&http.Transport{}, &ClientOptions{Authorizer: &HeadlessAuthorizer{}})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.CloseIdleConnections()
	_, err = rpc(&http.Client{Transport: tr}, rs.mcpURL(), "initialize", 1)
	if !errors.Is(err, ErrInsecureURL) {
		t.Errorf("err = %v, want ErrInsecureURL", err)
	}
	if rs.prmCount() != 0 || as.metadataServed() != 0 {
		t.Error("plain http metadata was fetched")
	}
}

func TestNewTransportValidates(t *testing.T) {
	for name, o := range map[string]*ClientOptions{
		"grant":            {Grant: "password"},
		"jwt bearer":       {Grant: GrantJWTBearer},
		"cimd http":        {ClientMetadataURL: "http://example.com/client.json"},
		"cimd no path":     {ClientMetadataURL: "https://example.com"},
		"application type": {ApplicationType: "desktop"},
	} {
		if _, err := NewTransport(nil, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestNoAuthorizer(t *testing.T) {
	_, rs := setup(t, asConfig{}, rsConfig{})
	tr, err := NewTransport(&http.Transport{}, &ClientOptions{AllowLoopbackHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.CloseIdleConnections()
	if _, err := rpc(&http.Client{Transport: tr}, rs.mcpURL(), "initialize", 1); !errors.Is(err, ErrNoAuthorizer) {
		t.Errorf("err = %v", err)
	}
}

func TestPKCERefusedWithoutS256(t *testing.T) {
	as, rs := setup(t, asConfig{noPKCE: true}, rsConfig{})
	c, _ := testClient(t, ClientOptions{})
	if _, err := rpc(c, rs.mcpURL(), "initialize", 1); !errors.Is(err, ErrPKCEUnsupported) {
		t.Errorf("err = %v", err)
	}
	if len(as.authRequests()) != 0 {
		t.Error("authorized without PKCE support")
	}
}

func TestNoRegistrationPossible(t *testing.T) {
	_, rs := setup(t, asConfig{noRegistration: true}, rsConfig{})
	c, _ := testClient(t, ClientOptions{})
	if _, err := rpc(c, rs.mcpURL(), "initialize", 1); !errors.Is(err, ErrNoRegistration) {
		t.Errorf("err = %v", err)
	}
}

func TestOtherSchemesPassThrough(t *testing.T) {
	srv := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="intranet"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	c, _ := testClient(t, ClientOptions{})
	if status, err := rpc(c, srv+"/mcp", "initialize", 1); err != nil || status != http.StatusUnauthorized {
		t.Errorf("status %d, err %v: a Basic challenge must reach the caller", status, err)
	}
}
