package streamable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// clOldServer is a server of the legacy HTTP+SSE transport (2024-11-05):
// GET /sse opens a session's event stream, whose first event names the
// endpoint /messages?session=N; messages POSTed there get 202 and their
// answers come on the stream. Anything else gets 405, or 404.
type clOldServer struct {
	ts      *httptest.Server
	mu      sync.Mutex
	streams map[string]chan string
	next    int
	hits    []string // "METHOD path [rpc method]"
	// noSSE makes GET /sse answer 405 too.
	noSSE bool
	// refuse is the body of the 400 that POST /sse answers; "" answers
	// 405 with a text body.
	refuse string
}

func clNewOldServer(t *testing.T, setup func(s *clOldServer)) *clOldServer {
	s := &clOldServer{streams: make(map[string]chan string)}
	if setup != nil {
		setup(s)
	}
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
	return s
}

func (s *clOldServer) serve(w http.ResponseWriter, r *http.Request) {
	var msg clMsg
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &msg)
	}
	s.mu.Lock()
	s.hits = append(s.hits, strings.TrimSpace(r.Method+" "+r.URL.Path+" "+msg.Method))
	s.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/sse" && !s.noSSE:
		s.stream(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/messages":
		s.message(w, r, msg)
	case r.Method == http.MethodPost && s.refuse != "":
		clWriteJSON(w, 400, s.refuse)
	default:
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func (s *clOldServer) stream(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.next++
	sid := fmt.Sprint(s.next)
	ch := make(chan string, 16)
	s.streams[sid] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.streams, sid)
		s.mu.Unlock()
	}()
	send := clSSE(w)
	send(": hello\n\nevent: endpoint\ndata: /messages?session=" + sid + "\n\n")
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return // the server ends the session
			}
			send(ev)
		case <-r.Context().Done():
			return
		}
	}
}

func (s *clOldServer) message(w http.ResponseWriter, r *http.Request, msg clMsg) {
	s.mu.Lock()
	ch := s.streams[r.URL.Query().Get("session")]
	s.mu.Unlock()
	if ch == nil {
		http.Error(w, "no such session", http.StatusNotFound)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "Accepted")
	if msg.Method == "test/bye" {
		s.mu.Lock()
		delete(s.streams, r.URL.Query().Get("session"))
		s.mu.Unlock()
		close(ch)
		return
	}
	if !msg.isCall() {
		return
	}
	result := `{}`
	switch msg.Method {
	case "initialize":
		result = `{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"0.1"}}`
	case "tools/list":
		result = `{"tools":[{"name":"hello","inputSchema":{"type":"object"}}]}`
	case "tools/call":
		// A request of the server's comes first; the client answers it
		// with a POST.
		ch <- "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n\n"
		result = `{"content":[{"type":"text","text":"hello from 2024"}]}`
	}
	ch <- "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + string(msg.ID) + ",\"result\":" + result + "}\n\n"
}

func (s *clOldServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

// TestClientFallbackToSSE: initialize refused with 405 makes the
// connection try HTTP+SSE: GET the URL, wait for the endpoint, POST
// initialize again there, and carry on over that transport.
func TestClientFallbackToSSE(t *testing.T) {
	s := clNewOldServer(t, nil)
	c := clDial(t, s.ts.URL+"/sse", nil)
	clWant(t, clInitialize(t, c, "2025-11-25"), `"id":0`, `"protocolVersion":"2024-11-05"`)
	if !c.UsesSSE() {
		t.Fatal("the connection did not fall back")
	}
	clSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello"}}`)
	clWant(t, clRecv(t, c), `"id":"s1","method":"ping"`)
	if err := clSend(t, c, `{"jsonrpc":"2.0","id":"s1","result":{}}`); err != nil {
		t.Fatal(err)
	}
	clWant(t, clRecv(t, c), `"id":1`, `hello from 2024`)
	read := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		read <- err
	}()
	clSend(t, c, `{"jsonrpc":"2.0","method":"test/bye"}`) // the server ends the session
	if err := <-read; err != io.EOF {
		t.Errorf("Read at the end of the stream: %v", err)
	}
	c.Close()
	want := []string{"POST /sse initialize", "GET /sse", "POST /messages initialize", "POST /messages notifications/initialized", "POST /messages tools/call", "POST /messages", "POST /messages test/bye"}
	if got := s.requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("requests:\n%v\nwant\n%v", got, want)
	}
}

