package auth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// browser plays the user's browser: it follows the authorization URL's
// redirects to the loopback callback and keeps the page shown.
type browser struct {
	client *http.Client
	page   chan string
}

func newBrowser(t *testing.T) *browser {
	b := &browser{client: &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}, page: make(chan string, 1)}
	t.Cleanup(b.client.CloseIdleConnections)
	return b
}

func (b *browser) open(ctx context.Context, u string) error {
	resp, err := b.client.Get(u)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	b.page <- string(body)
	return nil
}

func TestLoopbackAuthorizerEndToEnd(t *testing.T) {
	clock := &testClock{t: time.Now()}
	as := newTestAS(t, clock)
	rsrv := newMockRSForLogin(t, as)
	b := newBrowser(t)
	la, err := NewLoopbackAuthorizer(&LoopbackOptions{
		OpenBrowser: func(ctx context.Context, u string) error { go b.open(ctx, u); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close()
	if !strings.HasPrefix(la.RedirectURI(), "http://127.0.0.1:") || !strings.HasSuffix(la.RedirectURI(), "/callback") {
		t.Errorf("RedirectURI %s", la.RedirectURI())
	}
	_, tr := testClient(t, ClientOptions{Authorizer: la})
	if _, err := tr.Login(t.Context(), rsrv); err != nil {
		t.Fatal(err)
	}
	if page := <-b.page; !strings.Contains(page, "You can close this window") {
		t.Errorf("page: %s", page)
	}
}

// newMockRSForLogin serves only the PRM of an MCP server at /mcp.
func newMockRSForLogin(t *testing.T, as *testAS) string {
	mux := http.NewServeMux()
	srv := httptestServer(t, mux)
	resource := srv + "/mcp"
	mux.Handle(WellKnownProtectedResource+"/mcp", MetadataHandler(ProtectedResourceMetadata{
		Resource: resource, AuthorizationServers: []string{as.srv.URL}}))
	return resource
}

func TestLoopbackAuthorizerRefusals(t *testing.T) {
	var opened []string
	var out strings.Builder
	la, err := NewLoopbackAuthorizer(&LoopbackOptions{
		Output:      &out,
		Timeout:     300 * time.Millisecond,
		OpenBrowser: func(_ context.Context, u string) error { opened = append(opened, u); return errors.New("no display") },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close()
	for _, bad := range []string{"javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "https://as.example.com/authorize"} {
		if _, err := la.Authorize(t.Context(), bad); err == nil {
			t.Errorf("Authorize(%s) accepted", bad)
		}
	}
	if len(opened) != 0 {
		t.Errorf("opened %q", opened)
	}
	// A browser that cannot open: the URL is printed, the wait times out.
	_, err = la.Authorize(t.Context(), "https://as.example.com/authorize?state=s1")
	if err == nil || !strings.Contains(out.String(), "https://as.example.com/authorize?state=s1") {
		t.Errorf("err %v, output %q", err, out.String())
	}

	c := &http.Client{Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	get := func(u string, host string) int {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	cb, _ := url.Parse(la.RedirectURI())
	if s := get(la.RedirectURI()+"?state=unknown&code=x", ""); s != http.StatusBadRequest {
		t.Errorf("unknown state: %d", s)
	}
	if s := get("http://"+cb.Host+"/other", ""); s != http.StatusNotFound {
		t.Errorf("other path: %d", s)
	}
	if s := get(la.RedirectURI()+"?state=x", "evil.example.com"); s != http.StatusForbidden {
		t.Errorf("foreign Host: %d", s)
	}

	// Close ends a wait.
	done, waiting := make(chan error, 1), make(chan struct{})
	la2, _ := NewLoopbackAuthorizer(&LoopbackOptions{OpenBrowser: func(context.Context, string) error {
		close(waiting) // the authorization has started: next, Authorize waits
		return nil
	}})
	go func() {
		_, err := la2.Authorize(context.Background(), "https://as.example.com/authorize?state=s2")
		done <- err
	}()
	<-waiting
	la2.Close()
	if err := <-done; err == nil {
		t.Error("Authorize returned no error after Close")
	}
}
