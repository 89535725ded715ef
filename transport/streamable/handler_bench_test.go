package streamable_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// recorder is a reusable ResponseWriter for in-process benchmarks.
type recorder struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header         { return w.h }
func (w *recorder) WriteHeader(status int)      { w.status = status }
func (w *recorder) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *recorder) Flush()                      {}

func (w *recorder) reset() {
	clear(w.h)
	w.status = 0
	w.body.Reset()
}

// body is a reusable request body.
type body struct{ bytes.Reader }

func (*body) Close() error { return nil }

// inProcess drives a handler with one reusable request.
type inProcess struct {
	h   http.Handler
	r   *http.Request
	b   *body
	w   *recorder
	raw []byte
}

func newInProcess(h http.Handler, hdr http.Header, raw string) *inProcess {
	p := &inProcess{h: h, b: &body{}, w: &recorder{h: http.Header{}}, raw: []byte(raw)}
	p.r = httptest.NewRequest(http.MethodPost, "http://localhost/mcp", nil)
	p.r.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	for k, v := range hdr {
		p.r.Header[k] = v
	}
	p.r.Body = p.b
	p.r.ContentLength = int64(len(raw))
	return p
}

// do serves the request once and returns the status.
func (p *inProcess) do() int {
	p.w.reset()
	p.b.Reset(p.raw)
	p.h.ServeHTTP(p.w, p.r)
	return p.w.status
}

