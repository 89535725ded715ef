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
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newTestServer returns a server with the tools the tests call.
func newTestServer(t testing.TB) *server.Server {
	t.Helper()
	s := server.New(mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(server.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, r *server.Request, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	}))
	// chatty sends n progress notifications and n log messages, each
	// naming the call's tag, pausing between them.
	must(server.AddTool(s, &mcp.Tool{Name: "chatty", Description: "talks"}, func(ctx context.Context, r *server.Request, in struct {
		Tag     string `json:"tag"`
		N       int    `json:"n"`
		PauseMs int    `json:"pauseMs,omitempty"`
	}) (string, error) {
		for i := 1; i <= in.N; i++ {
			if err := r.Progress(ctx, float64(i), float64(in.N), in.Tag); err != nil {
				return "", err
			}
			if err := r.Log(ctx, mcp.LevelInfo, "chatty", fmt.Sprintf("%s:%d", in.Tag, i)); err != nil {
				return "", err
			}
			if in.PauseMs > 0 {
				time.Sleep(time.Duration(in.PauseMs) * time.Millisecond)
			}
		}
		return "done " + in.Tag, nil
	}))
	// reconnect closes its own stream, then answers after a while.
	must(server.AddTool(s, &mcp.Tool{Name: "reconnect", Description: "polling"}, func(ctx context.Context, r *server.Request, in struct {
		DelayMs int `json:"delayMs,omitempty"`
	}) (string, error) {
		closed := streamable.CloseStream(ctx)
		r.Log(ctx, mcp.LevelInfo, "reconnect", "after close")
		time.Sleep(time.Duration(in.DelayMs) * time.Millisecond)
		return fmt.Sprintf("closed=%v", closed), nil
	}))
	must(server.AddTool(s, &mcp.Tool{Name: "sample", Description: "asks the model"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		res, err := r.Sample(ctx, &mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.SamplingContent{&mcp.TextContent{Text: "hi"}}}},
			MaxTokens: 10,
		})
		if err != nil {
			return "", err
		}
		return "model said " + res.Model, nil
	}))
	must(s.AddTool(&mcp.Tool{Name: "region", Description: "header params",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"count":{"type":"integer","x-mcp-header":"Count"},"flag":{"type":"boolean","x-mcp-header":"Flag"}}}`)},
		func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			return server.TextResult("ok"), nil
		}))
	must(s.AddResource(&mcp.Resource{URI: "test://a", Name: "a"}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, Text: "A"}}}, nil
	}))
	return s
}

// regionParams are the header parameters of the region tool.
var regionParams = []streamable.HeaderParam{{Name: "Region", Path: []string{"region"}}, {Name: "Count", Path: []string{"count"}}, {Name: "Flag", Path: []string{"flag"}}}

// env is a handler served on 127.0.0.1 (or on an in-memory network) with
// a raw HTTP client.
type env struct {
	t      testing.TB
	srv    *server.Server
	h      *streamable.Handler
	ts     *httptest.Server
	url    string
	client *http.Client
}

func start(t testing.TB, opts *streamable.HandlerOptions) *env {
	t.Helper()
	return startWith(t, newTestServer(t), opts)
}

// startWith serves srv.
func startWith(t testing.TB, srv *server.Server, opts *streamable.HandlerOptions) *env {
	t.Helper()
	return serveEnv(t, srv, opts, false)
}

// startMem is start on an in-memory network (memNet), for tests run by
// synctest.Test: their sleeps are fake time, and synctest.Wait says when
// the server has done all it can.
func startMem(t *testing.T, opts *streamable.HandlerOptions) *env {
	t.Helper()
	return serveEnv(t, newTestServer(t), opts, true)
}

// startMemWith is startWith on an in-memory network.
func startMemWith(t *testing.T, srv *server.Server, opts *streamable.HandlerOptions) *env {
	t.Helper()
	return serveEnv(t, srv, opts, true)
}

// serveEnv serves srv on 127.0.0.1, or in memory.
func serveEnv(t testing.TB, srv *server.Server, opts *streamable.HandlerOptions, mem bool) *env {
	t.Helper()
	if opts == nil {
		opts = &streamable.HandlerOptions{}
	}
	if opts.ToolHeaderParams == nil {
		opts.ToolHeaderParams = func(name string) []streamable.HeaderParam {
			if name == "region" {
				return regionParams
			}
			return nil
		}
	}
	h := streamable.NewHandler(srv, opts)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	if mem {
		n := newMemNet(t.(*testing.T), mux)
		e := &env{t: t, srv: srv, h: h, url: "http://mcp.test/mcp", client: n.Client}
		t.Cleanup(func() {
			h.Close()
			srv.Close()
		})
		return e
	}
	ts := httptest.NewServer(mux) // listens on 127.0.0.1
	tr := &http.Transport{MaxIdleConnsPerHost: 100}
	e := &env{t: t, srv: srv, h: h, ts: ts, url: ts.URL + "/mcp", client: &http.Client{Transport: tr}}
	t.Cleanup(func() {
		h.Close()
		ts.CloseClientConnections()
		ts.Close()
		tr.CloseIdleConnections()
		srv.Close()
	})
	return e
}

// do sends a request with the given headers and body.
func (e *env) do(method string, hdr http.Header, body string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, vs := range hdr {
		if strings.EqualFold(k, "Host") {
			req.Host = vs[0]
			continue
		}
		req.Header[k] = vs
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}

// post sends a POST with the standard headers plus hdr.
func (e *env) post(hdr http.Header, body string) *http.Response {
	e.t.Helper()
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	for k, v := range hdr {
		h[k] = v
	}
	return e.do(http.MethodPost, h, body)
}

// legacy returns the headers of a request of session sid.
func legacy(sid string) http.Header {
	h := http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}
	if sid != "" {
		h["Mcp-Session-Id"] = []string{sid}
	}
	return h
}

// modern returns the headers of a modern request.
func modern(method, name string) http.Header {
	h := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {method}}
	if name != "" {
		h["Mcp-Name"] = []string{name}
	}
	return h
}

const validMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// initialize opens a legacy session and returns its id.
func (e *env) initialize(version string) string {
	e.t.Helper()
	resp := e.post(http.Header{}, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"1"}}}`)
	msgs := readMessages(e.t, resp)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" || len(msgs) != 1 || msgs[0]["result"] == nil {
		e.t.Fatalf("initialize: %d %q %v", resp.StatusCode, sid, msgs)
	}
	resp = e.post(legacy(sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		e.t.Fatalf("initialized: %d", resp.StatusCode)
	}
	return sid
}

