package bridge

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/sse"
)

// TestSessionEndStopsItsProcess: a legacy session's process lives as
// long as the session: an HTTP+SSE session ends with its stream (that
// transport cannot resume), a Streamable HTTP one with the client's
// DELETE; the process stops with it, the bridge's other sessions
// untouched.
func TestSessionEndStopsItsProcess(t *testing.T) {
	tb := startBridge(t, Options{}, httpLimits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	other := connect(t, tb.base, mcp.Version20251125, nil)
	otherPID := call(t, ctx, other, "pid", nil)

	s := connectOver(t, sse.NewTransport(tb.base+"/sse", nil), mcp.Version20241105, nil)
	n, _ := strconv.Atoi(call(t, ctx, s, "pid", nil))
	s.Close()
	eventually(t, fmt.Sprintf("stopped (process %d of a closed HTTP+SSE session)", n), func() bool { return !alive(n) })

	c := &rawClient{t: t, url: tb.base + "/mcp"}
	c.initialize(ctx)
	n, _ = strconv.Atoi(rawCall(t, ctx, c, 2, "pid", `{}`))
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	eventually(t, fmt.Sprintf("stopped (process %d of a deleted session)", n), func() bool { return !alive(n) })

	if got := call(t, ctx, other, "pid", nil); got != otherPID {
		t.Errorf("the other session's process changed: %s, then %s", otherPID, got)
	}
}

// TestMessageSizeLimit: a message larger than --max-message-size is
// refused with 413, on /mcp and on /sse alike, and the session goes on.
func TestMessageSizeLimit(t *testing.T) {
	const limit = 4096
	tb := startBridge(t, Options{}, httpLimits{maxMessage: limit}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	big := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", limit) + `"}}}`

	c := &rawClient{t: t, url: tb.base + "/mcp"}
	c.initialize(ctx)
	resp := c.post(ctx, big)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("/mcp: a message of %d bytes: %s, want 413", len(big), resp.Status)
	}
	small := strings.Repeat("y", limit/2)
	if got := rawCall(t, ctx, c, 2, "echo", `{"text":"`+small+`"}`); got != small {
		t.Errorf("/mcp: the session after the refusal: echo gave %d bytes", len(got))
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, tb.base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	endpoint, err := newEvents(stream.Body).next()
	if err != nil || !strings.HasPrefix(endpoint.data, "/sse") {
		t.Fatalf("/sse: no endpoint event: %+v, %v", endpoint, err)
	}
	resp, err = http.Post(tb.base+endpoint.data, "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("/sse: a message of %d bytes: %s, want 413", len(big), resp.Status)
	}
}

// TestReplayWindow: with --replay-events 2, a client that resumes after
// an event the bridge no longer keeps gets 400, saying so, rather than a
// stream with a hole in it; one that resumes within the window gets the
// rest of the call, every event once and in order.
func TestReplayWindow(t *testing.T) {
	tb := startBridge(t, Options{}, httpLimits{replayEvents: 2}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c := &rawClient{t: t, url: tb.base + "/mcp"}
	c.initialize(ctx)

	resp := c.post(ctx, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"steps","arguments":{"first":3,"total":6},"_meta":{"progressToken":"tok"}}}`)
	var ids []string
	ev := newEvents(resp.Body)
	for len(ids) < 3 { // three progress notifications: the first is no longer kept
		e, err := ev.next()
		if err != nil {
			t.Fatal(err)
		}
		if e.data != "" {
			progressOf(t, e.data)
			ids = append(ids, e.id)
		}
	}
	resp.Body.Close()

	resp = c.resume(ctx, ids[0])
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "expired") {
		t.Errorf("resuming after an evicted event: %s %s, want 400 saying it expired", resp.Status, body)
	}

	resp = c.resume(ctx, ids[1])
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("resuming within the window: %s %s", resp.Status, b)
	}
	ev = newEvents(resp.Body)
	e, err := ev.next()
	if err != nil {
		t.Fatal(err)
	}
	progress := []float64{progressOf(t, e.data)}
	if got := rawCall(t, ctx, c, 4, "release", `{}`); got != "released" {
		t.Fatalf("release: %q", got)
	}
	var result string
	for result == "" {
		e, err := ev.next()
		if err != nil {
			t.Fatalf("resumed stream ended after progress %v: %v", progress, err)
		}
		switch {
		case strings.Contains(e.data, `"notifications/progress"`):
			progress = append(progress, progressOf(t, e.data))
		case strings.Contains(e.data, `"result"`):
			result = e.data
		}
	}
	if fmt.Sprint(progress) != "[3 4 5 6]" || !strings.Contains(result, "all steps done") {
		t.Errorf("resumed after event 2: progress %v, result %s; want [3 4 5 6], all steps done", progress, result)
	}
}
