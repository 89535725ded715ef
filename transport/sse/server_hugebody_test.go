package sse_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/bodytest"
	wire "github.com/mcpwire/mcpwire/transport/internal/sse"
	"github.com/mcpwire/mcpwire/transport/sse"
)

// TestHugeBodyRefusedEarly (the class of the Python and Java SDKs' CVEs
// for request bodies without a size limit): a POST of 200 MiB to a
// session's endpoint, made as it is sent, declared or chunked, is refused
// with 413 once the handler has read at most its limit, MaxBodyBytes, and
// the process allocates a bounded amount meanwhile.
func TestHugeBodyRefusedEarly(t *testing.T) {
	srv := svNewServer(t, nil)
	defer srv.Close()
	h := sse.NewHandler(srv, nil)
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	s := bodytest.NewServer(t, mux)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ev, err := wire.NewReader(resp.Body, 1<<20).Next()
	if err != nil || ev.Name != "endpoint" || !strings.HasPrefix(string(ev.Data), "/sse?sessionId=") {
		t.Fatalf("endpoint event %+v %v", ev, err)
	}
	const limit = sse.DefaultMaxBodyBytes
	body := bodytest.Body{Prefix: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`}
	for _, chunked := range []bool{false, true} {
		res := s.Post(t, "POST", string(ev.Data), http.Header{"Content-Type": {"application/json"}}, body, chunked)
		if res.Status != http.StatusRequestEntityTooLarge || res.Read > limit+bodytest.Slack || res.Allocated > 4*limit+(16<<20) {
			t.Errorf("chunked %v: %v\nwant 413 with at most %d bytes read", chunked, res, limit+bodytest.Slack)
		} else {
			t.Logf("chunked %v: %v", chunked, res)
		}
	}
}