// A msg is one decoded JSON-RPC message, with the SSE event id it came in.
type msg = map[string]any

// readMessages reads a whole response: one JSON message, or every event
// of an SSE stream (priming events, which carry no data, are skipped).
func readMessages(t testing.TB, resp *http.Response) []msg {
	t.Helper()
	defer resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		var out []msg
		r := sse.NewReader(resp.Body, 1<<20)
		for {
			ev, err := r.Next()
			if err != nil {
				if err != io.EOF {
					t.Fatalf("reading SSE: %v", err)
				}
				return out
			}
			if len(ev.Data) == 0 {
				continue
			}
			out = append(out, decode(t, ev.Data, ev.ID))
		}
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	if b[0] == '[' {
		var arr []msg
		if err := json.Unmarshal(b, &arr); err != nil {
			t.Fatalf("decoding %s: %v", b, err)
		}
		return arr
	}
	return []msg{decode(t, b, "")}
}

func decode(t testing.TB, b []byte, id string) msg {
	t.Helper()
	var m msg
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	if id != "" {
		m["$event"] = id
	}
	return m
}

// errCode returns the error code of a message, or 0.
func errCode(m msg) int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	c, _ := e["code"].(float64)
	return int(c)
}

// resultText returns the text of a tools/call result.
func resultText(m msg) string {
	r, _ := m["result"].(map[string]any)
	c, _ := r["content"].([]any)
	if len(c) == 0 {
		return ""
	}
	first, _ := c[0].(map[string]any)
	s, _ := first["text"].(string)
	return s
}
