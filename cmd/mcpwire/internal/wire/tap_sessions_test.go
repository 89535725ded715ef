package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// trackedSessions returns how many sessions the tap keeps a tracker for.
func trackedSessions(tap *HTTPTap) int {
	tap.once.Do(tap.init)
	return tap.sessions.len()
}

// TestHTTPTapTracksOnlyAcceptedSessions: the tap keeps a frame tracker
// for a session that the upstream accepted, until it ends; a request
// with a session id that the upstream refuses costs nothing that lasts.
// The tap kept a tracker for every session id it saw (2,000 ids, 2,000
// trackers), deleted ones included.
func TestHTTPTapTracksOnlyAcceptedSessions(t *testing.T) {
	srv := echoServer("")
	h := streamable.NewHandler(srv, nil)
	up := httptest.NewServer(h)
	defer func() { up.Close(); h.Close(); srv.Close() }()
	u, _ := url.Parse(up.URL)
	var rec records
	tap := &HTTPTap{Upstream: u, Record: rec.add}
	ts := httptest.NewServer(tap)
	defer ts.Close()

	const ids = 2000
	for i := range ids {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set(mcp.HeaderSessionID, fmt.Sprintf("made-up-%d", i))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("a made-up session: %d, want 404", resp.StatusCode)
		}
	}
	if n := trackedSessions(tap); n != 0 {
		t.Errorf("after %d requests with session ids the upstream refused, the tap tracks %d sessions", ids, n)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{Version: mcp.LatestLegacy})
	sess, err := c.Connect(ctx, streamable.NewTransport(ts.URL+"/mcp", nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	if n := trackedSessions(tap); n != 1 {
		t.Errorf("with one session open, the tap tracks %d", n)
	}
	sess.Close() // DELETE
	if n := trackedSessions(tap); n != 0 {
		t.Errorf("after the session's DELETE, the tap tracks %d sessions", n)
	}
	var calls int
	for _, r := range rec.get() {
		if r.From == "server" && r.Method == "tools/call" && r.Session != "" {
			calls++
		}
	}
	if calls != 1 {
		t.Errorf("the session's tools/call answer was recorded %d times with its method and session, want 1", calls)
	}
}

// TestHTTPTapTracksALegacySSESession: over the legacy HTTP+SSE transport,
// the session the endpoint event names is tracked while its stream is
// open, so that a response on the stream is recorded with the method and
// latency of the request POSTed for it; the session is forgotten when
// the stream ends.
func TestHTTPTapTracksALegacySSESession(t *testing.T) {
	srv := echoServer("")
	h := sse.NewHandler(srv, nil)
	up := httptest.NewServer(h)
	defer func() { up.Close(); h.Close(); srv.Close() }()
	u, _ := url.Parse(up.URL)
	var rec records
	tap := &HTTPTap{Upstream: u, Record: rec.add}
	ts := httptest.NewServer(tap)
	defer ts.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{Version: mcp.LatestLegacy})
	sess, err := c.Connect(ctx, sse.NewTransport(ts.URL+"/sse", nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)}); err != nil {
		t.Fatal(err)
	}
	if n := trackedSessions(tap); n != 1 {
		t.Errorf("with one legacy session open, the tap tracks %d", n)
	}
	sess.Close()
	ts.Close() // waits for the tap to see the end of the stream
	if n := trackedSessions(tap); n != 0 {
		t.Errorf("after the legacy session's stream ended, the tap tracks %d sessions", n)
	}
	var answers []string
	for _, r := range rec.get() {
		if r.From == "server" && r.Message != nil {
			answers = append(answers, r.Method)
		}
	}
	if !slices.Contains(answers, "initialize") || !slices.Contains(answers, "tools/call") {
		t.Errorf("the server frames were recorded with the methods %q, want initialize and tools/call among them", answers)
	}
}

// TestSessionTableIsBounded: a session leaves the table after idle time,
// and a full table makes room for a new session by dropping the least
// recently used one, saying so in the log.
func TestSessionTableIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logged strings.Builder
		s := sessionTable{max: 3, idle: time.Minute, log: slog.New(slog.NewTextHandler(&logged, nil))}
		tr := func() *transport.FrameTracker {
			return transport.NewFrameTracker(transport.ObserverFunc(func(*transport.Frame) {}), "", "")
		}
		a, b, c, d := tr(), tr(), tr(), tr()
		s.add("a", a)
		s.add("b", b)
		s.add("c", c)
		time.Sleep(30 * time.Second)
		if s.get("a") != a { // a is now the most recently used
			t.Fatal("a is not tracked")
		}
		s.add("d", d) // the table is full: b, the least recently used, goes
		if s.get("b") != nil || s.get("c") != c || s.get("d") != d || s.len() != 3 {
			t.Errorf("after a fourth session: b %v, c %v, d %v, %d tracked", s.get("b"), s.get("c") == c, s.get("d") == d, s.len())
		}
		if !strings.Contains(logged.String(), "tracking as many sessions as it may") || !strings.Contains(logged.String(), "session=b") {
			t.Errorf("the log says %q", logged.String())
		}
		time.Sleep(61 * time.Second) // idle since the checks above
		if n := s.len(); n != 3 {
			t.Errorf("expiry before any lookup: %d tracked", n)
		}
		if s.get("a") != nil || s.len() != 0 {
			t.Errorf("after a minute idle, %d sessions tracked", s.len())
		}
		s.add("e", a)
		s.remove("e", b) // not its tracker: stays
		if s.len() != 1 {
			t.Error("remove dropped a session of another tracker")
		}
		s.remove("e", nil)
		if s.len() != 0 {
			t.Error("remove kept the session")
		}
	})
}
