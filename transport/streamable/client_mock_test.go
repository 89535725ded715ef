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

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// This file is a scripted MCP server made of raw net/http handlers, in the
// manner of the conformance suite's client mocks: it listens at the bare
// origin (no path), answers JSON or SSE (with priming events), hands out
// session ids, accepts notifications with 202, answers GET with 405
// unless told otherwise, and records every request.

// clMsg is a JSON-RPC message as the mock sees it.
type clMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

func (m clMsg) isCall() bool { return m.Method != "" && len(m.ID) > 0 }

// clHit is one request the mock received.
type clHit struct {
	Method string // the HTTP method
	Path   string
	Header http.Header
	Msg    clMsg // the body of a POST
	At     time.Time
}

// clMock is the scripted server. Its fields are set by the setup function
// of clNewMock, before it serves.
//
// It is served on an in-memory network (memNet): dial it with m.dial, or
// give m.Client to the transport. Tests whose verdict depends on time
// (a retry delay, nothing more arriving) run in a synctest bubble.
type clMock struct {
	t      *testing.T
	URL    string
	Client *http.Client

	// Sessions makes initialize hand out session ids (sess-1, sess-2,
	// ...), required on every later POST: 400 without, 404 for an
	// unknown one.
	Sessions bool
	// Version is the protocolVersion initialize answers; "" echoes the
	// client's.
	Version string
	// SSE answers calls with an SSE stream: a priming event (an id, a
	// retry of 100 ms, empty data), then the response.
	SSE bool
	// Tools is the JSON array tools/list answers.
	Tools string
	// Handle, if set, sees each POST first; it returns false to leave the
	// answer to the default behaviour.
	Handle func(w http.ResponseWriter, r *http.Request, m clMsg) bool
	// GET serves GET requests; nil answers 405.
	GET func(w http.ResponseWriter, r *http.Request)
	// DELETE serves DELETE requests; nil answers 405.
	DELETE func(w http.ResponseWriter, r *http.Request)

	mu      sync.Mutex
	hits    []clHit
	nextSID int
	live    string // the current session id
}

func clNewMock(t *testing.T, setup func(m *clMock)) *clMock {
	t.Helper()
	m := &clMock{t: t, Tools: "[]"}
	if setup != nil {
		setup(m)
	}
	m.Client = newMemNet(t, http.HandlerFunc(m.serve)).Client
	m.URL = "http://mcp.test"
	return m
}

// dial returns a client conn to the mock (opts may be nil).
func (m *clMock) dial(t *testing.T, opts *streamable.ClientOptions) *streamable.ClientConn {
	t.Helper()
	o := streamable.ClientOptions{}
	if opts != nil {
		o = *opts
	}
	o.HTTPClient = m.Client
	return clDial(t, m.URL, &o)
}

