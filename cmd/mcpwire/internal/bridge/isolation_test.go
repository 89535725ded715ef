package bridge

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
)

// modernPost sends a modern tools/call of tool, whose params (without
// _meta's envelope) are the JSON object members params and whose _meta
// has the members meta, and returns the response unread.
func modernPost(t *testing.T, ctx context.Context, base string, id int, tool, params, meta string) *http.Response {
	t.Helper()
	resp, err := modernPostErr(ctx, base, id, tool, params, meta)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// modernPostErr is modernPost for a goroutine of its own.
func modernPostErr(ctx context.Context, base string, id int, tool, params, meta string) (*http.Response, error) {
	if meta != "" {
		meta = "," + meta
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,%s,"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}%s}}}`, id, tool, params, meta)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/mcp", strings.NewReader(body))
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool} {
		req.Header.Set(k, v)
	}
	return http.DefaultClient.Do(req)
}

// TestEscapedKeysDoNotCrossClients: a member name of _meta written with
// an escape ("progress\u0054oken") is the same name to the server, which
// decodes it, so it is to the bridge too. An attacker that sets such a
// progress token to another client's bridge id (they were small and
// sequential) must not get its progress into that client's stream; one
// that asks for log messages with an escaped logLevel must not share a
// process's log messages with the request that asked first.
func TestEscapedKeysDoNotCrossClients(t *testing.T) {
	t.Run("progressToken", func(t *testing.T) {
		tb := startBridge(t, Options{PoolSize: 1}, httpLimits{}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		victim := connect(t, tb.base, mcp.Version20260728, nil)
		var mu sync.Mutex
		var seen []string
		first := make(chan struct{})
		var once sync.Once
		done := make(chan error, 1)
		go func() {
			pctx := client.WithProgress(ctx, func(p mcp.ProgressParams) {
				mu.Lock()
				seen = append(seen, p.Message)
				mu.Unlock()
				once.Do(func() { close(first) })
			})
			_, err := callErr(pctx, victim, "steps", stepsArgs{First: 1, Total: 2})
			done <- err
		}()
		select {
		case <-first: // the victim's call is in flight on the process
		case <-ctx.Done():
			t.Fatal("the victim's call reported no progress")
		}
		// The attacker tries every small id as a progress token, its key
		// escaped.
		for guess := 1; guess <= 40; guess++ {
			resp := modernPost(t, ctx, tb.base, guess, "tagged", `"arguments":{"tag":"INJECTED","n":1}`, fmt.Sprintf(`"progress\u0054oken":%d`, guess))
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "INJECTED") {
				t.Fatalf("the attacker's call %d: %s %s", guess, resp.Status, b)
			}
		}
		victim2 := connect(t, tb.base, mcp.Version20260728, nil)
		call(t, ctx, victim2, "release", nil)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if strings.Join(seen, "|") != "step 1|step 2" {
			t.Errorf("the victim's call got the progress %q, want only its own [step 1 step 2]", seen)
		}
	})
	t.Run("logLevel", func(t *testing.T) {
		tb := startBridge(t, Options{PoolSize: 1}, httpLimits{}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		var mu sync.Mutex
		var logs []string
		victim := connect(t, tb.base, mcp.Version20260728, &client.Options{OnLog: func(_ context.Context, p *mcp.LoggingMessageParams) {
			mu.Lock()
			logs = append(logs, string(p.Data))
			mu.Unlock()
		}})
		first := make(chan struct{})
		var once sync.Once
		done := make(chan error, 1)
		go func() {
			lctx := client.WithLogLevel(client.WithProgress(ctx, func(mcp.ProgressParams) { once.Do(func() { close(first) }) }), mcp.LevelInfo)
			_, err := callErr(lctx, victim, "steps", stepsArgs{First: 1, Total: 2})
			done <- err
		}()
		select {
		case <-first: // the victim's call, which asked for log messages, is in flight
		case <-ctx.Done():
			t.Fatal("the victim's call reported no progress")
		}
		// The attacker asks for log messages too, its key escaped: it must
		// wait for the process (or get one of its own), not share the
		// victim's.
		attacked := make(chan string, 1)
		go func() {
			resp, err := modernPostErr(ctx, tb.base, 1, "tagged", `"arguments":{"tag":"INJECTED","n":3}`, `"io.modelcontextprotocol/log\u004cevel":"info"`)
			if err != nil {
				attacked <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			attacked <- resp.Status + " " + string(b)
		}()
		var got string
		eventually(t, "answered or waiting for the process (the attacker's call)", func() bool {
			select {
			case got = <-attacked:
				return true
			default:
			}
			tb.pool.mu.Lock()
			defer tb.pool.mu.Unlock()
			return tb.pool.waiting > 0
		})
		other := connect(t, tb.base, mcp.Version20260728, nil)
		call(t, ctx, other, "release", nil)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got == "" {
			got = <-attacked
		}
		if strings.Count(got, `"notifications/message"`) != 3 {
			t.Errorf("the attacker's call did not get its own log messages: %s", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(logs) != 0 {
			t.Errorf("the victim got another request's log messages: %q", logs)
		}
	})
}
