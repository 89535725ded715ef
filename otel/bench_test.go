package otel_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	mcpotel "github.com/mcpwire/mcpwire/otel"
	"github.com/mcpwire/mcpwire/otel/internal/otlphttp"
	"github.com/mcpwire/mcpwire/otel/internal/sdk"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// The overhead of the instrumentation, side by side with none, in one
// run: go test -run '^$' -bench . -benchmem ./otel (from the otel module:
// cd otel && go test -run '^$' -bench . -benchmem).
//
// "on" exports every span for real: the SDK and the OTLP/HTTP exporter
// that otlpenv sets up, protobuf encoding and all, to a local endpoint
// that discards what it gets, with a batch span processor whose queue is
// large enough that no span is dropped (the benchmark fails if one is),
// and metrics into the SDK's aggregation. cpu-ns/op is the CPU time of the whole
// process per call (getrusage), which counts the exporter's goroutines
// and the garbage collector; ns/op counts the calling goroutine's wall
// time.

// benchTelemetry returns an instrumentation that exports spans to a
// discarding OTLP/HTTP endpoint; sampled says whether spans are recorded
// (a parent-based sampler follows the trace context that came in).
func benchTelemetry(b *testing.B) *mcpotel.Instrumentation {
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	exp, err := otlphttp.NewTraceExporter(&otlphttp.Config{URL: sink.URL + "/v1/traces"})
	if err != nil {
		b.Fatal(err)
	}
	res := sdk.NewResource("", attribute.String("service.name", "bench"))
	batch := sdk.DefaultBatchConfig
	batch.MaxQueueSize = sdk.MaxLimit
	tp := sdk.NewTracerProvider(exp, sdk.TraceConfig{Resource: res, Sampler: sdk.ParentBased(sdk.AlwaysOn()), Limits: sdk.DefaultSpanLimits, Batch: batch})
	mp := sdk.NewMeterProvider(discardMetrics{}, sdk.MetricConfig{Resource: res, Interval: time.Hour})
	b.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
		sink.Close()
		if n := tp.Dropped(); n > 0 {
			b.Errorf("%d spans dropped: the queue was too small for a fair measure", n)
		}
	})
	return mcpotel.New(&mcpotel.Options{TracerProvider: tp, MeterProvider: mp})
}

// discardMetrics is a metric exporter that sends nothing.
type discardMetrics struct{}

func (discardMetrics) Export(context.Context, *sdk.ResourceMetrics) error { return nil }
func (discardMetrics) Shutdown(context.Context) error                     { return nil }

// The frames of the server benchmarks: a tools/call of the echo tool with
// 100 bytes of text, without and with trace context (sampled, and not).
const (
	traceSampled   = `"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`
	traceUnsampled = `"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"`
	modernEnvelope = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}`
)

func callFrame(meta ...string) []byte {
	m := strings.Join(meta, ",")
	return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{` + m + `},"name":"echo","arguments":{"text":"` + strings.Repeat("x", 100) + `"}}}`)
}

type echoIn struct {
	Text string `json:"text"`
}

func echoServer(opts *server.Options) *server.Server {
	s := server.New(mcp.Implementation{Name: "bench", Version: "1"}, opts)
	server.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, r *server.Request, in echoIn) (*mcp.CallToolResult, error) {
		return server.TextResult(in.Text), nil
	})
	return s
}

type nopWriter struct{}

func (nopWriter) Write(context.Context, jsonrpc.Message) error { return nil }

// BenchmarkServerCall measures the server's side of one tools/call: the
// frame decoded, the request served, the response encoded; in the legacy
// era on an HTTP session, in the modern era stateless.
func BenchmarkServerCall(b *testing.B) {
	for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
		var plain, sampled, unsampled []byte
		if mcp.IsModern(v) {
			plain, sampled, unsampled = callFrame(modernEnvelope), callFrame(traceSampled, modernEnvelope), callFrame(traceUnsampled, modernEnvelope)
		} else {
			plain, sampled, unsampled = callFrame(), callFrame(traceSampled), callFrame(traceUnsampled)
		}
		for _, c := range []struct {
			name  string
			frame []byte
			on    bool
		}{
			{"off", plain, false},
			{"off+context", sampled, false},
			{"on", sampled, true},
			{"on-unsampled", unsampled, true},
		} {
			b.Run(string(v)+"/"+c.name, func(b *testing.B) {
				var opts *server.Options
				if c.on {
					opts = benchTelemetry(b).Server(nil)
				}
				srv := echoServer(opts)
				defer srv.Close()
				serve := serverFunc(b, srv, v)
				measure(b, func() {
					req, err := jsonrpc.Decode(c.frame, nil)
					if err != nil {
						b.Fatal(err)
					}
					resp := serve(req.(*jsonrpc.Request))
					if resp.Error != nil {
						b.Fatal(resp.Error)
					}
					if _, err := jsonrpc.Encode(resp); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// serverFunc returns the function that serves one request: a legacy
// session's, opened and initialized, or the stateless path.
func serverFunc(b *testing.B, srv *server.Server, v mcp.Version) func(*jsonrpc.Request) *jsonrpc.Response {
	ctx := context.Background()
	if mcp.IsModern(v) {
		return func(req *jsonrpc.Request) *jsonrpc.Response { return srv.ServeStateless(ctx, req, nopWriter{}) }
	}
	sess, err := srv.Open(ctx, "bench-session", nopWriter{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close() })
	init, _ := json.Marshal(mcp.InitializeParams{ProtocolVersion: v, ClientInfo: mcp.Implementation{Name: "c", Version: "1"}})
	if resp := sess.Serve(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: mcp.MethodInitialize, Params: init}); resp.Error != nil {
		b.Fatal(resp.Error)
	}
	sess.Serve(ctx, &jsonrpc.Request{Method: mcp.NotificationInitialized})
	return func(req *jsonrpc.Request) *jsonrpc.Response { return sess.Serve(ctx, req) }
}

// BenchmarkRoundTrip measures a tools/call from an instrumented client to
// an instrumented server, in process (memory transport), against the same
// without instrumentation: both sides' costs, the trace context written
// into the request's _meta by the client and read by the server.
func BenchmarkRoundTrip(b *testing.B) {
	for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
		for _, on := range []bool{false, true} {
			name := string(v) + "/off"
			if on {
				name = string(v) + "/on"
			}
			b.Run(name, func(b *testing.B) {
				var sopts *server.Options
				copts := &client.Options{Version: v}
				if on {
					inst := benchTelemetry(b)
					sopts, copts = inst.Server(nil), inst.Client(copts)
				}
				srv := echoServer(sopts)
				defer srv.Close()
				ct, st := memory.NewPair(nil)
				ctx := context.Background()
				if _, err := srv.Connect(ctx, st); err != nil {
					b.Fatal(err)
				}
				cs, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, copts).Connect(ctx, ct)
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				params := &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"text":"` + strings.Repeat("x", 100) + `"}`)}
				measure(b, func() {
					if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
						b.Fatal(res, err)
					}
				})
			})
		}
	}
}

// measure runs f b.N times, reporting allocations and the process's CPU
// time per call.
func measure(b *testing.B, f func()) {
	f() // warm up: pools, caches, the exporter's connection
	b.ReportAllocs()
	b.ResetTimer()
	before := cpuTime()
	for range b.N {
		f()
	}
	b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
}
