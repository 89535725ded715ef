package wire

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proxytest"
)

// TestHTTPTapSmugglesNoRequest: a request that the upstream refuses at
// once (403 for a foreign Origin), whose body is more than 256 KiB of
// complete HTTP requests, is one request. The tap wrapped the incoming
// body (which hid it from net/http's check of a body closed early) and
// served it full duplex (which skipped the other check), so it kept the
// connection and read the rest of the body as requests, which it
// forwarded.
func TestHTTPTapSmugglesNoRequest(t *testing.T) {
	up, hidden := proxytest.RefusingBackend(t)
	u, err := url.Parse(up.URL)
	if err != nil {
		t.Fatal(err)
	}
	var rec records
	tap := httptest.NewServer(&HTTPTap{Upstream: u, Record: rec.add})
	defer tap.Close()
	fails := proxytest.Smuggle(t, strings.TrimPrefix(tap.URL, "http://"), 2)
	if len(fails) > 0 || hidden.Load() != 0 {
		t.Errorf("%d hidden requests reached the upstream; %d connections failed:\n%s", hidden.Load(), len(fails), strings.Join(fails, "\n"))
	}
	for _, r := range rec.get() {
		if r.From == "client" && r.Method == "tools/call" {
			t.Errorf("a hidden request was recorded as a frame: %s", r.Body())
			break
		}
	}
}
