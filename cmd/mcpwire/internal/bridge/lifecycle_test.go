package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A rawClient speaks Streamable HTTP by hand, to drop a stream at a
// chosen point and resume it.
type rawClient struct {
	t       *testing.T
	url     string
	session string
	header  http.Header
}

// post sends one message and returns the response, unread.
func (c *rawClient) post(ctx context.Context, body string) *http.Response {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

// resume GETs the stream of the event last.
func (c *rawClient) resume(ctx context.Context, last string) *http.Response {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("Last-Event-ID", last)
	for k, vs := range c.header {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

// initialize opens a legacy session.
func (c *rawClient) initialize(ctx context.Context) {
	c.t.Helper()
	resp := c.post(ctx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	c.session = resp.Header.Get("Mcp-Session-Id")
	ev := newEvents(resp.Body)
	for {
		e, err := ev.next()
		if err != nil {
			c.t.Fatalf("initialize: %v", err)
		}
		if strings.Contains(e.data, `"result"`) {
			break
		}
	}
	resp.Body.Close()
	if c.session == "" {
		c.t.Fatal("initialize: no session")
	}
	resp = c.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
}

// An event is one SSE event.
type event struct{ id, data string }

// events reads the events of an SSE body.
type events struct{ r *bufio.Reader }

func newEvents(r io.Reader) *events { return &events{bufio.NewReader(r)} }

// next returns the next event that has an id or data.
func (e *events) next() (event, error) {
	var ev event
	for {
		line, err := e.r.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if ev.id != "" || ev.data != "" {
				return ev, nil
			}
		case strings.HasPrefix(line, "id:"):
			ev.id = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "data:"):
			ev.data += strings.TrimPrefix(line[5:], " ")
		}
	}
}

// TestClientReconnectsMidCall drops the SSE stream of a long tool call
// after three of its six progress notifications, lets the call go on
// while no client listens, and resumes the stream with Last-Event-ID:
// the client gets every progress notification and the result, each
// exactly once and in order, from the same server process, which the
// drop did not stop.
func TestClientReconnectsMidCall(t *testing.T) {
	tb := startBridge(t, Options{}, httpLimits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c := &rawClient{t: t, url: tb.base + "/mcp"}
	c.initialize(ctx)
	pid := rawCall(t, ctx, c, 2, "pid", `{}`)

	resp := c.post(ctx, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"steps","arguments":{"first":3,"total":6},"_meta":{"progressToken":"tok"}}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("the call's answer is %s, want an event stream", ct)
	}
	var progress []float64
	var last string
	ev := newEvents(resp.Body)
	for len(progress) < 3 {
		e, err := ev.next()
		if err != nil {
			t.Fatal(err)
		}
		last = e.id
		if e.data != "" {
			progress = append(progress, progressOf(t, e.data))
		}
	}
	resp.Body.Close() // the client loses the stream mid-call

	// The call goes on while nobody listens: release lets it finish.
	if got := rawCall(t, ctx, c, 4, "release", `{}`); got != "released" {
		t.Fatalf("release: %q", got)
	}
	resp = c.resume(ctx, last)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("resume: %s %s", resp.Status, b)
	}
	ev = newEvents(resp.Body)
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
	if fmt.Sprint(progress) != "[1 2 3 4 5 6]" {
		t.Errorf("progress %v, want [1 2 3 4 5 6], each once, in order", progress)
	}
	if !strings.Contains(result, `"id":3`) || !strings.Contains(result, "all steps done") {
		t.Errorf("result %s", result)
	}
	if got := rawCall(t, ctx, c, 5, "pid", `{}`); got != pid {
		t.Errorf("the session's process changed: %s, then %s", pid, got)
	}
}

// progressOf returns the progress of a notifications/progress event,
// checking its token.
func progressOf(t *testing.T, data string) float64 {
	t.Helper()
	var m struct {
		Method string             `json:"method"`
		Params mcp.ProgressParams `json:"params"`
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil || m.Method != "notifications/progress" || m.Params.ProgressToken != jsonrpc.StringID("tok") {
		t.Fatalf("not the call's progress: %s (%v)", data, err)
	}
	return m.Params.Progress
}

// rawCall calls a tool in c's session and returns its text.
func rawCall(t *testing.T, ctx context.Context, c *rawClient, id int, tool, args string) string {
	t.Helper()
	resp := c.post(ctx, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
	defer resp.Body.Close()
	ev := newEvents(resp.Body)
	for {
		e, err := ev.next()
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if !strings.Contains(e.data, `"result"`) {
			continue
		}
		var m struct {
			Result mcp.CallToolResult `json:"result"`
		}
		if err := json.Unmarshal([]byte(e.data), &m); err != nil || len(m.Result.Content) == 0 {
			t.Fatalf("%s: %s", tool, e.data)
		}
		return m.Result.Content[0].(*mcp.TextContent).Text
	}
}

// TestManyClients serves many clients at once, in both eras: each legacy
// session has a process of its own, the modern clients share the pool
// (no more processes than its size), and stopping the bridge stops every
// process.
func TestManyClients(t *testing.T) {
	const legacy, modern, calls = 12, 12, 4
	tb := startBridge(t, Options{PoolSize: 2}, httpLimits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var mu sync.Mutex
	pids := map[string]map[string]bool{"legacy": {}, "modern": {}}
	var wg sync.WaitGroup
	for i := range legacy + modern {
		era, version := "legacy", mcp.Version20251125
		if i >= legacy {
			era, version = "modern", mcp.Version20260728
		}
		s := connect(t, tb.base, version, nil)
		wg.Go(func() {
			var own string
			for j := range calls {
				text := fmt.Sprintf("%s client %d call %d", era, i, j)
				if got, err := callErr(ctx, s, "echo", textArgs{Text: text}); err != nil || got != text {
					t.Errorf("echo %q: %q, %v", text, got, err)
				}
				pid, err := callErr(ctx, s, "pid", nil)
				if err != nil {
					t.Error(err)
					return
				}
				if era == "legacy" && own != "" && pid != own {
					t.Errorf("legacy client %d: served by %s, then %s", i, own, pid)
				}
				own = pid
				mu.Lock()
				pids[era][pid] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if n := len(pids["legacy"]); n != legacy {
		t.Errorf("%d legacy sessions were served by %d processes, want one each", legacy, n)
	}
	if n := len(pids["modern"]); n < 1 || n > 2 {
		t.Errorf("the modern clients were served by %d processes, want 1 or 2 (--pool-size 2)", n)
	}
	tb.stop()
	for _, set := range pids {
		for pid := range set {
			if n, _ := strconv.Atoi(pid); alive(n) {
				t.Errorf("process %d still runs after the bridge stopped", n)
			}
		}
	}
}

// TestIdleTimeout: a legacy session whose client went away (no request,
// no stream open) ends after the idle timeout, and its process with it:
// the session's next request gets 404. An idle pooled process stops too,
// and the next modern request starts another.
func TestIdleTimeout(t *testing.T) {
	tb := startBridge(t, Options{PoolIdleTimeout: 300 * time.Millisecond}, httpLimits{idle: 300 * time.Millisecond}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()

	c := &rawClient{t: t, url: tb.base + "/mcp"}
	c.initialize(ctx)
	n, _ := strconv.Atoi(rawCall(t, ctx, c, 2, "pid", `{}`))
	eventually(t, fmt.Sprintf("stopped (process %d of an idle session)", n), func() bool { return !alive(n) })
	resp := c.post(ctx, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request of the expired session: %s, want 404", resp.Status)
	}

	s := connect(t, tb.base, mcp.Version20260728, nil)
	first := call(t, ctx, s, "pid", nil)
	n, _ = strconv.Atoi(first)
	eventually(t, fmt.Sprintf("stopped (idle pooled process %d)", n), func() bool { return !alive(n) })
	if again := call(t, ctx, s, "pid", nil); again == first {
		t.Errorf("served by pooled process %s after it stopped", again)
	}
}

// TestServerCrash: a process that dies fails its calls with how it ended
// (status and last line of stderr); a legacy session ends with it (404:
// mcpwire's client opens a new one), and the pool starts a new process.
//
// The session ends just after the failed call's answer is on its stream
// (ending it first would tear the stream down, the answer with it), so
// the test waits for the end before the next call: a request sent in
// between gets the same error instead of a 404 (docs/rough_edges.md).
func TestServerCrash(t *testing.T) {
	tb := startBridge(t, Options{}, httpLimits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		s := connect(t, tb.base, version, nil)
		first := call(t, ctx, s, "pid", nil)
		_, err := callErr(ctx, s, "crash", nil)
		if err == nil || !strings.Contains(err.Error(), "the server exited with status 3: fatal: crashing on purpose before answering") {
			t.Errorf("%s: the call that crashed the server: %v", version, err)
		}
		if !mcp.IsModern(version) {
			eventually(t, "ended (the session of the crashed process)", func() bool { return tb.openSessions() == 0 })
		}
		if again := call(t, ctx, s, "pid", nil); again == first {
			t.Errorf("%s: still served by the process that crashed", version)
		}
	}
}

// TestCancellation: a call the client cancels is cancelled in the
// process, in both eras: a modern client closes the request's stream
// (the bridge tells the process, with the id it gave the request), a
// legacy one sends notifications/cancelled.
func TestCancellation(t *testing.T) {
	tb := startBridge(t, Options{PoolSize: 1}, httpLimits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for _, version := range []mcp.Version{mcp.Version20260728, mcp.Version20251125} {
		s := connect(t, tb.base, version, nil)
		cctx, stop := context.WithCancel(ctx)
		_, err := callErr(client.WithProgress(cctx, func(mcp.ProgressParams) { stop() }), s, "hang", nil)
		stop()
		if err == nil {
			t.Fatalf("%s: the cancelled call succeeded", version)
		}
		eventually(t, string(version)+" cancelled in the process", func() bool { return call(t, ctx, s, "cancellations", nil) == "1" })
	}
}

// TestShutdownDrains stops the bridge while calls run: they finish and
// are answered (legacy and modern), new work is refused, and every
// process stops.
func TestShutdownDrains(t *testing.T) {
	tb := startBridge(t, Options{}, httpLimits{}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var wg sync.WaitGroup
	var pids []int
	inFlight := make(chan struct{}, 2)
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		s := connect(t, tb.base, version, nil)
		n, _ := strconv.Atoi(call(t, ctx, s, "pid", nil))
		pids = append(pids, n)
		wg.Go(func() {
			got, err := callErr(client.WithProgress(ctx, func(mcp.ProgressParams) { inFlight <- struct{}{} }), s, "slow", nil)
			if err != nil || got != "slow done" {
				t.Errorf("%s: a call in flight at shutdown: %q, %v", version, got, err)
			}
		})
	}
	<-inFlight
	<-inFlight
	tb.stop()
	wg.Wait()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d still runs after the bridge stopped", pid)
		}
	}
	resp, err := http.Post(tb.base+"/mcp", "application/json", bytes.NewReader([]byte(`{}`)))
	if err == nil {
		resp.Body.Close()
		t.Errorf("the stopped bridge answered: %s", resp.Status)
	}
}
