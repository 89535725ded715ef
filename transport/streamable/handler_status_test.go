package streamable_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestStatusMatrix sends every kind of bad (and some good) request and
// checks the HTTP status and the JSON-RPC error of the body, which never
// carries "id":null. The server stays up throughout.
func TestStatusMatrix(t *testing.T) {
	e := start(t, &streamable.HandlerOptions{MaxBodyBytes: 1024})
	sid := e.initialize("2025-11-25")
	sid0326 := e.initialize("2025-03-26")
	dead := e.initialize("2025-11-25")
	if r := e.do(http.MethodDelete, legacy(dead), ""); r.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", r.StatusCode)
	}
	list := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	sse := http.Header{"Accept": {"text/event-stream"}}
	with := func(base http.Header, kv ...string) http.Header {
		h := http.Header{}
		for k, v := range base {
			h[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			h[http.CanonicalHeaderKey(kv[i])] = []string{kv[i+1]}
		}
		return h
	}
	for _, tc := range []struct {
		name   string
		method string
		hdr    http.Header
		body   string
		status int
		code   int    // JSON-RPC error code of the body; 0: no error body
		allow  string // expected Allow header
	}{
		{"evil host", "POST", with(legacy(""), "Host", "evil.example.com", "Origin", "http://evil.example.com", "Content-Type", "application/json", "Accept", "application/json, text/event-stream"), list, 403, -32000, ""},
		{"evil origin", "POST", with(legacy(sid), "Origin", "http://evil.example.com", "Content-Type", "application/json", "Accept", "application/json, text/event-stream"), list, 403, -32000, ""},
		{"null origin", "POST", with(legacy(sid), "Origin", "null", "Content-Type", "application/json", "Accept", "application/json, text/event-stream"), list, 403, -32000, ""},
		{"PUT", "PUT", legacy(sid), list, 405, -32000, "GET, POST, DELETE"},
		{"GET without session", "GET", sse, "", 405, -32000, "POST"},
		{"DELETE without session", "DELETE", nil, "", 405, -32000, "POST"},
		{"GET modern", "GET", with(sse, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Session-Id", sid), "", 405, -32000, "POST"},
		{"GET not SSE", "GET", with(legacy(sid), "Accept", "application/json"), "", 406, -32000, ""},
		{"GET unknown session", "GET", with(legacy("nope"), "Accept", "text/event-stream"), "", 404, -32001, ""},
		{"GET unsupported version", "GET", with(legacy(sid), "Accept", "text/event-stream", "Mcp-Protocol-Version", "1900-01-01"), "", 400, -32022, ""},
		{"DELETE unknown session", "DELETE", legacy("nope"), "", 404, -32001, ""},
		{"DELETE deleted session", "DELETE", legacy(dead), "", 404, -32001, ""},
		{"wrong content type", "POST", with(legacy(sid), "Content-Type", "text/plain", "Accept", "application/json, text/event-stream"), list, 415, -32000, ""},
		{"no content type", "POST", with(legacy(sid), "Accept", "application/json, text/event-stream"), list, 415, -32000, ""},
		{"accept JSON only", "POST", with(legacy(sid), "Content-Type", "application/json", "Accept", "application/json"), list, 406, -32000, ""},
		{"accept q=0", "POST", with(legacy(sid), "Content-Type", "application/json", "Accept", "application/json, text/event-stream;q=0"), list, 406, -32000, ""},
		{"too large", "POST", with(legacy(sid), "Content-Type", "application/json"), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("x", 2000) + `"}}`, 413, -32600, ""},
		{"bad JSON", "POST", with(legacy(sid), "Content-Type", "application/json"), `{"jsonrpc":`, 400, -32700, ""},
		{"empty body", "POST", with(legacy(sid), "Content-Type", "application/json"), ``, 400, -32700, ""},
		{"not JSON-RPC", "POST", with(legacy(sid), "Content-Type", "application/json"), `{"jsonrpc":"1.0","id":1,"method":"x"}`, 400, -32600, ""},
		{"duplicate key", "POST", with(legacy(sid), "Content-Type", "application/json"), `{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`, 400, -32600, ""},
		{"no session", "POST", with(legacy(""), "Content-Type", "application/json"), list, 400, -32000, ""},
		{"unknown session", "POST", with(legacy("nope"), "Content-Type", "application/json"), list, 404, -32001, ""},
		{"deleted session", "POST", with(legacy(dead), "Content-Type", "application/json"), list, 404, -32001, ""},
		{"unsupported version header", "POST", with(legacy(sid), "Content-Type", "application/json", "Mcp-Protocol-Version", "1900-01-01"), list, 400, -32022, ""},
		{"batch on 2025-11-25", "POST", with(legacy(sid), "Content-Type", "application/json"), `[` + list + `]`, 400, -32600, ""},
		{"batch, modern header", "POST", with(modern("tools/list", ""), "Content-Type", "application/json"), `[` + list + `]`, 400, -32600, ""},
		{"older version header accepted", "POST", with(legacy(sid), "Content-Type", "application/json", "Mcp-Protocol-Version", "2025-03-26"), list, 200, 0, ""},
		{"no version header", "POST", with(http.Header{"Mcp-Session-Id": {sid0326}}, "Content-Type", "application/json"), list, 200, 0, ""},
		{"batch without version header", "POST", with(http.Header{"Mcp-Session-Id": {sid0326}}, "Content-Type", "application/json"), `[` + list + `]`, 200, 0, ""},
		{"own origin", "POST", with(legacy(sid), "Origin", e.ts.URL, "Content-Type", "application/json", "Accept", "application/json, text/event-stream"), list, 200, 0, ""},
		{"localhost host", "POST", with(legacy(sid), "Host", "localhost:1", "Origin", "http://localhost:3000", "Content-Type", "application/json"), list, 200, 0, ""},
		{"accept wildcard", "POST", with(legacy(sid), "Content-Type", "application/json; charset=utf-8", "Accept", "*/*"), list, 200, 0, ""},
		{"notification", "POST", with(legacy(sid), "Content-Type", "application/json"), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, 202, 0, ""},
		{"response to nothing", "POST", with(legacy(sid), "Content-Type", "application/json"), `{"jsonrpc":"2.0","id":99,"result":{}}`, 202, 0, ""},
		{"modern notification", "POST", with(modern("notifications/cancelled", ""), "Content-Type", "application/json"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, 202, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := tc.hdr
			if tc.method == "POST" && hdr.Get("Accept") == "" {
				hdr = with(hdr, "Accept", "application/json, text/event-stream")
			}
			resp := e.do(tc.method, hdr, tc.body)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, body)
			}
			if strings.Contains(string(body), `"id":null`) {
				t.Errorf("body has a null id: %s", body)
			}
			if got := resp.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
			if tc.code == 0 {
				if strings.Contains(string(body), `"error"`) {
					t.Errorf("unexpected error body %s", body)
				}
				return
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			m := decode(t, body, "")
			if got := errCode(m); got != tc.code {
				t.Errorf("code %d, want %d: %s", got, tc.code, body)
			}
		})
	}
	// The server is still up, and the session still works.
	resp := e.post(legacy(sid), list)
	if msgs := readMessages(t, resp); resp.StatusCode != 200 || len(msgs) != 1 || msgs[0]["result"] == nil {
		t.Fatalf("after the matrix: %d %v", resp.StatusCode, msgs)
	}
}

// TestDNSRebinding is the conformance scenario: a foreign Host and Origin
// get 4xx, the server's own get 2xx, and a request without Origin passes.
func TestDNSRebinding(t *testing.T) {
	e := start(t, nil)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + validMeta + `}}`
	for _, tc := range []struct {
		name, host, origin string
		hdr                http.Header
		body               string
		ok                 bool
	}{
		{"evil legacy", "evil.example.com", "http://evil.example.com", nil, init, false},
		{"evil modern", "evil.example.com", "http://evil.example.com", modern("server/discover", ""), discover, false},
		{"evil host only", "evil.example.com", "", nil, init, false},
		{"own legacy", "", "self", nil, init, true},
		{"own modern", "", "self", modern("server/discover", ""), discover, true},
		{"no origin", "", "", nil, init, true},
		{"127.0.0.1 origin", "", "http://127.0.0.1:9999", nil, init, true},
		{"[::1] host", "[::1]:8080", "http://[::1]:8080", nil, init, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.hdr {
				h[k] = v
			}
			if tc.host != "" {
				h["Host"] = []string{tc.host}
			}
			switch tc.origin {
			case "":
			case "self":
				h["Origin"] = []string{e.ts.URL}
			default:
				h["Origin"] = []string{tc.origin}
			}
			resp := e.post(h, tc.body)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if ok := resp.StatusCode/100 == 2; ok != tc.ok || (!ok && resp.StatusCode/100 != 4) {
				t.Fatalf("status %d", resp.StatusCode)
			}
		})
	}
}

// TestAllowedOriginsAndHosts extends the defaults; and the protection can
// be turned off.
func TestAllowedOriginsAndHosts(t *testing.T) {
	e := start(t, &streamable.HandlerOptions{AllowedHosts: []string{"mcp.example.com"}, AllowedOrigins: []string{"https://app.example.com"}})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tc := range []struct {
		host, origin string
		status       int
	}{
		{"mcp.example.com:443", "https://app.example.com", 200},
		{"mcp.example.com", "https://mcp.example.com", 200},
		{"mcp.example.com", "https://other.example.com", 403},
		{"other.example.com", "", 403},
	} {
		h := http.Header{"Host": {tc.host}}
		if tc.origin != "" {
			h["Origin"] = []string{tc.origin}
		}
		resp := e.post(h, init)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("Host %s Origin %s: %d, want %d", tc.host, tc.origin, resp.StatusCode, tc.status)
		}
	}
	off := start(t, &streamable.HandlerOptions{DisableDNSRebindingProtection: true})
	resp := off.post(http.Header{"Host": {"evil.example.com"}, "Origin": {"http://evil.example.com"}}, init)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("protection off: %d", resp.StatusCode)
	}
}