// initSession opens a legacy session in process and returns its id.
func initSession(t testing.TB, h http.Handler) string {
	p := newInProcess(h, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if p.do() != 200 {
		t.Fatalf("initialize: %d %s", p.w.status, p.w.body.String())
	}
	sid := p.w.h.Get("Mcp-Session-Id")
	p = newInProcess(h, legacy(sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if p.do() != http.StatusAccepted {
		t.Fatalf("initialized: %d", p.w.status)
	}
	return sid
}

var echoArgs = `{"text":"` + strings.Repeat("x", 100) + `"}`

// BenchmarkPOSTToolCall measures a tools/call of an echo tool answered
// with JSON, in each era: "inprocess" calls ServeHTTP with a reused
// request (the handler and the server only), "loopback" goes through
// net/http on 127.0.0.1 (client and server both counted), "server" calls
// the server directly without the transport, as a baseline.
func BenchmarkPOSTToolCall(b *testing.B) {
	srv := newTestServer(b)
	defer srv.Close()
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	sid := initSession(b, h)
	legacyBody := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + echoArgs + `}}`
	modernBody := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":` + echoArgs + `,` + validMeta + `}}`
	eras := []struct {
		name string
		hdr  http.Header
		body string
	}{
		{"legacy", legacy(sid), legacyBody},
		{"modern", modern("tools/call", "echo"), modernBody},
	}
	for _, era := range eras {
		b.Run(era.name+"/inprocess", func(b *testing.B) {
			p := newInProcess(h, era.hdr, era.body)
			b.ReportAllocs()
			for b.Loop() {
				if st := p.do(); st != 200 {
					b.Fatalf("%d %s", st, p.w.body.String())
				}
			}
		})
		b.Run(era.name+"/loopback", func(b *testing.B) {
			ts := httptest.NewServer(h)
			defer ts.Close()
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			hdr := with(era.hdr, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
			raw := []byte(era.body)
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader(raw))
				req.Header = hdr
				resp, err := client.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatal(resp, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	b.Run("legacy/server", func(b *testing.B) {
		ss, err := srv.Open(context.Background(), "bench", nopWriter{})
		if err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		for _, raw := range []string{
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		} {
			msg, _ := jsonrpc.Decode([]byte(raw), nil)
			ss.Serve(context.Background(), msg.(*jsonrpc.Request))
		}
		msg, err := jsonrpc.Decode([]byte(legacyBody), nil)
		if err != nil {
			b.Fatal(err)
		}
		req := msg.(*jsonrpc.Request)
		b.ReportAllocs()
		for b.Loop() {
			if resp := ss.Serve(context.Background(), req); resp.Error != nil {
				b.Fatal(resp.Error)
			}
		}
	})
	b.Run("modern/server", func(b *testing.B) {
		msg, err := jsonrpc.Decode([]byte(modernBody), nil)
		if err != nil {
			b.Fatal(err)
		}
		req := msg.(*jsonrpc.Request)
		b.ReportAllocs()
		for b.Loop() {
			if resp := srv.ServeStateless(context.Background(), req, nopWriter{}); resp.Error != nil {
				b.Fatal(resp.Error)
			}
		}
	})
}

type nopWriter struct{}

func (nopWriter) Write(context.Context, jsonrpc.Message) error { return nil }

// idleSessionBudget bounds the heap an idle legacy session keeps, the
// handler's part and the server's with default options: about 1,840
// bytes on 6ebbd51, the goal of issue 23 is 1 KB.
const idleSessionBudget = 1024

// TestIdleSessionMemory opens 10,000 legacy sessions through the handler
// and measures what an idle one costs: heap bytes (the handler's part and
// the server's, at most idleSessionBudget) and goroutines (none per
// session).
func TestIdleSessionMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 10,000 sessions")
	}
	const n = 10_000
	measure := func(srv transport.MessageServer, used bool) (perSession float64, goroutines int) {
		h := streamable.NewHandler(srv, &streamable.HandlerOptions{MaxSessions: n + 1})
		defer h.Close()
		initSession(t, h) // warm up: janitor, pools
		sids := make([]string, 0, n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		g0 := runtime.NumGoroutine()
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		for range n {
			sid := initSession(t, h)
			sids = append(sids, sid)
			if used { // a call, then a GET whose client is gone at once
				if p := newInProcess(h, legacy(sid), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`); p.do() != 200 {
					t.Fatalf("call: %d", p.w.status)
				}
				get := httptest.NewRequestWithContext(gone, http.MethodGet, "http://localhost/mcp", nil)
				get.Header = with(legacy(sid), "Accept", "text/event-stream")
				w := &recorder{h: http.Header{}}
				h.ServeHTTP(w, get)
				if w.status != 200 {
					t.Fatalf("GET: %d", w.status)
				}
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		g1 := runtime.NumGoroutine()
		runtime.KeepAlive(sids)
		return float64(after.HeapAlloc-before.HeapAlloc) / n, g1 - g0
	}
	for _, used := range []bool{false, true} {
		srv := newTestServer(t)
		total, g := measure(srv, used)
		srv.Close()
		own, _ := measure(tinyServer{}, used)
		t.Logf("idle legacy session (after a call and a GET: %v): %.0f bytes in all (handler %.0f, server %.0f); %d goroutines for %d sessions",
			used, total, own, total-own, g, n)
		if g > 5 {
			t.Errorf("%d goroutines for %d idle sessions", g, n)
		}
		if total > idleSessionBudget {
			t.Errorf("an idle session costs %.0f bytes, over %d", total, idleSessionBudget)
		}
	}
}

// tinyServer is a MessageServer whose sessions cost almost nothing, to
// measure the handler's own share.
type tinyServer struct{}

func (tinyServer) Open(ctx context.Context, id string, w jsonrpc.Writer) (transport.ServerSession, error) {
	return tinySession{}, nil
}

func (tinyServer) ServeStateless(ctx context.Context, req *jsonrpc.Request, w jsonrpc.Writer) *jsonrpc.Response {
	return &jsonrpc.Response{ID: req.ID, Result: []byte("{}")}
}

type tinySession struct{}

var neverDone = make(chan struct{})

func (tinySession) Serve(ctx context.Context, req *jsonrpc.Request) *jsonrpc.Response {
	if !req.IsCall() {
		return nil
	}
	return &jsonrpc.Response{ID: req.ID, Result: []byte(`{}`)}
}
func (tinySession) Resolve(*jsonrpc.Response) bool { return false }
func (tinySession) ProtocolVersion() string        { return "2025-11-25" }
func (tinySession) Close() error                   { return nil }
func (tinySession) Done() <-chan struct{}          { return neverDone }

// TestHandlerCloseEndsStreams: Close releases open GET streams and waits
// for the sessions to end.
func TestHandlerCloseEndsStreams(t *testing.T) {
	e := start(t, nil)
	sid := e.initialize("2025-11-25")
	get := e.getSSE(sid, "")
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, get.Body); done <- err }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.h.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the GET stream stayed open")
	}
	get.Body.Close()
	resp := e.post(legacy(sid), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after Close: %d", resp.StatusCode)
	}
}
