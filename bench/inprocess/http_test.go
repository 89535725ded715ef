// The Streamable HTTP benchmarks of every implementation, in one process:
// each serves the echo tool at /mcp on an httptest server on 127.0.0.1,
// and the clients speak the legacy (2025-11-25) session protocol over
// real loopback connections with net/http, the same bytes for every
// implementation.
//
//   - BenchmarkHTTP: calls/s of tools/call echo (100-byte text) with 1 and
//     64 concurrent sessions, each with its own connection and one call
//     in flight; every answer is checked.
//   - BenchmarkIdleSession: the memory (live heap plus goroutine stacks,
//     after two collections) and the goroutines each idle session holds,
//     with 2,000 and 10,000 sessions (BENCH_IDLE_SESSIONS="2000,10000"),
//     opened over 8 connections that are then closed, as
//     bench/cmd/mcpbench does across processes.
//
//	cd bench && go test -run '^$' -bench 'HTTP|IdleSession' -benchmem ./inprocess

package inprocess

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcpwire/mcpwire/bench/internal/floor"
	"github.com/mcpwire/mcpwire/transport/streamable"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	httpVersion     = "2025-11-25"
	httpReqTimeout  = 10 * time.Second // every request's deadline
	httpMaxBody     = 1 << 20          // the most of a response body read
	httpMaxSessions = 10000            // the most sessions a benchmark opens
	idleConns       = 8                // connections the idle sessions are opened over
	idleSIDMax      = 128              // the longest session id kept
)

// An httpImpl builds one implementation's handler of /mcp and the
// function that releases it.
type httpImpl struct {
	name string
	new  func() (http.Handler, func())
}

var httpImpls = []httpImpl{
	{"floor", func() (http.Handler, func()) { return floor.NewHTTPHandler(), func() {} }},
	{"mcpwire", func() (http.Handler, func()) {
		h := streamable.NewHandler(newMcpwireServer(), nil)
		return h, func() {
			ctx, cancel := context.WithTimeout(context.Background(), httpReqTimeout)
			defer cancel()
			h.Shutdown(ctx)
		}
	}},
	{"gosdk", func() (http.Handler, func()) {
		// As bench/servers/gosdk: JSON answers, stateful (legacy) sessions.
		// The handler has no Close: the benchmarks DELETE their sessions.
		s := newGoSDKServer()
		return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s },
			&gosdk.StreamableHTTPOptions{JSONResponse: true}), func() {}
	}},
	{"mcpgo", func() (http.Handler, func()) {
		h := mcpgoserver.NewStreamableHTTPServer(newMcpGoServer())
		return h, func() {
			ctx, cancel := context.WithTimeout(context.Background(), httpReqTimeout)
			defer cancel()
			h.Shutdown(ctx)
		}
	}},
}

// httpServer is an httptest server of one implementation that counts its
// open connections.
type httpServer struct {
	ts      *httptest.Server
	url     string
	closeFn func()

	mu    sync.Mutex
	conns int           // open connections
	idle  chan struct{} // closed while no connection is open
}

func startHTTPServer(im httpImpl) (*httpServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h, closeH := im.new()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	s := &httpServer{ts: httptest.NewUnstartedServer(mux), idle: make(chan struct{})}
	close(s.idle)
	s.ts.Listener.Close()
	s.ts.Listener = ln
	s.ts.Config.ReadHeaderTimeout = httpReqTimeout
	s.ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch st {
		case http.StateNew:
			if s.conns++; s.conns == 1 {
				s.idle = make(chan struct{})
			}
		case http.StateClosed, http.StateHijacked:
			if s.conns--; s.conns == 0 {
				close(s.idle)
			}
		}
	}
	s.ts.Start()
	s.url = s.ts.URL + "/mcp"
	s.closeFn = closeH
	return s, nil
}

func (s *httpServer) close() {
	s.closeFn()
	s.ts.Close()
}

