package streamable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// clRetryMock imitates the sse-retry scenario of the conformance suite:
// tools/call answers an SSE stream with one priming event (id event-N,
// retry 500, empty data) and closes it 50 ms later without the result; a
// GET gets a priming event and, if a call is pending, the result.
type clRetryMock struct {
	*clMock
	mu       sync.Mutex
	eventN   int
	pending  json.RawMessage // the id of the call awaiting its result
	closedAt time.Time       // when the tools/call stream was closed
}

func clNewRetryMock(t *testing.T, version string) *clRetryMock {
	rm := &clRetryMock{}
	rm.clMock = clNewMock(t, func(m *clMock) {
		m.Sessions = true
		m.Version = version
		m.Tools = `[{"name":"test_reconnection","description":"closes its stream","inputSchema":{"type":"object","properties":{},"required":[]}}]`
		m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
			if msg.Method != "tools/call" {
				return false
			}
			rm.mu.Lock()
			rm.pending = msg.ID
			rm.eventN++
			id := rm.eventN
			rm.mu.Unlock()
			clSSE(w)(fmt.Sprintf("id: event-%d\nretry: 500\ndata: \n\n", id))
			time.Sleep(50 * time.Millisecond) // fake time: the stream stays open a while
			rm.mu.Lock()
			rm.closedAt = time.Now()
			rm.mu.Unlock()
			return true // the handler returns: the stream ends without the result
		}
		m.GET = func(w http.ResponseWriter, r *http.Request) {
			// Like the suite's mock, decide what to send before the
			// client sees the answer.
			rm.mu.Lock()
			rm.eventN++
			events := fmt.Sprintf("id: event-%d\nretry: 500\ndata: \n\n", rm.eventN)
			if rm.pending != nil {
				rm.eventN++
				events += fmt.Sprintf("event: message\nid: event-%d\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Reconnection test completed successfully\"}]}}\n\n", rm.eventN, rm.pending)
				rm.pending = nil
			}
			rm.mu.Unlock()
			clSSE(w)(events)
			<-r.Context().Done()
		}
	})
	return rm
}

// TestClientSSERetry runs the real MCP client through the sse-retry
// scenario, for both versions the suite's releases answer: the client
// waits the retry delay after the stream closes, resumes with GET (not a
// new POST) and Last-Event-ID, takes the result from that stream, and
// sends no further GET.
func TestClientSSERetry(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2025-03-26"} {
		t.Run(version, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := clNewRetryMock(t, version)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				sess, err := client.New(mcp.Implementation{Name: "conformance", Version: "1"}, nil).
					Connect(ctx, streamable.NewTransport(m.URL, &streamable.ClientOptions{HTTPClient: m.Client}))
				if err != nil {
					t.Fatal(err)
				}
				defer sess.Close()
				if sess.ProtocolVersion() != mcp.Version(version) || sess.IsModern() {
					t.Fatalf("negotiated %s (modern %v)", sess.ProtocolVersion(), sess.IsModern())
				}
				res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "test_reconnection"})
				if err != nil {
					t.Fatal(err)
				}
				if text := res.Content[0].(*mcp.TextContent).Text; text != "Reconnection test completed successfully" {
					t.Fatalf("result %q", text)
				}
				time.Sleep(10 * time.Second) // fake time: any further GET would have come by now
				gets := m.requests("GET", "")
				if len(gets) != 2 {
					t.Fatalf("%d GETs, want 2 (the standalone stream and the resumption)", len(gets))
				}
				last := gets[1]
				m.mu.Lock()
				delay := last.At.Sub(m.closedAt)
				m.mu.Unlock()
				if delay < 450*time.Millisecond || delay > 700*time.Millisecond {
					t.Errorf("reconnected %v after the close, want 450-700ms", delay)
				}
				if id := last.Header.Get("Last-Event-ID"); id != "event-2" {
					t.Errorf("Last-Event-ID %q, want event-2", id)
				}
				if gets[0].Header.Get("Last-Event-ID") != "" || last.Header.Get("Mcp-Session-Id") != "sess-1" || last.Header.Get("Mcp-Protocol-Version") != version {
					t.Errorf("GET headers: %v / %v", gets[0].Header, last.Header)
				}
				if n := len(m.requests("POST", "tools/call")); n != 1 {
					t.Errorf("tools/call POSTed %d times", n)
				}
			})
		})
	}
}

