package streamable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestBothEras serves a legacy session and modern requests from one
// handler, interleaved, against the real server.
func TestBothEras(t *testing.T) {
	e := start(t, nil)
	sid := e.initialize("2025-11-25")
	for i := range 3 {
		resp := e.post(legacy(sid), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"legacy %d"}}}`, i+1, i))
		msgs := readMessages(t, resp)
		if len(msgs) != 1 || resultText(msgs[0]) != fmt.Sprintf("legacy %d", i) || resp.Header.Get("Mcp-Session-Id") != sid {
			t.Fatalf("legacy call: %v", msgs)
		}
		if _, ok := msgs[0]["result"].(map[string]any)["resultType"]; ok {
			t.Errorf("a legacy result has resultType: %v", msgs[0])
		}
		// A modern request, even one carrying the session id, is served
		// without the session.
		h := modern("tools/call", "echo")
		h["Mcp-Session-Id"] = []string{sid}
		resp = e.post(h, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"modern %d"},`+validMeta+`}}`, i+1, i))
		msgs = readMessages(t, resp)
		if len(msgs) != 1 || resultText(msgs[0]) != fmt.Sprintf("modern %d", i) || msgs[0]["result"].(map[string]any)["resultType"] != "complete" {
			t.Fatalf("modern call: %v", msgs)
		}
	}
	// A legacy ping answers {} exactly.
	resp := e.post(legacy(sid), `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if msgs := readMessages(t, resp); fmt.Sprint(msgs[0]["result"]) != "map[]" {
		t.Errorf("ping: %v", msgs)
	}
}

// TestConcurrentCallsRouting runs 50 concurrent calls on one legacy
// session, each sending progress and log messages: every message arrives
// on its own call's stream, none is lost or duplicated, and nothing leaks
// onto the standalone stream.
func TestConcurrentCallsRouting(t *testing.T) {
	e := start(t, nil)
	sid := e.initialize("2025-11-25")
	get := e.do(http.MethodGet, with(legacy(sid), "Accept", "text/event-stream"), "")
	if get.StatusCode != 200 {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	standalone := make(chan []msg)
	go func() { standalone <- readMessages(t, get) }()
	const calls, steps = 50, 5
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tag := fmt.Sprintf("call%02d", i)
			resp := e.post(legacy(sid), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"chatty","arguments":{"tag":%q,"n":%d,"pauseMs":2},"_meta":{"progressToken":%q}}}`, 100+i, tag, steps, tag))
			msgs := readMessages(t, resp)
			progress, logs := map[float64]int{}, map[string]int{}
			for _, m := range msgs[:len(msgs)-1] {
				p, _ := m["params"].(map[string]any)
				switch m["method"] {
				case "notifications/progress":
					if p["progressToken"] != tag {
						errs <- fmt.Errorf("%s got progress of %v", tag, p["progressToken"])
					}
					progress[p["progress"].(float64)]++
				case "notifications/message":
					logs[p["data"].(string)]++
				default:
					errs <- fmt.Errorf("%s: unexpected %v", tag, m)
				}
			}
			for k := 1; k <= steps; k++ {
				if progress[float64(k)] != 1 || logs[fmt.Sprintf("%s:%d", tag, k)] != 1 {
					errs <- fmt.Errorf("%s: step %d: progress %v logs %v", tag, k, progress, logs)
				}
			}
			if len(msgs) != 2*steps+1 || resultText(msgs[len(msgs)-1]) != "done "+tag {
				errs <- fmt.Errorf("%s: %d messages, last %v", tag, len(msgs), msgs[len(msgs)-1])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// End the standalone stream: nothing of the calls went there.
	if r := e.do(http.MethodDelete, legacy(sid), ""); r.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", r.StatusCode)
	}
	if got := <-standalone; len(got) != 0 {
		t.Errorf("the standalone stream got %v", got)
	}
}

func with(h http.Header, kv ...string) http.Header {
	out := http.Header{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[http.CanonicalHeaderKey(kv[i])] = []string{kv[i+1]}
	}
	return out
}

