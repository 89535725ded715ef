package sse_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/sse"
)

// clOld is a server of the HTTP+SSE transport (2024-11-05) made of raw
// handlers: GET /sse opens a session's stream, whose first event names
// the endpoint; messages POSTed there get 202, and calls are answered on
// the stream.
type clOld struct {
	ts       *httptest.Server
	endpoint func(sid string) string // the data of the endpoint event
	// before, if set, is written on each stream before the endpoint event.
	before  string
	mu      sync.Mutex
	streams map[string]chan string
	next    int
	posts   []string
}

func clNewOld(t *testing.T, setup func(s *clOld)) *clOld {
	s := &clOld{streams: make(map[string]chan string)}
	s.endpoint = func(sid string) string { return "/messages?session=" + sid }
	if setup != nil {
		setup(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", s.stream)
	mux.HandleFunc("POST /messages", s.message)
	s.ts = httptest.NewServer(mux)
	t.Cleanup(func() {
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
	return s
}

func (s *clOld) stream(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.next++
	sid := fmt.Sprint(s.next)
	ch := make(chan string, 16)
	s.streams[sid] = ch
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	rc := http.NewResponseController(w)
	io.WriteString(w, s.before)
	if s.endpoint != nil {
		io.WriteString(w, "event: endpoint\ndata: "+s.endpoint(sid)+"\n\n")
	}
	rc.Flush()
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return // the server ends the session
			}
			io.WriteString(w, ev)
			rc.Flush()
		case <-r.Context().Done():
			s.mu.Lock()
			delete(s.streams, sid)
			s.mu.Unlock()
			return
		}
	}
}

// send writes raw event text on session sid's stream.
func (s *clOld) send(sid, ev string) {
	s.mu.Lock()
	ch := s.streams[sid]
	s.mu.Unlock()
	ch <- ev
}

func (s *clOld) message(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	json.Unmarshal(body, &msg)
	sid := r.URL.Query().Get("session")
	s.mu.Lock()
	s.posts = append(s.posts, msg.Method)
	ch := s.streams[sid]
	s.mu.Unlock()
	switch {
	case ch == nil:
		http.Error(w, "no such session", http.StatusNotFound)
		return
	case msg.Method == "refuse":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"error":{"code":-32602,"message":"Invalid params: refused"}}`)
		return
	case msg.Method == "crash":
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	io.WriteString(w, "Accepted")
	if len(msg.ID) == 0 || msg.Method == "" {
		return // a notification or a response
	}
	var out string
	switch msg.Method {
	case "initialize":
		out = `"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"0.1"}}`
	case "tools/list":
		out = `"result":{"tools":[{"name":"hello","inputSchema":{"type":"object"}}]}`
	case "tools/call":
		out = `"result":{"content":[{"type":"text","text":"hello from 2024"}]}`
	case "ping":
		out = `"result":{}`
	default:
		out = `"error":{"code":-32601,"message":"Method not found"}`
	}
	ch <- "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":" + string(msg.ID) + "," + out + "}\n\n"
}

func clConnect(t *testing.T, url string, opts *sse.ClientOptions) *sse.ClientConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := sse.NewTransport(url, opts).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn.(*sse.ClientConn)
}

func clWrite(t *testing.T, c *sse.ClientConn, text string) error {
	t.Helper()
	msg, err := jsonrpc.Decode([]byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c.Write(context.Background(), msg)
}

func clRead(t *testing.T, c *sse.ClientConn) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, err := c.Read(ctx)
	if err != nil {
		return "", err
	}
	b, _ := jsonrpc.Encode(msg)
	return string(b), nil
}