// TestClientResumeAfterDrop: a response stream that breaks mid-way (the
// connection is cut) is resumed with GET and Last-Event-ID; every event
// arrives exactly once, in order.
func TestClientResumeAfterDrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		event := func(i int) string {
			return fmt.Sprintf("id: e%d\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":%d}}\n\n", i, i)
		}
		m := clNewMock(t, func(m *clMock) {
			m.Sessions = true
			m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
				if msg.Method != "tools/call" {
					return false
				}
				send := clSSE(w)
				send("id: e0\nretry: 20\ndata: \n\n")
				for i := 1; i <= 3; i++ {
					send(event(i))
				}
				send("id: e4\ndata: {\"jsonrpc\":\"2.0\",\"meth") // cut in the middle of an event
				panic(http.ErrAbortHandler)
			}
			m.GET = func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Last-Event-ID") == "" {
					http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
					return
				}
				send := clSSE(w)
				if r.Header.Get("Last-Event-ID") != "e3" {
					return
				}
				for i := 4; i <= 6; i++ {
					send(event(i))
				}
				send("id: e7\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\n")
			}
		})
		c := m.dial(t, nil)
		clInitialize(t, c, "2025-11-25")
		clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
		for i := 1; i <= 6; i++ {
			clWant(t, clRecv(t, c), fmt.Sprintf(`"progress":%d}`, i))
		}
		clWant(t, clRecv(t, c), `"id":1,"result":{"content":[]}`)
		clExpectQuiet(t, c, 100*time.Millisecond)
		var resumes []clHit
		for _, g := range m.requests("GET", "") {
			if g.Header.Get("Last-Event-ID") != "" {
				resumes = append(resumes, g)
			}
		}
		if len(resumes) != 1 || resumes[0].Header.Get("Last-Event-ID") != "e3" || resumes[0].Header.Get("Mcp-Session-Id") != "sess-1" {
			t.Fatalf("resumptions: %+v", resumes)
		}
	})
}

// TestClientResumeGivesUp: attempts that bring nothing new are bounded by
// MaxReconnects; a refused resumption fails the call at once; a modern
// stream is never resumed; a stream without event ids cannot be.
func TestClientResumeGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := clNewMock(t, func(m *clMock) {
			m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
				if msg.Method != "tools/call" {
					return false
				}
				var p struct{ Name string }
				json.Unmarshal(msg.Params, &p)
				send := clSSE(w)
				if p.Name != "no-ids" {
					send("id: " + p.Name + "-0\nretry: 10\ndata: \n\n")
				}
				return true
			}
			m.GET = func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Last-Event-ID") == "refused-0" {
					http.Error(w, "gone", http.StatusMethodNotAllowed)
					return
				}
				clSSE(w) // an empty stream: no progress
			}
		})
		c := m.dial(t, &streamable.ClientOptions{MaxReconnects: 2})
		clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"empty"}}`)
		clWant(t, clRecv(t, c), `"id":1,"error"`, `3 attempts to resume it failed`)
		clSend(t, c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"refused"}}`)
		clWant(t, clRecv(t, c), `"id":2,"error"`, `resuming the stream of tools/call (id 2) failed`, `HTTP 405`)
		clSend(t, c, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"modern",`+clMeta+`}}`)
		clWant(t, clRecv(t, c), `"id":3,"error"`, `the modern era has no resumption`)
		clSend(t, c, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no-ids"}}`)
		clWant(t, clRecv(t, c), `"id":4,"error"`, `no event id to resume from`)
		resumes := map[string]int{}
		for _, g := range m.requests("GET", "") {
			resumes[g.Header.Get("Last-Event-ID")]++
		}
		if resumes["empty-0"] != 3 || resumes["refused-0"] != 1 || resumes["modern-0"] != 0 || len(resumes) != 2 {
			t.Errorf("resumption GETs by Last-Event-ID: %v", resumes)
		}
	})
}

// TestClientAnsweredElsewhere: when the response of a call whose stream
// ended arrives on another stream (the standalone one) before the retry
// delay has passed, the client does not resume.
func TestClientAnsweredElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pending := make(chan json.RawMessage, 1)
		m := clNewMock(t, func(m *clMock) {
			m.Sessions = true
			m.Handle = func(w http.ResponseWriter, r *http.Request, msg clMsg) bool {
				if msg.Method != "tools/call" {
					return false
				}
				clSSE(w)("id: c0\nretry: 300\ndata: \n\n")
				pending <- msg.ID
				return true
			}
			m.GET = func(w http.ResponseWriter, r *http.Request) {
				send := clSSE(w)
				if r.Header.Get("Last-Event-ID") != "" {
					return
				}
				select {
				case id := <-pending:
					time.Sleep(50 * time.Millisecond) // fake time: well within the retry delay
					send("id: s1\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + string(id) + ",\"result\":{}}\n\n")
				case <-r.Context().Done():
					return
				}
				<-r.Context().Done()
			}
		})
		c := m.dial(t, nil)
		clInitialize(t, c, "2025-11-25")
		m.waitFor("the standalone GET", func() bool { return len(m.requests("GET", "")) == 1 })
		clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
		clWant(t, clRecv(t, c), `"id":1,"result":{}`)
		time.Sleep(10 * time.Second) // fake time: a resumption would have come by now
		if n := len(m.requests("GET", "")); n != 1 {
			t.Errorf("%d GETs, want only the standalone one", n)
		}
	})
}
