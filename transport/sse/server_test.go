package sse_test

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

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/internal/memnet"
	wire "github.com/mcpwire/mcpwire/transport/internal/sse"
	"github.com/mcpwire/mcpwire/transport/sse"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// svNewServer returns a server with an echo tool, a tool that sends
// progress and logs, a sampling tool and a blocking tool.
func svNewServer(t *testing.T, release chan struct{}) *server.Server {
	s := server.New(mcp.Implementation{Name: "old", Version: "1"}, nil)
	server.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, r *server.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "chatty", Description: "talks"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		r.Progress(ctx, 1, 2, "")
		r.Log(ctx, mcp.LevelInfo, "chatty", "half way")
		r.Progress(ctx, 2, 2, "")
		return "done", nil
	})
	server.AddTool(s, &mcp.Tool{Name: "sample", Description: "asks the model"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		res, err := r.Sample(ctx, &mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{&mcp.TextContent{Text: "hi"}}}},
			MaxTokens: 10,
		})
		if err != nil {
			return "", err
		}
		return "model " + res.Model, nil
	})
	server.AddTool(s, &mcp.Tool{Name: "block", Description: "waits"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return "released", nil
	})
	return s
}

// svEnv is a Handler on 127.0.0.1, or on an in-memory network.
type svEnv struct {
	t      *testing.T
	srv    *server.Server
	h      *sse.Handler
	ts     *httptest.Server // nil in memory
	base   string           // the server's URL
	client *http.Client
}

func svStart(t *testing.T, opts *sse.HandlerOptions, release chan struct{}) *svEnv {
	srv := svNewServer(t, release)
	h := sse.NewHandler(srv, opts)
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	ts := httptest.NewServer(mux)
	tr := &http.Transport{}
	t.Cleanup(func() {
		h.Close()
		ts.CloseClientConnections()
		ts.Close()
		tr.CloseIdleConnections()
		srv.Close()
	})
	return &svEnv{t: t, srv: srv, h: h, ts: ts, base: ts.URL, client: &http.Client{Transport: tr}}
}

// svStartMem is svStart on an in-memory network (package memnet), for
// tests run by synctest.Test.
func svStartMem(t *testing.T, opts *sse.HandlerOptions, release chan struct{}) *svEnv {
	srv := svNewServer(t, release)
	h := sse.NewHandler(srv, opts)
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	n := memnet.Serve(mux)
	t.Cleanup(func() {
		h.Close()
		n.Close()
		srv.Close()
	})
	return &svEnv{t: t, srv: srv, h: h, base: "http://mcp.test", client: n.Client}
}

func (e *svEnv) do(method, url string, hdr http.Header, body string) *http.Response {
	e.t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v[0]
			continue
		}
		req.Header[k] = v
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

// open opens a stream and returns its reader and the POST URL.
func (e *svEnv) open() (*http.Response, *wire.Reader, string) {
	e.t.Helper()
	resp := e.do("GET", e.base+"/sse", http.Header{"Accept": {"text/event-stream"}}, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		e.t.Fatalf("GET: %d", resp.StatusCode)
	}
	r := wire.NewReader(resp.Body, 1<<20)
	ev, err := r.Next()
	if err != nil || ev.Name != "endpoint" || !strings.HasPrefix(string(ev.Data), "/sse?sessionId=") {
		e.t.Fatalf("endpoint event %+v %v", ev, err)
	}
	return resp, r, e.base + string(ev.Data)
}

func (e *svEnv) send(url, body string) int {
	e.t.Helper()
	resp := e.do("POST", url, http.Header{"Content-Type": {"application/json"}}, body)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// next reads the next message event.
func next(t *testing.T, r *wire.Reader) map[string]any {
	t.Helper()
	ev, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Name != "message" {
		t.Fatalf("event %q", ev.Name)
	}
	var m map[string]any
	if err := json.Unmarshal(ev.Data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestServerRawConversation drives the transport with raw HTTP: the
// endpoint event, 202 for every POST, answers and server messages on the
// stream, a sampling request answered by POST.
func TestServerRawConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := svStartMem(t, nil, nil)
		get, r, url := e.open()
		defer get.Body.Close()
		if st := e.send(url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"1"}}}`); st != 202 {
			t.Fatalf("initialize: %d", st)
		}
		if m := next(t, r); m["id"] != 1.0 || m["result"].(map[string]any)["protocolVersion"] != "2024-11-05" {
			t.Fatalf("initialize result %v", m)
		}
		if st := e.send(url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != 202 {
			t.Fatalf("initialized: %d", st)
		}
		e.send(url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty","arguments":{},"_meta":{"progressToken":"p"}}}`)
		var methods []string
		for {
			m := next(t, r)
			if m["id"] == 2.0 {
				break
			}
			methods = append(methods, m["method"].(string))
		}
		if fmt.Sprint(methods) != "[notifications/progress notifications/message notifications/progress]" {
			t.Errorf("notifications %v", methods)
		}
		e.send(url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sample","arguments":{}}}`)
		req := next(t, r)
		if req["method"] != "sampling/createMessage" {
			t.Fatalf("expected a sampling request, got %v", req)
		}
		if st := e.send(url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m7"}}`, req["id"])); st != 202 {
			t.Fatalf("answer: %d", st)
		}
		if m := next(t, r); m["id"] != 3.0 || !strings.Contains(fmt.Sprint(m["result"]), "model m7") {
			t.Fatalf("sample result %v", m)
		}
		// The session ends with its stream.
		get.Body.Close()
		synctest.Wait() // the server has seen the stream go
		if st := e.send(url, `{"jsonrpc":"2.0","id":4,"method":"ping"}`); st != 404 {
			t.Fatalf("a POST to the session after its stream ended: %d, want 404", st)
		}
	})
}