// TestServerRequestOnCallStream: a sampling request of a tool goes on the
// tool call's stream; the client answers with a POST (202), and the call
// completes on the same stream.
func TestServerRequestOnCallStream(t *testing.T) {
	e := start(t, nil)
	sid := e.initialize("2025-11-25")
	resp := e.post(legacy(sid), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample","arguments":{}}}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	defer resp.Body.Close()
	r := sse.NewReader(resp.Body, 1<<20)
	ev, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	req := decode(t, ev.Data, "")
	if req["method"] != "sampling/createMessage" || req["id"] == nil {
		t.Fatalf("expected a sampling request, got %v", req)
	}
	answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m1"}}`, req["id"])
	ack := e.post(legacy(sid), answer)
	ack.Body.Close()
	if ack.StatusCode != http.StatusAccepted {
		t.Fatalf("answer: %d", ack.StatusCode)
	}
	ev, err = r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if got := resultText(decode(t, ev.Data, "")); got != "model said m1" {
		t.Fatalf("result %q", got)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("the stream did not end after the result: %v", err)
	}
}

// TestStandaloneStream: unrelated messages go to the GET stream; a second
// GET gets 409; messages sent while no GET is open wait for the next one,
// the oldest dropped beyond the bound.
func TestStandaloneStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMem(t, &streamable.HandlerOptions{MaxPendingMessages: 3})
		sid := e.initialize("2025-11-25")
		addTool := func(name string) {
			server.AddTool(e.srv, &mcp.Tool{Name: name, Description: "x"}, func(context.Context, *server.Request, struct{}) (string, error) { return "", nil })
		}
		get := e.do(http.MethodGet, with(legacy(sid), "Accept", "text/event-stream"), "")
		if get.StatusCode != 200 || get.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("GET: %d", get.StatusCode)
		}
		second := e.do(http.MethodGet, with(legacy(sid), "Accept", "text/event-stream"), "")
		second.Body.Close()
		if second.StatusCode != http.StatusConflict {
			t.Fatalf("second GET: %d", second.StatusCode)
		}
		r := sse.NewReader(get.Body, 1<<20)
		addTool("t1")
		ev, err := r.Next()
		if err != nil || !strings.Contains(string(ev.Data), "notifications/tools/list_changed") {
			t.Fatalf("GET stream: %q %v", ev.Data, err)
		}
		get.Body.Close()
		synctest.Wait() // the server has noticed the GET is gone
		// Five log messages while no GET is open (list changes would be
		// coalesced into one): the last three are kept for the next GET.
		var sess *server.Session
		for s := range e.srv.Sessions() {
			sess = s
		}
		for i := range 5 {
			if err := sess.Log(context.Background(), &mcp.LoggingMessageParams{Level: mcp.LevelInfo, Data: json.RawMessage(fmt.Sprintf(`"m%d"`, i))}); err != nil {
				t.Fatal(err)
			}
		}
		get = e.do(http.MethodGet, with(legacy(sid), "Accept", "text/event-stream"), "")
		r = sse.NewReader(get.Body, 1<<20)
		for i := range 3 {
			if ev, err := r.Next(); err != nil || !strings.Contains(string(ev.Data), fmt.Sprintf(`"m%d"`, i+2)) {
				t.Fatalf("pending message %d: %q %v", i, ev.Data, err)
			}
		}
		get.Body.Close()
	})
}

// TestSessionLifecycle: DELETE ends a session (later requests 404); an
// idle session expires; the session cap gives 503.
func TestSessionLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMem(t, &streamable.HandlerOptions{MaxSessions: 2, SessionIdleTimeout: 100 * time.Millisecond})
		a := e.initialize("2025-11-25")
		b := e.initialize("2025-06-18")
		resp := e.post(nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
		msgs := readMessages(t, resp)
		if resp.StatusCode != http.StatusServiceUnavailable || errCode(msgs[0]) != -32005 || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("over the cap: %d %v", resp.StatusCode, msgs)
		}
		if r := e.do(http.MethodDelete, legacy(a), ""); r.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %d", r.StatusCode)
		}
		resp = e.post(legacy(a), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("after DELETE: %d", resp.StatusCode)
		}
		// b expires while nothing happens in it.
		time.Sleep(150 * time.Millisecond) // fake time: past the idle timeout
		resp = e.post(legacy(b), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("an idle session, after its timeout: %d", resp.StatusCode)
		}
		// Room again.
		e.initialize("2025-11-25")
	})
}

// TestSessionStaysWhileStreamOpen: an open GET keeps a session alive.
func TestSessionStaysWhileStreamOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMem(t, &streamable.HandlerOptions{SessionIdleTimeout: 50 * time.Millisecond})
		sid := e.initialize("2025-11-25")
		get := e.do(http.MethodGet, with(legacy(sid), "Accept", "text/event-stream"), "")
		time.Sleep(200 * time.Millisecond) // fake time: four idle timeouts
		resp := e.post(legacy(sid), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		resp.Body.Close()
		get.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("session with an open GET expired: %d", resp.StatusCode)
		}
	})
}