// TestClientFallbackRealClient: the MCP client's modern probe and its
// initialize are both refused; the transport falls back to HTTP+SSE and
// the session works.
func TestClientFallbackRealClient(t *testing.T) {
	s := clNewOldServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, streamable.NewTransport(s.ts.URL+"/sse", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if sess.ProtocolVersion() != mcp.Version20241105 || sess.ServerInfo().Name != "old" {
		t.Fatalf("version %s, server %v", sess.ProtocolVersion(), sess.ServerInfo())
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "hello from 2024" {
		t.Fatalf("result %q", text)
	}
}

// TestClientNoFallback: the fallback is not tried when the refusal is an
// error of the modern era, nor when it is disabled; when the server has
// no event stream either, initialize fails with both reasons.
func TestClientNoFallback(t *testing.T) {
	t.Run("modern error", func(t *testing.T) {
		s := clNewOldServer(t, func(s *clOldServer) {
			s.refuse = `{"jsonrpc":"2.0","error":{"code":-32020,"message":"Bad Request: MCP-Protocol-Version header is required"}}`
		})
		c := clDial(t, s.ts.URL+"/sse", nil)
		clSend(t, c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
		clWant(t, clRecv(t, c), `"id":0`, `"code":-32020`)
		if got := s.requests(); len(got) != 1 {
			t.Errorf("requests %v", got)
		}
	})
	t.Run("disabled", func(t *testing.T) {
		s := clNewOldServer(t, nil)
		c := clDial(t, s.ts.URL+"/sse", &streamable.ClientOptions{DisableSSEFallback: true})
		clSend(t, c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
		clWant(t, clRecv(t, c), `"id":0`, `HTTP 405 Method Not Allowed`, `"httpStatus":405`)
		if got := s.requests(); len(got) != 1 {
			t.Errorf("requests %v", got)
		}
	})
	t.Run("no event stream", func(t *testing.T) {
		s := clNewOldServer(t, func(s *clOldServer) { s.noSSE = true })
		c := clDial(t, s.ts.URL+"/sse", nil)
		clSend(t, c, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
		clWant(t, clRecv(t, c), `"id":0`, `HTTP 405`, `the HTTP+SSE transport (2024-11-05) is not offered either`)
		if c.UsesSSE() {
			t.Error("UsesSSE after a failed fallback")
		}
	})
}

// TestClientLegacyOnlyServer runs the MCP client against a server of the
// stateful era only (2025-11-25, like the TypeScript SDK's stateful
// server): the modern probe gets 400 without a session, the client falls
// back to initialize, calls go over SSE answers, and Close deletes the
// session.
func TestClientLegacyOnlyServer(t *testing.T) {
	m := clNewMock(t, func(m *clMock) {
		m.Sessions = true
		m.SSE = true
		m.Tools = `[{"name":"add_numbers","description":"adds","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}}]`
		m.DELETE = func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, streamable.NewTransport(m.URL, &streamable.ClientOptions{HTTPClient: m.Client}))
	if err != nil {
		t.Fatal(err)
	}
	if sess.IsModern() || sess.ProtocolVersion() != mcp.LatestLegacy {
		t.Fatalf("version %s", sess.ProtocolVersion())
	}
	var names []string
	for tool, err := range sess.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "add_numbers", Arguments: json.RawMessage(`{"a":1,"b":2}`)})
	if err != nil || len(names) != 1 {
		t.Fatalf("tools %v, call %v", names, err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "called add_numbers" {
		t.Fatalf("result %q", text)
	}
	sess.Close()
	if d := m.requests("DELETE", ""); len(d) != 1 || d[0].Header.Get("Mcp-Session-Id") != "sess-1" {
		t.Errorf("DELETE: %+v", d)
	}
}

// TestClientFallbackToHandler: a real server behind the HTTP+SSE Handler
// of package transport/sse (2024-11-05 only) is reached through the
// Streamable HTTP transport, which falls back to HTTP+SSE when the
// server refuses initialize.
func TestClientFallbackToHandler(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "real", Version: "1.0.0"}, nil)
	defer srv.Close()
	err := server.AddTool(srv, &mcp.Tool{Name: "echo", Description: "echoes"}, func(ctx context.Context, r *server.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	h := sse.NewHandler(srv, nil)
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	ts := httptest.NewServer(mux)
	defer ts.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{Version: mcp.Version20251125})
	sess, err := c.Connect(ctx, streamable.NewTransport(ts.URL+"/sse", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if sess.ProtocolVersion() != mcp.Version20251125 || sess.ServerInfo().Name != "real" {
		t.Fatalf("version %s, server %v", sess.ProtocolVersion(), sess.ServerInfo())
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"over HTTP+SSE"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "over HTTP+SSE" {
		t.Fatalf("result %q", text)
	}
}