// TestServerWithClient runs the real client over the transport, which
// negotiates a legacy revision.
func TestServerWithClient(t *testing.T) {
	e := svStart(t, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr := sse.NewTransport(e.ts.URL+"/sse", &sse.ClientOptions{HTTPClient: e.client})
	sess, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{Version: mcp.Version20241105}).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"over SSE"}`)})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "over SSE" {
		t.Fatal(res, err)
	}
	if err := sess.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestServerStatus checks the refusals, each with a JSON-RPC error body
// without id.
func TestServerStatus(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	e := svStart(t, &sse.HandlerOptions{MaxBodyBytes: 200, MaxSessions: 2, MaxInFlight: 1}, release)
	get, events, url := e.open()
	defer get.Body.Close()
	jsonCT := http.Header{"Content-Type": {"application/json"}}
	if st := e.send(url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`); st != 202 {
		t.Fatalf("initialize: %d", st)
	}
	if m := next(t, events); m["id"] != 1.0 {
		t.Fatalf("got %v, want the answer to initialize", m)
	}
	e.send(url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// initialize left the in-flight count before its answer went out: the
	// blocking call is the one request the cap lets run.
	if st := e.send(url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`); st != 202 {
		t.Fatalf("the blocking call: %d", st)
	}
	for _, tc := range []struct {
		name, method, url string
		hdr               http.Header
		body              string
		status, code      int
	}{
		{"evil host", "GET", e.ts.URL + "/sse", http.Header{"Host": {"evil.example.com"}, "Accept": {"text/event-stream"}}, "", 403, -32000},
		{"evil origin", "POST", url, http.Header{"Origin": {"http://evil.example.com"}, "Content-Type": {"application/json"}}, `{}`, 403, -32000},
		{"PUT", "PUT", url, nil, "", 405, -32000},
		{"GET not SSE", "GET", e.ts.URL + "/sse", http.Header{"Accept": {"application/json"}}, "", 406, -32000},
		{"no session", "POST", e.ts.URL + "/sse", jsonCT, `{"jsonrpc":"2.0","method":"x"}`, 400, -32000},
		{"unknown session", "POST", e.ts.URL + "/sse?sessionId=nope", jsonCT, `{"jsonrpc":"2.0","method":"x"}`, 404, -32001},
		{"content type", "POST", url, http.Header{"Content-Type": {"text/plain"}}, `{"jsonrpc":"2.0","method":"x"}`, 415, -32000},
		{"too large", "POST", url, jsonCT, `{"jsonrpc":"2.0","method":"x","params":{"p":"` + strings.Repeat("x", 300) + `"}}`, 413, -32600},
		{"bad JSON", "POST", url, jsonCT, `{"jsonrpc"`, 400, -32700},
		{"batch", "POST", url, jsonCT, `[{"jsonrpc":"2.0","method":"x"}]`, 400, -32600},
		{"in flight", "POST", url, jsonCT, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, 429, -32005},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.do(tc.method, tc.url, tc.hdr, tc.body)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.Contains(string(b), fmt.Sprintf(`"code":%d`, tc.code)) || strings.Contains(string(b), `"id":null`) {
				t.Fatalf("%d %s", resp.StatusCode, b)
			}
		})
	}
	second, _, _ := e.open()
	defer second.Body.Close()
	third := e.do("GET", e.ts.URL+"/sse", http.Header{"Accept": {"text/event-stream"}}, "")
	third.Body.Close()
	if third.StatusCode != 503 {
		t.Errorf("over the session cap: %d", third.StatusCode)
	}
}

// TestServerEndpointOption: a separate POST endpoint, and a handler
// mounted under a stripped prefix, name the right URI.
func TestServerEndpointOption(t *testing.T) {
	srv := svNewServer(t, nil)
	defer srv.Close()
	h := sse.NewHandler(srv, nil)
	defer h.Close()
	h2 := sse.NewHandler(srv, &sse.HandlerOptions{Endpoint: "/messages?v=1"})
	defer h2.Close()
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", h))
	mux.Handle("/sse", h2)
	mux.Handle("/messages", h2)
	ts := httptest.NewServer(mux)
	defer ts.Close()
	defer ts.CloseClientConnections()
	for path, prefix := range map[string]string{"/api/events": "/api/events?sessionId=", "/sse": "/messages?v=1&sessionId="} {
		req, _ := http.NewRequest("GET", ts.URL+path, nil)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := wire.NewReader(resp.Body, 1<<10).Next()
		if err != nil || !strings.HasPrefix(string(ev.Data), prefix) {
			t.Errorf("%s: endpoint %q %v", path, ev.Data, err)
		}
		if path == "/sse" {
			post, _ := http.NewRequest("POST", ts.URL+string(ev.Data), strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
			post.Header.Set("Content-Type", "application/json")
			if pr, err := ts.Client().Do(post); err != nil || pr.StatusCode != 202 {
				t.Errorf("POST to the endpoint: %v %v", pr, err)
			} else {
				pr.Body.Close()
			}
		}
		resp.Body.Close()
	}
}
