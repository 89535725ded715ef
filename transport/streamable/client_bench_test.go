package streamable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// BenchmarkClientCall measures a tools/call of the echo tool through
// package client over this package's ClientConn, against the Handler on
// a real loopback listener, with 1 and 8 calls at once on one session:
//
//   - modern: 2026-07-28, answered with JSON;
//   - legacy: 2025-11-25, answered with JSON (no event store);
//   - legacy-sse: 2025-11-25 with an event store, answered with an SSE
//     stream that starts with a priming event (the everything-server's
//     setup).
//
// "client" is the MCP client; "nethttp" posts the bytes (headers and
// body) the client sent for one such call with a bare net/http client
// and reads the answer to its end, so that the handler, the server and
// net/http cost the same in both: the difference is the client's own
// cost. cpu-µs/op is the process's CPU time per call (both sides),
// sched/op the times a goroutine was scheduled to run per call.
//
//	go test -run '^$' -bench ClientCall -benchmem ./transport/streamable
func BenchmarkClientCall(b *testing.B) {
	for _, era := range []struct {
		name    string
		version mcp.Version
		opts    *streamable.HandlerOptions
	}{
		{"modern", "", nil},
		{"legacy", mcp.Version20251125, nil},
		{"legacy-sse", mcp.Version20251125, &streamable.HandlerOptions{EventStore: streamable.NewMemoryEventStore(nil)}},
	} {
		srv := newTestServer(b)
		h := streamable.NewHandler(srv, era.opts)
		ts := httptest.NewServer(h)
		url := ts.URL + "/mcp"
		ctx := context.Background()
		args := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(echoArgs)}

		// The client's own request, replayed by the nethttp runs.
		capture := &benchCapture{base: &http.Transport{}}
		c := client.New(mcp.Implementation{Name: "bench", Version: "1"}, &client.Options{Version: era.version})
		sess, err := c.Connect(ctx, streamable.NewTransport(url, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: capture}}))
		if err != nil {
			b.Fatal(err)
		}
		capture.on.Store(true)
		if _, err := sess.CallTool(ctx, args); err != nil {
			b.Fatal(err)
		}
		capture.on.Store(false)

		for _, conc := range []int{1, 8} {
			name := era.name + "/c=" + string(rune('0'+conc))
			b.Run(name+"/client", func(b *testing.B) {
				c := client.New(mcp.Implementation{Name: "bench", Version: "1"}, &client.Options{Version: era.version})
				sess, err := c.Connect(ctx, streamable.NewTransport(url, nil))
				if err != nil {
					b.Fatal(err)
				}
				defer sess.Close()
				benchParallel(b, conc, func() error {
					res, err := sess.CallTool(ctx, args)
					if err == nil && res.IsError {
						b.Error("tool error")
					}
					return err
				})
			})
			b.Run(name+"/nethttp", func(b *testing.B) {
				tr := &http.Transport{MaxIdleConnsPerHost: 64}
				defer tr.CloseIdleConnections()
				hc := &http.Client{Transport: tr}
				// Each call gets its own id, as a legacy session requires.
				var ids atomic.Int64
				pre, post, ok := bytes.Cut(capture.body, []byte(`"id":`))
				if !ok {
					b.Fatalf("no id in %s", capture.body)
				}
				_, post, _ = bytes.Cut(post, []byte(","))
				benchParallel(b, conc, func() error {
					body := append(append(append([]byte(nil), pre...), `"id":`...), strconv.FormatInt(ids.Add(1), 10)...)
					body = append(append(body, ','), post...)
					req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
					req.Header = capture.header
					resp, err := hc.Do(req)
					if err != nil {
						return err
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || n == 0 {
						b.Errorf("HTTP %d, %d bytes", resp.StatusCode, n)
					}
					return nil
				})
			})
		}
		sess.Close()
		capture.base.CloseIdleConnections()
		h.Close()
		ts.Close()
		srv.Close()
	}
}

// benchParallel runs call b.N times from conc goroutines and reports the
// process's CPU time per call.
func benchParallel(b *testing.B, conc int, call func() error) {
	b.ReportAllocs()
	var (
		next sync.Mutex
		left = b.N
		wg   sync.WaitGroup
	)
	take := func() bool {
		next.Lock()
		defer next.Unlock()
		left--
		return left >= 0
	}
	cpu0, sched0 := benchCPU(), benchSchedules()
	b.ResetTimer()
	for range conc {
		wg.Go(func() {
			for take() {
				if err := call(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if cpu := benchCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	}
	b.ReportMetric(float64(benchSchedules()-sched0)/float64(b.N), "sched/op")
}

// benchSchedules returns how many times goroutines have been scheduled
// to run (the count of the scheduler's latency histogram): the hand-offs
// between goroutines, which cost CPU on both sides (waking, parking, a
// thread that spins looking for work) and vary less than CPU time on a
// busy machine.
func benchSchedules() uint64 {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	var n uint64
	for _, c := range s[0].Value.Float64Histogram().Counts {
		n += c
	}
	return n
}

// benchCapture is an http.RoundTripper that keeps the headers and body
// of the last POST while on is set.
type benchCapture struct {
	base   *http.Transport
	on     atomic.Bool
	header http.Header
	body   []byte
}

func (c *benchCapture) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.on.Load() && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		c.header, c.body = req.Header.Clone(), body
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	return c.base.RoundTrip(req)
}