// settle waits until the server has no connection open (told by its
// ConnState hook) and the number of goroutines has stopped changing, for
// at most 10 seconds. The client's connection goroutines end on their own
// after CloseIdleConnections, and nothing signals their end: settle
// samples the count until it holds still, which decides only how exact
// the memory reading that follows is, never a test's verdict.
func (s *httpServer) settle() error {
	deadline := time.Now().Add(10 * time.Second)
	s.mu.Lock()
	idle, n := s.idle, s.conns
	s.mu.Unlock()
	select {
	case <-idle:
	case <-time.After(time.Until(deadline)):
		return fmt.Errorf("%d connections still open after 10s", n)
	}
	for stable, last := 0, runtime.NumGoroutine(); stable < 3 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		if g := runtime.NumGoroutine(); g == last {
			stable++
		} else {
			stable, last = 0, g
		}
	}
	return nil
}

// newHTTPClient returns a client whose transport keeps up to conns
// connections to the server alive and opens no more.
func newHTTPClient(conns int) (*http.Client, *http.Transport) {
	tr := &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	return &http.Client{Transport: tr}, tr
}

// The request bodies: a tools/call is callPrefix, its id, callSuffix.
var (
	callPrefix = []byte(`{"jsonrpc":"2.0","id":`)
	callSuffix = []byte(`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`)
	initBody   = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + httpVersion + `","capabilities":{},"clientInfo":{"name":"bench-client","version":"1"}}}`)
	initedBody = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
)

// An httpSession is one legacy session of a client: its headers (with the
// session id once the server gave one), the body of its next call and
// the buffer its answers are read into.
type httpSession struct {
	client *http.Client
	url    string
	hdr    http.Header
	sid    string
	id     int64
	body   []byte
	buf    bytes.Buffer
}

func newHTTPSession(c *http.Client, url string) *httpSession {
	return &httpSession{client: c, url: url, hdr: http.Header{
		"Accept":               {"application/json, text/event-stream"},
		"Content-Type":         {"application/json"},
		"Mcp-Protocol-Version": {httpVersion},
	}}
}

// do sends one request with the session's headers, reads the answer into
// s.buf and returns the response (its body closed).
func (s *httpSession) do(method string, body []byte) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), httpReqTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = s.hdr
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	s.buf.Reset()
	_, err = s.buf.ReadFrom(io.LimitReader(resp.Body, httpMaxBody))
	resp.Body.Close()
	return resp, err
}

// open opens the session: initialize, then notifications/initialized. A
// server that returns no session id (none of the four does that) gets
// none back: the session is then the connection's stateless use.
func (s *httpSession) open() error {
	resp, err := s.do(http.MethodPost, initBody)
	if err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("initialize: HTTP %d: %.300s", resp.StatusCode, s.buf.Bytes())
	}
	r, err := findAnswer(resp.Header.Get("Content-Type"), s.buf.Bytes(), []byte("0"))
	if err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	if r.Error != nil || r.Result == nil || r.Result.ProtocolVersion != httpVersion {
		return fmt.Errorf("initialize: unexpected answer %.300s", s.buf.Bytes())
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		s.sid = sid
		s.hdr = s.hdr.Clone()
		s.hdr["Mcp-Session-Id"] = []string{sid}
	}
	resp, err = s.do(http.MethodPost, initedBody)
	if err != nil {
		return fmt.Errorf("notifications/initialized: %v", err)
	}
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("notifications/initialized: HTTP %d: %.300s", resp.StatusCode, s.buf.Bytes())
	}
	return nil
}

