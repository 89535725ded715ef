package wire

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proxytest"
)

// TestHTTPTapStreamsEndWhole: SSE answers to concurrent POSTs pass the
// tap whole. When the upstream transport read the client's body itself,
// net/http closed that body as the response's headers were written,
// before the transport's last read of it (unless the request was served
// full duplex, 294a4d5); the transport then closed the upstream
// connection in the middle of the response (the same cut as
// conformance/proxy's). The tap now reads a body whole before the
// request goes on, and the transport reads the tap's copy.
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
