package streamable_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// TestModernValidationOrder follows the server-stateless conformance
// probes: each request breaks one rule, and gets the error of the first
// rule it breaks, with its id, HTTP 400 (404 for unknown methods).
func TestModernValidationOrder(t *testing.T) {
	e := start(t, nil)
	meta := func(pv string, caps bool) string {
		m := `"_meta":{`
		if pv != "" {
			m += `"io.modelcontextprotocol/protocolVersion":"` + pv + `"`
		}
		if caps {
			if pv != "" {
				m += ","
			}
			m += `"io.modelcontextprotocol/clientCapabilities":{}`
		}
		return m + "}"
	}
	discover := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"server/discover","params":{` + params + `}}`
	}
	hv := func(v string) http.Header {
		return http.Header{"Mcp-Protocol-Version": {v}, "Mcp-Method": {"server/discover"}}
	}
	for _, tc := range []struct {
		name   string
		hdr    http.Header
		body   string
		status int
		code   int
	}{
		{"no _meta", modern("server/discover", ""), discover("101", ""), 400, -32602},
		{"no protocolVersion", modern("server/discover", ""), discover("102", meta("", true)), 400, -32602},
		{"no clientCapabilities", modern("server/discover", ""), discover("104", meta("2026-07-28", false)), 400, -32602},
		{"protocolVersion not a string", modern("server/discover", ""), discover("103", `"_meta":{"io.modelcontextprotocol/protocolVersion":2026,"io.modelcontextprotocol/clientCapabilities":{}}`), 400, -32602},
		{"no clientInfo is fine", modern("server/discover", ""), discover("105", meta("2026-07-28", true)), 200, 0},
		{"meta but no header", http.Header{"Mcp-Method": {"server/discover"}}, discover("106", meta("2026-07-28", true)), 400, -32020},
		{"legacy header, modern meta", hv("2025-11-25"), discover("107", meta("2026-07-28", true)), 400, -32020},
		{"unsupported v999.0.0", hv("v999.0.0"), discover("301", meta("v999.0.0", true)), 400, -32022},
		{"unsupported 1900-01-01", hv("1900-01-01"), discover("303", meta("1900-01-01", true)), 400, -32022},
		{"header mismatch before unsupported", modern("server/discover", ""), discover("302", meta("v999.0.0", true)), 400, -32020},
		{"no Mcp-Method", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}, discover("401", meta("2026-07-28", true)), 400, -32020},
		{"wrong Mcp-Method", modern("tools/list", ""), discover("402", meta("2026-07-28", true)), 400, -32020},
		{"Mcp-Method case", modern("SERVER/DISCOVER", ""), discover("403", meta("2026-07-28", true)), 400, -32020},
		{"unknown method", modern("unknown/method", ""), `{"jsonrpc":"2.0","id":601,"method":"unknown/method","params":{` + validMeta + `}}`, 404, -32601},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.post(tc.hdr, tc.body)
			msgs := readMessages(t, resp)
			if resp.StatusCode != tc.status || len(msgs) != 1 || errCode(msgs[0]) != tc.code {
				t.Fatalf("got %d %v, want %d code %d", resp.StatusCode, msgs, tc.status, tc.code)
			}
			var id struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal([]byte(tc.body), &id)
			if got, _ := json.Marshal(msgs[0]["id"]); string(got) != string(id.ID) {
				t.Errorf("id %s, want %s", got, id.ID)
			}
			if tc.code == -32022 {
				data, _ := msgs[0]["error"].(map[string]any)["data"].(map[string]any)
				sup, _ := data["supported"].([]any)
				if len(sup) == 0 || sup[0] != "2026-07-28" || data["requested"] == nil {
					t.Errorf("data %v", data)
				}
			}
		})
	}
}

// TestModernRemovedMethods: methods the modern era removed get 404 and
// -32601, even initialize.
func TestModernRemovedMethods(t *testing.T) {
	e := start(t, nil)
	for _, method := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"} {
		resp := e.post(modern(method, ""), `{"jsonrpc":"2.0","id":500,"method":"`+method+`","params":{`+validMeta+`}}`)
		msgs := readMessages(t, resp)
		if resp.StatusCode != 404 || len(msgs) != 1 || errCode(msgs[0]) != -32601 {
			t.Errorf("%s: %d %v", method, resp.StatusCode, msgs)
		}
	}
}

// TestModernNameAndParamHeaders checks Mcp-Name and the Mcp-Param-*
// headers of x-mcp-header parameters, with the base64 sentinel.
func TestModernNameAndParamHeaders(t *testing.T) {
	e := start(t, nil)
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"region","arguments":` + args + `,` + validMeta + `}}`
	}
	with := func(h http.Header, kv ...string) http.Header {
		for i := 0; i < len(kv); i += 2 {
			h[http.CanonicalHeaderKey(kv[i])] = []string{kv[i+1]}
		}
		return h
	}
	for _, tc := range []struct {
		name string
		hdr  http.Header
		args string
		ok   bool
	}{
		{"plain", with(modern("tools/call", "region"), "Mcp-Param-Region", "Hello"), `{"region":"Hello"}`, true},
		{"name with spaces", with(modern("tools/call", "  region  "), "Mcp-Param-Region", "Hello"), `{"region":"Hello"}`, true},
		{"base64", with(modern("tools/call", "region"), "Mcp-Param-Region", "=?base64?SGVsbG8=?=", "Mcp-Param-Count", "42", "Mcp-Param-Flag", "true"), `{"region":"Hello","count":42,"flag":true}`, true},
		{"integer as float", with(modern("tools/call", "region"), "Mcp-Param-Count", "42"), `{"count":42.0}`, true},
		{"literal base64-like", with(modern("tools/call", "region"), "Mcp-Param-Region", "SGVsbG8="), `{"region":"SGVsbG8="}`, true},
		{"unterminated sentinel", with(modern("tools/call", "region"), "Mcp-Param-Region", "=?base64?SGVsbG8="), `{"region":"=?base64?SGVsbG8="}`, true},
		{"non-ASCII via base64", with(modern("tools/call", "region"), "Mcp-Param-Region", mcp.EncodeHeaderValue("Zürich")), `{"region":"Zürich"}`, true},
		{"lowercase header name", with(modern("tools/call", "region"), "mcp-param-region", "x"), `{"region":"x"}`, true},
		{"unpadded base64", with(modern("tools/call", "region"), "Mcp-Param-Region", "=?base64?SGVsbG8?="), `{"region":"Hello"}`, false},
		{"bad base64", with(modern("tools/call", "region"), "Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="), `{"region":"Hello"}`, false},
		{"missing param header", modern("tools/call", "region"), `{"region":"test-value"}`, false},
		{"header without argument", with(modern("tools/call", "region"), "Mcp-Param-Region", "x"), `{}`, false},
		{"wrong integer", with(modern("tools/call", "region"), "Mcp-Param-Count", "43"), `{"count":42}`, false},
		{"wrong value", with(modern("tools/call", "region"), "Mcp-Param-Region", "Bye"), `{"region":"Hello"}`, false},
		{"wrong name", modern("tools/call", "wrong_tool_name"), `{}`, false},
		{"no name header", modern("tools/call", ""), `{}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.post(tc.hdr, call(tc.args))
			msgs := readMessages(t, resp)
			if tc.ok {
				if resp.StatusCode != 200 || len(msgs) != 1 || resultText(msgs[0]) != "ok" {
					t.Fatalf("got %d %v", resp.StatusCode, msgs)
				}
				return
			}
			if resp.StatusCode != 400 || len(msgs) != 1 || errCode(msgs[0]) != -32020 {
				t.Fatalf("got %d %v", resp.StatusCode, msgs)
			}
		})
	}
	// Mcp-Name also names resources/read's uri.
	resp := e.post(modern("resources/read", "test://a"), `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://a",`+validMeta+`}}`)
	if msgs := readMessages(t, resp); resp.StatusCode != 200 || msgs[0]["result"] == nil {
		t.Errorf("resources/read: %d %v", resp.StatusCode, msgs)
	}
	resp = e.post(modern("resources/read", "test://b"), `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://a",`+validMeta+`}}`)
	if msgs := readMessages(t, resp); resp.StatusCode != 400 || errCode(msgs[0]) != -32020 {
		t.Errorf("resources/read mismatch: %d %v", resp.StatusCode, msgs)
	}
}

// TestModernLazySSE: a call that sends nothing before its result is
// answered with JSON; one that sends progress gets an SSE stream that
// carries the notifications, then the result, one message per data line,
// with X-Accel-Buffering: no.
func TestModernLazySSE(t *testing.T) {
	e := start(t, nil)
	resp := e.post(modern("tools/call", "echo"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},`+validMeta+`}}`)
	msgs := readMessages(t, resp)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || len(msgs) != 1 || resultText(msgs[0]) != "hi" {
		t.Fatalf("echo: %s %v", ct, msgs)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Error("a modern response carries a session id")
	}
	body := `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"chatty","arguments":{"tag":"t","n":3},"_meta":{"progressToken":"p1","io.modelcontextprotocol/logLevel":"debug","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp = e.post(modern("tools/call", "chatty"), body)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("chatty: Content-Type %q, X-Accel-Buffering %q", ct, resp.Header.Get("X-Accel-Buffering"))
	}
	msgs = readMessages(t, resp)
	if len(msgs) != 7 || resultText(msgs[6]) != "done t" {
		t.Fatalf("chatty: %v", msgs)
	}
	for _, m := range msgs[:6] {
		if _, hasID := m["id"]; hasID || !strings.HasPrefix(m["method"].(string), "notifications/") {
			t.Errorf("not a notification: %v", m)
		}
	}
}

// TestModernCancelOnClose: closing the response of a modern request
// cancels it.
func TestModernCancelOnClose(t *testing.T) {
	srv := newTestServer(t)
	cancelled := make(chan struct{})
	started := make(chan struct{})
	server.AddTool(srv, &mcp.Tool{Name: "wait", Description: "waits"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		close(started)
		select {
		case <-ctx.Done():
			close(cancelled)
			return "", ctx.Err()
		case <-time.After(10 * time.Second):
			return "not cancelled", nil
		}
	})
	e2 := startWith(t, srv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", e2.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait",`+validMeta+`}}`))
	req.Header = modern("tools/call", "wait")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	go func() { <-started; cancel() }()
	if resp, err := e2.client.Do(req); err == nil {
		resp.Body.Close()
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("closing the request did not cancel the call")
	}
}
