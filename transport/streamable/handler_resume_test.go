package streamable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

func resumable(t *testing.T) *env {
	return start(t, resumableOptions())
}

// resumableOptions are the handler options of resumable.
func resumableOptions() *streamable.HandlerOptions {
	return &streamable.HandlerOptions{EventStore: streamable.NewMemoryEventStore(nil), Retry: 500 * time.Millisecond}
}

// getSSE opens a GET stream of session sid, resuming after last if set.
func (e *env) getSSE(sid, last string) *http.Response {
	e.t.Helper()
	h := with(legacy(sid), "Accept", "text/event-stream")
	if last != "" {
		h["Last-Event-Id"] = []string{last}
	}
	return e.do(http.MethodGet, h, "")
}

// collector gathers the messages of a resumed call and checks that every
// event id is new.
type collector struct {
	t        *testing.T
	ids      map[string]bool
	progress map[float64]int
	logs     map[string]int
	result   string
}

func newCollector(t *testing.T) *collector {
	return &collector{t: t, ids: map[string]bool{}, progress: map[float64]int{}, logs: map[string]int{}}
}

func (c *collector) add(ev sse.Event) {
	c.t.Helper()
	if ev.ID == "" || c.ids[ev.ID] {
		c.t.Errorf("event id %q missing or repeated", ev.ID)
	}
	c.ids[ev.ID] = true
	if len(ev.Data) == 0 {
		return
	}
	m := decode(c.t, ev.Data, "")
	p, _ := m["params"].(map[string]any)
	switch m["method"] {
	case "notifications/progress":
		c.progress[p["progress"].(float64)]++
	case "notifications/message":
		c.logs[fmt.Sprint(p["data"])]++
	case nil:
		if c.result != "" {
			c.t.Errorf("second result %v", m)
		}
		c.result = resultText(m)
	}
}

// TestResumeAfterDrop drops the POST stream of a running call after a few
// events and resumes it with GET and Last-Event-ID: every message arrives
// exactly once, the result included.
func TestResumeAfterDrop(t *testing.T) {
	e := resumable(t)
	sid := e.initialize("2025-11-25")
	const n = 10
	resp := e.post(legacy(sid), fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"chatty","arguments":{"tag":"r","n":%d,"pauseMs":20},"_meta":{"progressToken":"tok"}}}`, n))
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	r := sse.NewReader(resp.Body, 1<<20)
	c := newCollector(t)
	prime, err := r.Next()
	if err != nil || prime.ID == "" || len(prime.Data) != 0 || prime.Retry != 500 {
		t.Fatalf("priming event %+v %v", prime, err)
	}
	c.add(prime)
	for range 3 {
		ev, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		c.add(ev)
	}
	resp.Body.Close() // the connection drops mid-call
	get := e.getSSE(sid, r.LastID)
	if get.StatusCode != 200 {
		t.Fatalf("resume: %d", get.StatusCode)
	}
	r2 := sse.NewReader(get.Body, 1<<20)
	for {
		ev, err := r2.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		c.add(ev)
	}
	get.Body.Close()
	for i := 1; i <= n; i++ {
		if c.progress[float64(i)] != 1 || c.logs[fmt.Sprintf("r:%d", i)] != 1 {
			t.Errorf("step %d: progress %v logs %v", i, c.progress, c.logs)
		}
	}
	if c.result != "done r" {
		t.Errorf("result %q", c.result)
	}
}

// TestServerClosesStream: the tool closes its stream (CloseStream); the
// client polls with GET and Last-Event-ID and gets what came after,
// whether it comes back before the call ends or after.
func TestServerClosesStream(t *testing.T) {
	for _, pollAfter := range []time.Duration{0, 300 * time.Millisecond} {
		t.Run(pollAfter.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := startMem(t, resumableOptions())
				sid := e.initialize("2025-11-25")
				resp := e.post(legacy(sid), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reconnect","arguments":{"delayMs":100}}}`)
				r := sse.NewReader(resp.Body, 1<<20)
				prime, err := r.Next()
				if err != nil || prime.ID == "" || prime.Retry != 500 || len(prime.Data) != 0 {
					t.Fatalf("priming %+v %v", prime, err)
				}
				if ev, err := r.Next(); err != io.EOF {
					t.Fatalf("the stream was not closed: %+v %v", ev, err)
				}
				resp.Body.Close()
				time.Sleep(pollAfter) // fake time: before the call ends (0), or after (300ms > 100ms)
				get := e.getSSE(sid, r.LastID)
				msgs := readMessages(t, get)
				if len(msgs) != 2 || msgs[0]["method"] != "notifications/message" || resultText(msgs[1]) != "closed=true" {
					t.Fatalf("after polling: %v", msgs)
				}
				// The stream is complete: polling again replays nothing new.
				again := readMessages(t, e.getSSE(sid, msgs[1]["$event"].(string)))
				if len(again) != 0 {
					t.Errorf("second poll: %v", again)
				}
			})
		})
	}
}