// TestBatch: 2025-03-26 batches get one JSON array, or an SSE stream when
// a call sends messages first.
func TestBatch(t *testing.T) {
	e := start(t, nil)
	sid := e.initialize("2025-03-26")
	h := http.Header{"Mcp-Session-Id": {sid}, "Mcp-Protocol-Version": {"2025-03-26"}}
	resp := e.post(h, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}},`+
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},{"jsonrpc":"2.0","id":2,"method":"ping"},{"bad":1}]`)
	msgs := readMessages(t, resp)
	if resp.Header.Get("Content-Type") != "application/json" || len(msgs) != 3 {
		t.Fatalf("batch: %v", msgs)
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		seen[fmt.Sprint(m["id"])] = true
	}
	if !seen["1"] || !seen["2"] || !seen["<nil>"] {
		t.Errorf("answers %v", msgs)
	}
	resp = e.post(h, `[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"chatty","arguments":{"tag":"b","n":2},"_meta":{"progressToken":7}}},{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
	msgs = readMessages(t, resp)
	if resp.Header.Get("Content-Type") != "text/event-stream" || len(msgs) != 6 {
		t.Fatalf("streamed batch: %v", msgs)
	}
	resp = e.post(h, `[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("batch of notifications: %d", resp.StatusCode)
	}
}

// TestDisconnectIsNotCancellation: a legacy call goes on when its POST
// connection drops.
func TestDisconnectIsNotCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newTestServer(t)
		started, dropped, finished := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		server.AddTool(srv, &mcp.Tool{Name: "work", Description: "works"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
			close(started)
			<-dropped // until the server has seen the connection go
			finished <- ctx.Err()
			return "done", nil
		})
		e := startMemWith(t, srv, nil)
		sid := e.initialize("2025-11-25")
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", e.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","arguments":{}}}`))
		req.Header = with(legacy(sid), "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
		go func() { <-started; cancel() }()
		if resp, err := e.client.Do(req); err == nil {
			resp.Body.Close()
		}
		synctest.Wait() // the server has seen the POST go
		close(dropped)
		select {
		case err := <-finished:
			if err != nil {
				t.Fatalf("the call was cancelled: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the call did not finish")
		}
	})
}

// TestHostileInput: garbage does not bring the server down, and a
// duplicate id of a running call is refused.
func TestHostileInput(t *testing.T) {
	srv := newTestServer(t)
	holding, release := make(chan struct{}), make(chan struct{})
	server.AddTool(srv, &mcp.Tool{Name: "hold", Description: "holds"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		close(holding)
		<-release
		return "released", nil
	})
	e := startWith(t, srv, nil)
	sid := e.initialize("2025-11-25")
	for _, body := range []string{"\x00\xff", `{"jsonrpc":"2.0","id":{},"method":"x"}`, `[]`, strings.Repeat("[", 10000), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}`} {
		resp := e.post(legacy(sid), body)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 {
			t.Errorf("%q: %d", body, resp.StatusCode)
		}
	}
	first := make(chan *http.Response)
	go func() {
		first <- e.post(legacy(sid), `{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"hold","arguments":{}}}`)
	}()
	<-holding
	resp := e.post(legacy(sid), `{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"hold","arguments":{}}}`)
	if msgs := readMessages(t, resp); resp.StatusCode != 400 || errCode(msgs[0]) != -32600 {
		t.Errorf("duplicate id: %d %v", resp.StatusCode, msgs)
	}
	close(release)
	if msgs := readMessages(t, <-first); resultText(msgs[0]) != "released" {
		t.Errorf("first: %v", msgs)
	}
}

// TestKeepAlive: a silent SSE stream gets a comment every KeepAlive.
func TestKeepAlive(t *testing.T) {
	e := start(t, &streamable.HandlerOptions{KeepAlive: 30 * time.Millisecond})
	sid := e.initialize("2025-11-25")
	get := e.getSSE(sid, "")
	defer get.Body.Close()
	buf := make([]byte, 64)
	deadline := time.Now().Add(5 * time.Second)
	var got []byte
	for !strings.Contains(string(got), ": keepalive\n\n: keepalive\n\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no keepalive comments: %q", got)
		}
		n, err := get.Body.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
}

// TestInitializeFailure: a failed initialize leaves no session behind.
func TestInitializeFailure(t *testing.T) {
	e := start(t, &streamable.HandlerOptions{MaxSessions: 1})
	for range 3 {
		resp := e.post(nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}`)
		msgs := readMessages(t, resp)
		if resp.StatusCode != 200 || errCode(msgs[0]) != -32602 || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("bad initialize: %d %v %q", resp.StatusCode, msgs, resp.Header.Get("Mcp-Session-Id"))
		}
	}
	// An unknown version in initialize is negotiated, not refused.
	resp := e.post(nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	msgs := readMessages(t, resp)
	if resp.Header.Get("Mcp-Session-Id") == "" || msgs[0]["result"].(map[string]any)["protocolVersion"] != "2025-11-25" {
		t.Fatalf("negotiation: %v", msgs)
	}
}
