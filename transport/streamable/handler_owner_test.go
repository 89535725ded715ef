package streamable_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestSessionOwner: with HandlerOptions.SessionOwner, a legacy session
// belongs to whoever initialized it. Every request of another owner in
// that session (POST, GET, resuming GET, DELETE) is answered byte for
// byte as a request for an unknown session, and changes nothing: the
// owner's session goes on working, and ends only when the owner deletes
// it. Modern requests have no session and are not affected.
func TestSessionOwner(t *testing.T) {
	e := start(t, &streamable.HandlerOptions{
		EventStore:   streamable.NewMemoryEventStore(nil),
		SessionOwner: func(r *http.Request) string { return r.Header.Get("X-User") },
	})
	as := func(user string, h http.Header) http.Header {
		h = h.Clone()
		h.Set("X-User", user)
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
		return h
	}
	resp := e.do(http.MethodPost, as("alice", http.Header{}), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	readMessages(t, resp)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q", resp.StatusCode, sid)
	}
	resp = e.do(http.MethodPost, as("alice", legacy(sid)), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	// An event id of the session, for the resumption below.
	resp = e.do(http.MethodPost, as("alice", legacy(sid)), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	msgs := readMessages(t, resp)
	if len(msgs) != 1 || resultText(msgs[0]) != "hi" {
		t.Fatalf("alice's call: %v", msgs)
	}
	lastEvent, _ := msgs[0]["$event"].(string)
	if lastEvent == "" {
		t.Fatal("no event id on the call's stream")
	}

	// raw sends a request and reads its whole answer, within a bound: a
	// stream opened by mistake would never end.
	raw := func(method string, hdr http.Header, body string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, e.url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = hdr
		resp, err := e.client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return resp.StatusCode, "(reading the body: " + err.Error() + ")"
		}
		return resp.StatusCode, string(b)
	}
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"stolen"}}}`
	wantStatus, wantBody := raw(http.MethodPost, as("bob", legacy("no-such-session")), call)
	if wantStatus != http.StatusNotFound || !strings.Contains(wantBody, `"code":-32001`) {
		t.Fatalf("unknown session: %d %s", wantStatus, wantBody)
	}
	resume := legacy(sid)
	resume.Set("Last-Event-ID", lastEvent)
	for _, tc := range []struct {
		name, method string
		hdr          http.Header
		body         string
	}{
		{"POST", http.MethodPost, legacy(sid), call},
		{"notification", http.MethodPost, legacy(sid), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`},
		{"GET", http.MethodGet, legacy(sid), ""},
		{"resuming GET", http.MethodGet, resume, ""},
		{"DELETE", http.MethodDelete, legacy(sid), ""},
	} {
		for _, user := range []string{"bob", ""} {
			if st, body := raw(tc.method, as(user, tc.hdr), tc.body); st != wantStatus || body != wantBody {
				t.Errorf("%s by %q in alice's session: %d %s, want %d %s", tc.name, user, st, body, wantStatus, wantBody)
			}
		}
	}

	// Alice's session is intact, and modern requests are anyone's.
	resp = e.do(http.MethodPost, as("alice", legacy(sid)), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still mine"}}}`)
	if msgs := readMessages(t, resp); len(msgs) != 1 || resultText(msgs[0]) != "still mine" {
		t.Fatalf("alice's session after the attempts: %d %v", resp.StatusCode, msgs)
	}
	resp = e.do(http.MethodPost, as("bob", modern("tools/call", "echo")), `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"modern"},`+validMeta+`}}`)
	if msgs := readMessages(t, resp); len(msgs) != 1 || resultText(msgs[0]) != "modern" {
		t.Fatalf("bob's modern call: %d %v", resp.StatusCode, msgs)
	}
	if st, body := raw(http.MethodDelete, as("alice", legacy(sid)), ""); st != http.StatusNoContent {
		t.Fatalf("alice's DELETE: %d %s", st, body)
	}
	if st, _ := raw(http.MethodPost, as("alice", legacy(sid)), call); st != http.StatusNotFound {
		t.Errorf("after DELETE: %d", st)
	}
}
