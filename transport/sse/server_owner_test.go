package sse_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	wire "github.com/mcpwire/mcpwire/transport/internal/sse"
	"github.com/mcpwire/mcpwire/transport/sse"
)

// TestSessionOwner: with HandlerOptions.SessionOwner, a session belongs
// to whoever opened its stream. Another owner's POST to its endpoint is
// answered byte for byte as one for an unknown session, and never
// reaches the server; the owner's own POSTs go on working.
func TestSessionOwner(t *testing.T) {
	e := svStart(t, &sse.HandlerOptions{SessionOwner: func(r *http.Request) string { return r.Header.Get("X-User") }}, nil)
	as := func(user string) http.Header {
		return http.Header{"X-User": {user}, "Content-Type": {"application/json"}, "Accept": {"text/event-stream"}}
	}
	get := e.do("GET", e.ts.URL+"/sse", as("alice"), "")
	defer get.Body.Close()
	r := wire.NewReader(get.Body, 1<<20)
	ev, err := r.Next()
	if err != nil || ev.Name != "endpoint" {
		t.Fatalf("endpoint event %+v %v", ev, err)
	}
	url := e.ts.URL + string(ev.Data)
	post := func(user, url, body string) (int, string) {
		t.Helper()
		resp := e.do("POST", url, as(user), body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	unknownStatus, unknownBody := post("bob", e.ts.URL+"/sse?sessionId=nope", initialize)
	if unknownStatus != 404 || !strings.Contains(unknownBody, `"code":-32001`) {
		t.Fatalf("unknown session: %d %s", unknownStatus, unknownBody)
	}
	for _, user := range []string{"bob", ""} {
		if st, body := post(user, url, initialize); st != unknownStatus || body != unknownBody {
			t.Errorf("%q using alice's session: %d %s, want %d %s", user, st, body, unknownStatus, unknownBody)
		}
	}
	// Alice's own session works, and saw nothing of the refused POSTs:
	// the first message on its stream answers her initialize (id 2).
	if st, _ := post("alice", url, strings.Replace(initialize, `"id":1`, `"id":2`, 1)); st != 202 {
		t.Fatalf("alice's initialize: %d", st)
	}
	if m := next(t, r); m["id"] != 2.0 || m["result"] == nil {
		t.Fatalf("first message on alice's stream: %v", m)
	}
}