// TestClientConversation: Connect waits for the endpoint event (comments
// and other events before it are skipped) and resolves it against the
// URL; messages are POSTed there and the answers come out of Read; Close
// ends the stream, and Read then returns io.EOF.
func TestClientConversation(t *testing.T) {
	s := clNewOld(t, func(s *clOld) { s.before = ": hi\n\nevent: noise\ndata: x\n\n" })
	c := clConnect(t, s.ts.URL+"/sse", &sse.ClientOptions{Header: http.Header{"Authorization": {"Bearer t"}}})
	if c.Endpoint() != s.ts.URL+"/messages?session=1" {
		t.Fatalf("endpoint %q", c.Endpoint())
	}
	if err := clWrite(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`); err != nil {
		t.Fatal(err)
	}
	if got, err := clRead(t, c); err != nil || !strings.Contains(got, `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize: %s %v", got, err)
	}
	s.send("1", "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n\n")
	if got, _ := clRead(t, c); got != `{"jsonrpc":"2.0","id":"s1","method":"ping"}` {
		t.Fatalf("server request: %s", got)
	}
	if err := clWrite(t, c, `{"jsonrpc":"2.0","id":"s1","result":{}}`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	c.Close()
	if err := <-done; err != io.EOF {
		t.Errorf("Read after Close: %v", err)
	}
}

// TestClientErrors: a POST refused with a JSON-RPC error body returns
// that error; another refusal names the status; an event that is not a
// valid message is reported and reading goes on; the end of the stream
// is io.EOF.
func TestClientErrors(t *testing.T) {
	s := clNewOld(t, nil)
	c := clConnect(t, s.ts.URL+"/sse", nil)
	var e *jsonrpc.Error
	if err := clWrite(t, c, `{"jsonrpc":"2.0","id":1,"method":"refuse"}`); !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("refused: %v", err)
	}
	if err := clWrite(t, c, `{"jsonrpc":"2.0","id":2,"method":"crash"}`); err == nil || !strings.Contains(err.Error(), "HTTP 500 Internal Server Error") || !strings.Contains(err.Error(), `"boom"`) {
		t.Errorf("crash: %v", err)
	}
	s.send("1", "data: {not json\n\n")
	var de *jsonrpc.DecodeError
	if _, err := clRead(t, c); !errors.As(err, &de) {
		t.Errorf("invalid event: %v", err)
	}
	s.send("1", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n")
	if got, err := clRead(t, c); err != nil || !strings.Contains(got, "list_changed") {
		t.Errorf("after an invalid event: %s %v", got, err)
	}
	s.mu.Lock()
	close(s.streams["1"])
	s.mu.Unlock()
	if _, err := clRead(t, c); err != io.EOF {
		t.Errorf("after the end of the stream: %v", err)
	}
}

// TestClientConnectFails: no event stream, an endpoint on another origin,
// no endpoint in time, an event over the limit.
func TestClientConnectFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(s *clOld)
		url   string
		opts  *sse.ClientOptions
		want  string
	}{
		{"not found", nil, "/nope", nil, "HTTP 404"},
		{"other origin", func(s *clOld) { s.endpoint = func(string) string { return "http://evil.example.com/messages" } }, "/sse", nil, "not on the origin"},
		{"no endpoint", func(s *clOld) { s.endpoint = nil }, "/sse", &sse.ClientOptions{ConnectTimeout: 100 * time.Millisecond}, "no endpoint event"},
		{"too large", func(s *clOld) { s.before = "data: " + strings.Repeat("x", 10000) + "\n\n" }, "/sse", &sse.ClientOptions{Limits: jsonrpc.Limits{MaxMessageSize: 100}}, "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := clNewOld(t, tc.setup)
			_, err := sse.NewTransport(s.ts.URL+tc.url, tc.opts).Connect(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := sse.NewTransport("ftp://x", nil).Connect(context.Background()); err == nil {
		t.Error("Connect accepted ftp://")
	}
}

// TestClientRealClient runs the MCP client over the transport: its modern
// probe gets an error, and it falls back to initialize.
func TestClientRealClient(t *testing.T) {
	s := clNewOld(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, sse.NewTransport(s.ts.URL+"/sse", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if sess.ProtocolVersion() != mcp.Version20241105 {
		t.Fatalf("version %s", sess.ProtocolVersion())
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "hello from 2024" {
		t.Fatalf("result %q", text)
	}
	if err := sess.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestClientAgainstHandler runs the MCP client over this transport against
// the package's Handler serving a real server: tool calls, and a question
// of the server (roots/list) answered by the client. Asked for 2024-11-05,
// the client runs a legacy session, and the question is a request of the
// server on the stream; left to its default, the client's modern probe is
// answered by the dual-era server, and the question is an input_required
// round.
func TestClientAgainstHandler(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "real", Version: "1.0.0"}, nil)
	defer srv.Close()
	err := server.AddTool(srv, &mcp.Tool{Name: "roots", Description: "counts the client's roots"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		res, err := r.ListRoots(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d roots, the first %s", len(res.Roots), res.Roots[0].URI), nil
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

	for _, version := range []mcp.Version{mcp.Version20241105, ""} {
		t.Run(fmt.Sprintf("version %q", version), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{
				Version: version,
				Roots: func(ctx context.Context) (*mcp.ListRootsResult, error) {
					return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///work"}}}, nil
				},
			})
			sess, err := c.Connect(ctx, sse.NewTransport(ts.URL+"/sse", nil))
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			want := version
			if want == "" {
				want = mcp.Latest
			}
			if sess.ProtocolVersion() != want || sess.ServerInfo().Name != "real" {
				t.Fatalf("version %s, server %v", sess.ProtocolVersion(), sess.ServerInfo())
			}
			res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "roots"})
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Content[0].(*mcp.TextContent).Text; text != "1 roots, the first file:///work" {
				t.Fatalf("result %q", text)
			}
		})
	}
}
