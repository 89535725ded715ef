package streamable_test

import (
	"net/http"
	"testing"

	"github.com/mcpwire/mcpwire/internal/bodytest"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestHugeBodyRefusedEarly (the class of the Python and Java SDKs' CVEs
// for request bodies without a size limit): a POST of 200 MiB, made as it
// is sent, declared or chunked, in either era, is refused with 413 once
// the handler has read at most its limit, MaxBodyBytes, and the process
// allocates a bounded amount meanwhile.
func TestHugeBodyRefusedEarly(t *testing.T) {
	srv := newTestServer(t)
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	defer srv.Close()
	s := bodytest.NewServer(t, h)
	const limit = streamable.DefaultMaxBodyBytes
	body := bodytest.Body{Prefix: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`}
	for _, tc := range []struct {
		name string
		hdr  http.Header
	}{
		{"legacy", http.Header{"Mcp-Protocol-Version": {"2025-11-25"}, "Mcp-Session-Id": {"unknown"}}},
		{"modern", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"}}},
	} {
		for _, chunked := range []bool{false, true} {
			hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
			for k, v := range tc.hdr {
				hdr[k] = v
			}
			res := s.Post(t, "POST", "/", hdr, body, chunked)
			if res.Status != http.StatusRequestEntityTooLarge || res.Read > limit+bodytest.Slack || res.Allocated > 4*limit+(16<<20) {
				t.Errorf("%s, chunked %v: %v\nwant 413 with at most %d bytes read", tc.name, chunked, res, limit+bodytest.Slack)
			} else {
				t.Logf("%s, chunked %v: %v", tc.name, chunked, res)
			}
		}
	}
}