// call makes one tools/call of echo and checks the answer.
func (s *httpSession) call() error {
	s.id++
	s.body = append(s.body[:0], callPrefix...)
	s.body = strconv.AppendInt(s.body, s.id, 10)
	s.body = append(s.body, callSuffix...)
	resp, err := s.do(http.MethodPost, s.body)
	if err != nil {
		return fmt.Errorf("tools/call %d: %v", s.id, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("tools/call %d: HTTP %d: %.300s", s.id, resp.StatusCode, s.buf.Bytes())
	}
	var idb [20]byte
	r, err := findAnswer(resp.Header.Get("Content-Type"), s.buf.Bytes(), strconv.AppendInt(idb[:0], s.id, 10))
	if err != nil {
		return fmt.Errorf("tools/call %d: %v", s.id, err)
	}
	if r.Error != nil || r.Result == nil || r.Result.IsError || len(r.Result.Content) != 1 ||
		r.Result.Content[0].Type != "text" || r.Result.Content[0].Text != text {
		return fmt.Errorf("tools/call %d: wrong answer %.300s", s.id, s.buf.Bytes())
	}
	return nil
}

// end deletes the session, if it has an id; the answer's status is not
// checked (ending is best effort, and servers differ).
func (s *httpSession) end() error {
	if s.sid == "" {
		return nil
	}
	_, err := s.do(http.MethodDelete, nil)
	return err
}

// rpcAnswer is a response as the checks read it: the initialize result's
// protocolVersion and the tools/call result's content in one type, so
// that one decoding suffices.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result *struct {
		ProtocolVersion string `json:"protocolVersion"`
		Content         []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// findAnswer returns the response with the given id from a body that is
// either one JSON message or an SSE stream of them (the data of each
// event; other messages on the stream are skipped).
func findAnswer(ctype string, body, id []byte) (*rpcAnswer, error) {
	if !strings.HasPrefix(ctype, "text/event-stream") {
		return decodeAnswer(body, id)
	}
	var data []byte
	for rest := body; len(rest) > 0 || len(data) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > 0 {
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				if len(data) > 0 {
					data = append(data, '\n')
				}
				data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
			}
			if len(rest) > 0 {
				continue
			}
		}
		// The end of an event.
		if len(data) > 0 {
			if r, err := decodeAnswer(data, id); err == nil {
				return r, nil
			}
			data = data[:0]
		}
	}
	return nil, fmt.Errorf("no response with id %s in the event stream %.300s", id, body)
}

func decodeAnswer(msg, id []byte) (*rpcAnswer, error) {
	r := new(rpcAnswer)
	if err := json.Unmarshal(msg, r); err != nil {
		return nil, fmt.Errorf("%v in %.300s", err, msg)
	}
	if r.Method != "" || !bytes.Equal(r.ID, id) {
		return nil, fmt.Errorf("response id %s, want %s", r.ID, id)
	}
	return r, nil
}

// BenchmarkHTTP measures tools/call echo over Streamable HTTP with 1 and
// 64 sessions, each on its own client and connection with one call at a
// time; the sessions share b.N. -benchmem counts both sides (the client
// side is net/http and the same for every implementation).
func BenchmarkHTTP(b *testing.B) {
	for _, im := range httpImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			for _, n := range []int{1, 64} {
				b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) { benchHTTP(b, im, n) })
			}
		})
	}
}

func benchHTTP(b *testing.B, im httpImpl, n int) {
	if n < 1 || n > httpMaxSessions {
		b.Fatalf("sessions=%d: want 1 to %d", n, httpMaxSessions)
	}
	srv, err := startHTTPServer(im)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.close()
	sessions := make([]*httpSession, n)
	transports := make([]*http.Transport, n)
	defer func() {
		for i, s := range sessions {
			if s != nil {
				s.end()
				transports[i].CloseIdleConnections()
			}
		}
	}()
	for i := range sessions {
		c, tr := newHTTPClient(2)
		s := newHTTPSession(c, srv.url)
		sessions[i], transports[i] = s, tr
		if err := s.open(); err != nil {
			b.Fatalf("session %d: %v", i, err)
		}
		// A first call, outside the timing: the connection is open and
		// whatever the server builds once is built.
		if err := s.call(); err != nil {
			b.Fatalf("session %d: %v", i, err)
		}
	}
	var (
		next   atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
		errs   = make([]error, n)
		total  = int64(b.N)
	)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() && next.Add(1) <= total {
				if err := s.call(); err != nil {
					errs[i] = fmt.Errorf("session %d: %v", i, err)
					failed.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
}

// BenchmarkIdleSession measures what an idle legacy session holds: N
// sessions are opened (initialize, then notifications/initialized) over
// 8 connections, the connections are closed, and the growth of the live
// heap plus goroutine stacks after two collections, divided by N, is
// reported as B/session, with goroutines/session. The client keeps
// nothing per session in between but its session id, in an array
// allocated before the first reading.
//
// One iteration is one whole measurement on a fresh server; b.N only
// repeats it (the metrics are the mean over the iterations), so that the
// usual -benchtime applies; -benchtime 1x measures once. The session
// counts are BENCH_IDLE_SESSIONS, comma-separated (default "2000,10000";
// at most 10,000 each).
func BenchmarkIdleSession(b *testing.B) {
	counts, err := idleCounts(os.Getenv("BENCH_IDLE_SESSIONS"))
	if err != nil {
		b.Fatal(err)
	}
	for _, im := range httpImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			for _, n := range counts {
				b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
					var bytesPer, gorPer float64
					for range b.N {
						m, err := measureIdle(im, n)
						if err != nil {
							b.Fatal(err)
						}
						bytesPer += m.bytes
						gorPer += m.goroutines
					}
					b.ReportMetric(bytesPer/float64(b.N), "B/session")
					b.ReportMetric(gorPer/float64(b.N), "goroutines/session")
				})
			}
		})
	}
}