// TestCloseStreamWithoutStore: without an event store a call cannot hand
// over to polling; CloseStream reports false and the answer is JSON.
func TestCloseStreamWithoutStore(t *testing.T) {
	e := start(t, nil)
	sid := e.initialize("2025-11-25")
	resp := e.post(legacy(sid), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reconnect","arguments":{}}}`)
	msgs := readMessages(t, resp)
	if len(msgs) != 2 || resultText(msgs[1]) != "closed=false" {
		t.Fatalf("got %v", msgs)
	}
	// A modern request cannot either.
	resp = e.post(modern("tools/call", "reconnect"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reconnect","arguments":{},`+validMeta+`}}`)
	if msgs := readMessages(t, resp); resultText(msgs[0]) != "closed=false" {
		t.Fatalf("modern: %v", msgs)
	}
}

// TestResumeTakesOver: a GET with Last-Event-ID takes a stream over from
// a POST connection the server still holds.
func TestResumeTakesOver(t *testing.T) {
	srv := newTestServer(t)
	step := make(chan struct{})
	server.AddTool(srv, &mcp.Tool{Name: "stepper", Description: "steps"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		r.Log(ctx, mcp.LevelInfo, "s", "one")
		<-step
		r.Log(ctx, mcp.LevelInfo, "s", "two")
		return "stepped", nil
	})
	e := startWith(t, srv, &streamable.HandlerOptions{EventStore: streamable.NewMemoryEventStore(nil)})
	sid := e.initialize("2025-11-25")
	post := e.post(legacy(sid), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stepper","arguments":{}}}`)
	r := sse.NewReader(post.Body, 1<<20)
	r.Next() // priming
	if ev, err := r.Next(); err != nil || !strings.Contains(string(ev.Data), "one") {
		t.Fatalf("first event %q %v", ev.Data, err)
	}
	get := e.getSSE(sid, r.LastID)
	// The POST stream ends: the GET has it now.
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("the POST stream goes on: %v", err)
	}
	post.Body.Close()
	close(step)
	msgs := readMessages(t, get)
	if len(msgs) != 2 || resultText(msgs[1]) != "stepped" {
		t.Fatalf("GET: %v", msgs)
	}
}

// TestResumeStandalone: the standalone stream's events have ids too, and
// a GET with the last one replays what came after.
func TestResumeStandalone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startMem(t, resumableOptions())
		sid := e.initialize("2025-11-25")
		get := e.getSSE(sid, "")
		r := sse.NewReader(get.Body, 1<<20)
		add := func(name string) {
			server.AddTool(e.srv, &mcp.Tool{Name: name, Description: "x"}, func(context.Context, *server.Request, struct{}) (string, error) { return "", nil })
		}
		add("a")
		ev, err := r.Next()
		if err != nil || ev.ID == "" {
			t.Fatalf("standalone event %+v %v", ev, err)
		}
		get.Body.Close()
		synctest.Wait() // the server has noticed the GET is gone
		// Two log messages (list changes would be coalesced into one).
		for s := range e.srv.Sessions() {
			for _, m := range []string{`"b"`, `"c"`} {
				if err := s.Log(context.Background(), &mcp.LoggingMessageParams{Level: mcp.LevelInfo, Data: json.RawMessage(m)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		get = e.getSSE(sid, ev.ID)
		r = sse.NewReader(get.Body, 1<<20)
		for _, m := range []string{`"b"`, `"c"`} {
			if ev, err := r.Next(); err != nil || !strings.Contains(string(ev.Data), m) {
				t.Fatalf("replayed %+v %v", ev, err)
			}
		}
		get.Body.Close()
	})
}

// TestResumeErrors: malformed and unknown event ids get 400.
func TestResumeErrors(t *testing.T) {
	e := resumable(t)
	sid := e.initialize("2025-11-25")
	for _, last := range []string{"garbage", "7_1", "1_999", "_1"} {
		resp := e.getSSE(sid, last)
		msgs := readMessages(t, resp)
		if resp.StatusCode != 400 || errCode(msgs[0]) != -32000 {
			t.Errorf("Last-Event-ID %q: %d %v", last, resp.StatusCode, msgs)
		}
	}
}

// TestPrimingOnEveryCall: with a store, every legacy call stream starts
// with a priming event, initialize included.
func TestPrimingOnEveryCall(t *testing.T) {
	e := resumable(t)
	resp := e.post(nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %q", resp.Header.Get("Content-Type"))
	}
	r := sse.NewReader(resp.Body, 1<<20)
	if ev, err := r.Next(); err != nil || ev.ID == "" || len(ev.Data) != 0 || ev.Retry < 0 {
		t.Fatalf("priming %+v %v", ev, err)
	}
	if ev, err := r.Next(); err != nil || !strings.Contains(string(ev.Data), `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("result %q %v", ev.Data, err)
	}
	resp.Body.Close()
}

// TestHTTP2QuietStream: over HTTP/2, an SSE stream that stays silent for
// longer than the write timeout is not reset.
func TestHTTP2QuietStream(t *testing.T) {
	srv := newTestServer(t)
	defer srv.Close()
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{WriteTimeout: 50 * time.Millisecond, KeepAlive: -1})
	defer h.Close()
	ts := httptest.NewUnstartedServer(h)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()
	e := &env{t: t, srv: srv, h: h, ts: ts, url: ts.URL, client: ts.Client()}
	resp := e.post(modern("tools/call", "chatty"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chatty","arguments":{"tag":"q","n":2,"pauseMs":300},"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if resp.ProtoMajor != 2 {
		t.Fatalf("protocol %s", resp.Proto)
	}
	msgs := readMessages(t, resp)
	if len(msgs) != 3 || resultText(msgs[2]) != "done q" {
		t.Fatalf("got %v", msgs)
	}
}