func (m *clMock) serve(w http.ResponseWriter, r *http.Request) {
	hit := clHit{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), At: time.Now()}
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &hit.Msg); err != nil {
			m.record(hit)
			clWriteJSON(w, 400, `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`)
			return
		}
	}
	m.record(hit)
	switch r.Method {
	case http.MethodPost:
		m.post(w, r, hit.Msg)
	case http.MethodGet:
		if m.GET != nil {
			m.GET(w, r)
			return
		}
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	case http.MethodDelete:
		if m.DELETE != nil {
			m.DELETE(w, r)
			return
		}
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	default:
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func (m *clMock) record(h clHit) {
	m.mu.Lock()
	m.hits = append(m.hits, h)
	m.mu.Unlock()
}

// post is the default answer to a POST.
func (m *clMock) post(w http.ResponseWriter, r *http.Request, msg clMsg) {
	if m.Handle != nil && m.Handle(w, r, msg) {
		return
	}
	if m.Sessions && msg.Method != "initialize" {
		sid := r.Header.Get("Mcp-Session-Id")
		m.mu.Lock()
		live := m.live
		m.mu.Unlock()
		switch {
		case sid == "":
			clWriteJSON(w, 400, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"}}`)
			return
		case sid != live:
			clWriteJSON(w, 404, `{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}}`)
			return
		}
	}
	if !msg.isCall() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result string
	switch msg.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		json.Unmarshal(msg.Params, &p)
		v := m.Version
		if v == "" {
			v = p.ProtocolVersion
		}
		if m.Sessions {
			m.mu.Lock()
			m.nextSID++
			m.live = fmt.Sprintf("sess-%d", m.nextSID)
			w.Header().Set("Mcp-Session-Id", m.live)
			m.mu.Unlock()
		}
		result = `{"protocolVersion":"` + v + `","capabilities":{"tools":{}},"serverInfo":{"name":"mock","version":"1.0.0"}}`
	case "tools/list":
		result = `{"tools":` + m.Tools + `}`
	case "tools/call":
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(msg.Params, &p)
		result = `{"content":[{"type":"text","text":"called ` + p.Name + `"}]}`
	default:
		result = `{}`
	}
	m.answer(w, msg.ID, result)
}

// answer answers call id with result, as JSON or SSE.
func (m *clMock) answer(w http.ResponseWriter, id json.RawMessage, result string) {
	resp := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`
	if !m.SSE {
		clWriteJSON(w, 200, resp)
		return
	}
	send := clSSE(w)
	send("id: prime-" + string(id) + "\nretry: 100\ndata: \n\n")
	send("id: ev-" + string(id) + "\ndata: " + resp + "\n\n")
}

// expire forgets the live session: its requests get 404.
func (m *clMock) expire() {
	m.mu.Lock()
	m.live = ""
	m.mu.Unlock()
}

// requests returns the requests received with HTTP method method (any if
// ""), and JSON-RPC method rpc (any if "").
func (m *clMock) requests(method, rpc string) []clHit {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []clHit
	for _, h := range m.hits {
		if (method == "" || h.Method == method) && (rpc == "" || h.Msg.Method == rpc) {
			out = append(out, h)
		}
	}
	return out
}

// waitFor waits until cond holds, in the test's synctest bubble: it
// checks whenever the client and the mock have done all they can, and
// lets the fake clock run (a minute at most) for what waits on timers.
func (m *clMock) waitFor(what string, cond func() bool) {
	m.t.Helper()
	for start := time.Now(); ; {
		synctest.Wait()
		if cond() {
			return
		}
		if time.Since(start) > time.Minute {
			m.t.Fatalf("no %s after a minute of fake time", what)
		}
		time.Sleep(10 * time.Millisecond) // fake time
	}
}

func clWriteJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// clSSE starts an SSE answer and returns the function that writes (and
// flushes) raw event text.
func clSSE(w http.ResponseWriter) func(string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	rc.Flush()
	return func(s string) {
		io.WriteString(w, s)
		rc.Flush()
	}
}

// clDial connects a raw client conn to url; the test closes it.
func clDial(t *testing.T, url string, opts *streamable.ClientOptions) *streamable.ClientConn {
	t.Helper()
	conn, err := streamable.NewTransport(url, opts).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn.(*streamable.ClientConn)
}

// clSend writes a raw message (JSON text) on c.
func clSend(t *testing.T, c *streamable.ClientConn, text string) error {
	t.Helper()
	msg, err := jsonrpc.Decode([]byte(text), nil)
	if err != nil {
		t.Fatalf("bad test message %s: %v", text, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Write(ctx, msg)
}

// clRecv reads the next message of c, encoded, within 5 seconds.
func clRecv(t *testing.T, c *streamable.ClientConn) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	b, err := jsonrpc.Encode(msg)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// clExpectQuiet checks that nothing arrives on c for d: in a synctest
// bubble, d of fake time, in which everything that could happen does.
func clExpectQuiet(t *testing.T, c *streamable.ClientConn, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if msg, err := c.Read(ctx); err == nil {
		b, _ := jsonrpc.Encode(msg)
		t.Fatalf("unexpected message %s", b)
	}
}

// clInitialize runs the legacy handshake on a raw conn.
func clInitialize(t *testing.T, c *streamable.ClientConn, version string) string {
	t.Helper()
	if err := clSend(t, c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	res := clRecv(t, c)
	if err := clSend(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatalf("initialized: %v", err)
	}
	return res
}

// clWant fails unless got contains every one of the parts.
func clWant(t *testing.T, got string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(got, p) {
			t.Fatalf("got %s\nwant it to contain %s", got, p)
		}
	}
}

// clMeta is the _meta of a modern request.
const clMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