func idleCounts(env string) ([]int, error) {
	if env == "" {
		env = "2000,10000"
	}
	var counts []int
	for f := range strings.SplitSeq(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > httpMaxSessions {
			return nil, fmt.Errorf("BENCH_IDLE_SESSIONS=%q: want counts from 1 to %d", env, httpMaxSessions)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

type idleMetrics struct {
	bytes, goroutines float64 // per session
}

type memReading struct {
	live       int64 // HeapAlloc + StackInuse
	goroutines int
}

func readMemory() memReading {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memReading{int64(ms.HeapAlloc + ms.StackInuse), runtime.NumGoroutine()}
}

// measureIdle opens n idle sessions on a fresh server and returns what
// each holds.
func measureIdle(im httpImpl, n int) (m idleMetrics, err error) {
	if n < 1 || n > httpMaxSessions {
		return m, fmt.Errorf("sessions=%d: want 1 to %d", n, httpMaxSessions)
	}
	srv, err := startHTTPServer(im)
	if err != nil {
		return m, err
	}
	defer srv.close()
	c, tr := newHTTPClient(idleConns)
	defer tr.CloseIdleConnections()

	// Warm up: one session and a call, ended, so that what is built once
	// (pools, schemas, the first connection) is not charged to the
	// sessions.
	warm := newHTTPSession(c, srv.url)
	if err := warm.open(); err != nil {
		return m, fmt.Errorf("warm-up session: %v", err)
	}
	if err := warm.call(); err != nil {
		return m, fmt.Errorf("warm-up session: %v", err)
	}
	if err := warm.end(); err != nil {
		return m, fmt.Errorf("warm-up session: %v", err)
	}

	// The session ids, kept to end the sessions afterwards, in memory
	// allocated before the first reading.
	sids := make([]byte, n*idleSIDMax)
	sidLen := make([]int, n)
	tr.CloseIdleConnections()
	if err := srv.settle(); err != nil {
		return m, err
	}
	before := readMemory()

	errs := make([]error, idleConns)
	var wg sync.WaitGroup
	for w := range idleConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += idleConns {
				s := newHTTPSession(c, srv.url)
				if err := s.open(); err != nil {
					errs[w] = fmt.Errorf("session %d: %v", i, err)
					return
				}
				if len(s.sid) > idleSIDMax {
					errs[w] = fmt.Errorf("session %d: session id of %d bytes", i, len(s.sid))
					return
				}
				sidLen[i] = copy(sids[i*idleSIDMax:], s.sid)
			}
		}()
	}
	wg.Wait()
	tr.CloseIdleConnections()
	if err := errors.Join(errs...); err != nil {
		return m, err
	}
	if err := srv.settle(); err != nil {
		return m, err
	}
	after := readMemory()
	m.bytes = float64(after.live-before.live) / float64(n)
	m.goroutines = float64(after.goroutines-before.goroutines) / float64(n)

	// End the sessions (the official SDK's handler has no Close).
	for w := range idleConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += idleConns {
				if sidLen[i] == 0 {
					continue
				}
				s := newHTTPSession(c, srv.url)
				s.sid = string(sids[i*idleSIDMax : i*idleSIDMax+sidLen[i]])
				s.hdr["Mcp-Session-Id"] = []string{s.sid}
				if s.end() != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return m, nil
}
