package wire

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proxytest"
)

// TestHTTPTapStreamsEndWhole: SSE answers to concurrent POSTs pass the
// tap whole. Without full duplex, net/http closed a request body that the
// upstream transport had still to read to its end when the server
// answered at once; the transport then closed the upstream connection in
// the middle of the response (the same cut as conformance/proxy's).
func TestHTTPTapStreamsEndWhole(t *testing.T) {
	u, err := url.Parse(proxytest.SSEBackend(t).URL)
	if err != nil {
		t.Fatal(err)
	}
	var rec records
	tap := httptest.NewServer(&HTTPTap{Upstream: u, Record: rec.add})
	defer tap.Close()
	const rounds = 300
	if fails := proxytest.StreamsCut(t, tap.URL+"/mcp", rounds); len(fails) > 0 {
		t.Errorf("%d of %d streams cut:\n%s", len(fails), 3*rounds, strings.Join(fails[:min(len(fails), 10)], "\n"))
	}
}
