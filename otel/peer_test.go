package otel_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	mcpotel "github.com/mcpwire/mcpwire/otel"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// What a peer sends must not make what the instrumentation records grow
// without bound: these tests play the peer. They use the official SDK
// (any SDK will do: what is bounded is what the instrumentation hands
// it).

// peerBound is the longest string the instrumentation records from a
// peer (otel.MaxValueLength).
const peerBound = 1024

// TestPeerStringsAreBounded has a client send a tool name, a resource
// URI, a request id and a method of 100 kB, and a server answer with an
// error message as long: every span name, attribute and status description that holds
// them is cut to the bound. Whole, a span held megabytes (a message may
// be 16 MiB), the batch span processor's queue 2048 of them, and a batch
// past the exporter's 64 MiB bound was lost with every span in it.
func TestPeerStringsAreBounded(t *testing.T) {
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(ctx)
	inst := mcpotel.New(&mcpotel.Options{TracerProvider: tp})
	big := strings.Repeat("é", 50_000)

	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, inst.Server(nil))
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "fail", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, big)
	})
	ct, st := memory.NewPair(nil)
	if _, err := srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	cs, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, inst.Client(nil)).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: big}); err == nil {
		t.Fatal("an unknown tool was called")
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail"}); err == nil {
		t.Fatal("fail did not fail")
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///" + big}); err == nil {
		t.Fatal("an unknown resource was read")
	}
	// A request id of the peer's choosing, on a session of the server's.
	sess, err := srv.Open(ctx, "raw", nopWriter{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	init, _ := json.Marshal(mcp.InitializeParams{ProtocolVersion: mcp.LatestLegacy, ClientInfo: mcp.Implementation{Name: "c", Version: "1"}})
	sess.Serve(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: mcp.MethodInitialize, Params: init})
	sess.Serve(ctx, &jsonrpc.Request{Method: mcp.NotificationInitialized})
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":"` + big + `","method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"` + big + `"}`, // a method of the peer's
	} {
		req, err := jsonrpc.Decode([]byte(frame), nil)
		if err != nil {
			t.Fatal(err)
		}
		sess.Serve(ctx, req.(*jsonrpc.Request))
	}

	ended := spans.Ended()
	if len(ended) < 8 {
		t.Fatalf("%d spans", len(ended))
	}
	for _, s := range ended {
		method, _, _ := strings.Cut(s.Name(), " ")
		if n := len(s.Name()); n > len(method)+1+peerBound {
			t.Errorf("a span name of %d bytes (%.40q...)", n, s.Name())
		}
		for _, kv := range s.Attributes() {
			if v := kv.Value.AsString(); len(v) > peerBound {
				t.Errorf("span %.40q: %s of %d bytes", s.Name(), kv.Key, len(v))
			}
		}
		if d := s.Status().Description; len(d) > peerBound {
			t.Errorf("span %.40q: a status description of %d bytes", s.Name(), len(d))
		}
	}
}

// TestPeerErrorCodesAreBounded has a server answer each call with an
// error code of its own choosing: on the client's side, each code was a
// new series of mcp.client.operation.duration (error.type and
// rpc.response.status_code), up to the SDK's cardinality limit, after
// which the client's own new series went to the overflow one. A code
// that JSON-RPC and MCP do not define is now _OTHER there (the span
// keeps it).
func TestPeerErrorCodesAreBounded(t *testing.T) {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(ctx)
	inst := mcpotel.New(&mcpotel.Options{MeterProvider: mp})

	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil) // the peer: not instrumented
	defer srv.Close()
	srv.AddTool(&mcp.Tool{Name: "coded", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		var in struct{ Code int64 }
		json.Unmarshal(p.Arguments, &in)
		return nil, jsonrpc.NewError(jsonrpc.Code(in.Code), "chosen")
	})
	ct, st := memory.NewPair(nil)
	if _, err := srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	cs, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, inst.Client(nil)).Connect(ctx, ct)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	codes := []int64{int64(jsonrpc.CodeInvalidParams), int64(jsonrpc.CodeInternalError)} // defined: kept
	for i := range 40 {
		codes = append(codes, 1000+int64(i), -1_000_000-int64(i))
	}
	for _, c := range codes {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "coded", Arguments: json.RawMessage(`{"code":` + strconv.FormatInt(c, 10) + `}`)}); err == nil {
			t.Fatal("no error")
		}
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	types := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcp.client.operation.duration" {
				continue
			}
			for _, p := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				if v, ok := p.Attributes.Value(attribute.Key("error.type")); ok {
					types[v.AsString()] = true
				}
			}
		}
	}
	if len(types) != 3 || !types["-32602"] || !types["-32603"] || !types["_OTHER"] {
		t.Errorf("error.type of the client's series: %d values (%v), want -32602, -32603 and _OTHER", len(types), keys(types))
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
		if len(out) == 5 {
			break
		}
	}
	return out
}
