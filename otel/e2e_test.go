package otel_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	mcpotel "github.com/mcpwire/mcpwire/otel"
	"github.com/mcpwire/mcpwire/otel/internal/otlphttp"
	"github.com/mcpwire/mcpwire/otel/internal/sdk"
	"github.com/mcpwire/mcpwire/otel/otlptest"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/command"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// exportTo returns providers that export over OTLP/HTTP to the receiver,
// as service, with the SDK and the exporters otlpenv sets up.
func exportTo(t *testing.T, r *otlptest.Receiver, service string) (*sdk.TracerProvider, *sdk.MeterProvider) {
	texp, err := otlphttp.NewTraceExporter(&otlphttp.Config{URL: r.URL + "/v1/traces"})
	if err != nil {
		t.Fatal(err)
	}
	mexp, err := otlphttp.NewMetricExporter(&otlphttp.Config{URL: r.URL + "/v1/metrics"})
	if err != nil {
		t.Fatal(err)
	}
	res := sdk.NewResource("", attribute.String("service.name", service))
	tp := sdk.NewTracerProvider(texp, sdk.TraceConfig{Resource: res, Sampler: sdk.ParentBased(sdk.AlwaysOn()), Limits: sdk.DefaultSpanLimits, Batch: sdk.DefaultBatchConfig})
	mp := sdk.NewMeterProvider(mexp, sdk.MetricConfig{Resource: res})
	t.Cleanup(func() {
		tp.Shutdown(context.Background())
		mp.Shutdown(context.Background())
	})
	return tp, mp
}

// TestTraceAcrossClientAndServer has an instrumented client call an
// instrumented server over stdio (the server a process of its own,
// exporting as its environment says) and over Streamable HTTP, in both
// protocol eras, and checks what a real OTLP/HTTP receiver got: one trace
// from the host's span through the client's and the server's spans to the
// span of what the tool did, correctly parented, with the attributes of
// the MCP semantic conventions on both sides, and the four duration
// histograms with the conventions' buckets.
func TestTraceAcrossClientAndServer(t *testing.T) {
	rcv := otlptest.NewReceiver(t)
	tp, mp := exportTo(t, rcv, "host")
	inst := mcpotel.New(&mcpotel.Options{TracerProvider: tp, MeterProvider: mp})
	stp, smp := exportTo(t, rcv, "http-server")
	serverInst := mcpotel.New(&mcpotel.Options{TracerProvider: stp, MeterProvider: smp})

	for _, kind := range []string{"stdio", "http"} {
		for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
			t.Run(kind+"/"+string(v), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var tr transport.Transport
				var serverService string
				sessionEnded := make(chan struct{})
				switch kind {
				case "stdio":
					tr = command.New(childCmd(rcv.URL), nil)
					serverService = "stdio-server"
				case "http":
					srv := newTestServer(serverInst.Server(&server.Options{
						OnSessionClosed: func(*server.Session, error) { close(sessionEnded) },
					}))
					h := streamable.NewHandler(srv, nil)
					hs := httptest.NewServer(h)
					defer func() { hs.Close(); h.Close(); srv.Close() }()
					tr = streamable.NewTransport(hs.URL, nil)
					serverService = "http-server"
				}

				// The host: a span of its own around what it asks.
				hctx, host := tp.Tracer("host").Start(ctx, "host "+kind+" "+string(v))
				c := client.New(mcp.Implementation{Name: "traced-client", Version: "1"}, inst.Client(&client.Options{Version: v}))
				cs, err := c.Connect(hctx, tr)
				if err != nil {
					t.Fatal(err)
				}
				logs := client.WithLogLevel(hctx, mcp.LevelDebug)
				if res, err := cs.CallTool(logs, &mcp.CallToolParams{Name: "lookup", Arguments: json.RawMessage(`{"city":"Paris"}`)}); err != nil || res.IsError {
					t.Fatalf("lookup: %v %v", res, err)
				}
				if res, err := cs.CallTool(hctx, &mcp.CallToolParams{Name: "fail"}); err != nil || !res.IsError {
					t.Fatalf("fail: %v %v", res, err)
				}
				if _, err := cs.CallTool(hctx, &mcp.CallToolParams{Name: "nope"}); jsonrpc.ErrorCode(err) != jsonrpc.CodeInvalidParams {
					t.Fatalf("nope: %v, want invalid params", err)
				}
				if _, err := cs.GetPrompt(hctx, &mcp.GetPromptParams{Name: "greet"}); err != nil {
					t.Fatal(err)
				}
				if _, err := cs.ReadResource(hctx, &mcp.ReadResourceParams{URI: "file:///notes.txt"}); err != nil {
					t.Fatal(err)
				}
				sessionID := cs.ID()
				if err := cs.Close(); err != nil { // the stdio server flushes as it exits
					t.Fatal(err)
				}
				host.End()
				if kind == "http" && !mcp.IsModern(v) {
					select {
					case <-sessionEnded:
					case <-ctx.Done():
						t.Fatal("the server's session did not end")
					}
				}
				for _, p := range []interface{ ForceFlush(context.Context) error }{tp, mp, stp, smp} {
					if err := p.ForceFlush(ctx); err != nil {
						t.Fatal(err)
					}
				}

				traceID := host.SpanContext().TraceID().String()
				var spans []otlptest.Span
				rcv.WaitFor(t, "the trace", func(all []otlptest.Span, _ []otlptest.Metric) bool {
					spans = otlptest.InTrace(all, traceID)
					return otlptest.Find(spans, serverService, "db.query", trace.SpanKindInternal) != nil &&
						otlptest.Find(spans, serverService, "resources/read", trace.SpanKindServer) != nil
				})
				check := &traceCheck{t: t, spans: spans, server: serverService, version: v, http: kind == "http", session: sessionID}
				if kind == "http" {
					u, _ := url.Parse(tr.(*streamable.Transport).Address())
					check.host, check.port, _ = net.SplitHostPort(u.Host)
				}
				check.run(host.SpanContext().SpanID().String())

				rcv.WaitFor(t, "the metrics", func(_ []otlptest.Span, ms []otlptest.Metric) bool {
					return hasMetric(ms, "host", "mcp.client.operation.duration", "gen_ai.tool.name", "lookup") &&
						hasMetric(ms, serverService, "mcp.server.operation.duration", "gen_ai.tool.name", "lookup") &&
						hasMetric(ms, "host", "mcp.client.session.duration", "", "") &&
						(kind == "http" && mcp.IsModern(v) || hasMetric(ms, serverService, "mcp.server.session.duration", "", ""))
				})
			})
		}
	}
	checkMetrics(t, rcv)
}

// A traceCheck checks the spans of one trace.
type traceCheck struct {
	t       *testing.T
	spans   []otlptest.Span
	server  string // the server's service name
	version mcp.Version
	http    bool
	session string // the client's session id
	host    string // server.address, over HTTP
	port    string
}

func (c *traceCheck) run(hostSpan string) {
	t := c.t
	t.Helper()
	t.Logf("the trace:\n%s", otlptest.Tree(c.spans))
	// The tool call: host → client → server → what the tool did.
	cl := c.mustFind("host", "tools/call lookup", trace.SpanKindClient)
	sv := c.mustFind(c.server, "tools/call lookup", trace.SpanKindServer)
	db := c.mustFind(c.server, "db.query", trace.SpanKindInternal)
	if cl.Parent != hostSpan {
		t.Errorf("the client's span has parent %s, want the host's span %s", cl.Parent, hostSpan)
	}
	if sv.Parent != cl.SpanID {
		t.Errorf("the server's span has parent %s, want the client's span %s", sv.Parent, cl.SpanID)
	}
	if db.Parent != sv.SpanID {
		t.Errorf("the tool's own span has parent %s, want the server's span %s", db.Parent, sv.SpanID)
	}
	want := map[string]string{
		"mcp.method.name":       "tools/call",
		"gen_ai.tool.name":      "lookup",
		"gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version":  string(c.version),
	}
	c.attrs(cl, want, "error.type", "mcp.resource.uri", "gen_ai.prompt.name")
	c.attrs(sv, want, "error.type", "server.address")
	if cl.Attrs["jsonrpc.request.id"] == "" || cl.Attrs["jsonrpc.request.id"] != sv.Attrs["jsonrpc.request.id"] {
		t.Errorf("jsonrpc.request.id: client %q, server %q; want the same id", cl.Attrs["jsonrpc.request.id"], sv.Attrs["jsonrpc.request.id"])
	}
	for _, s := range []*otlptest.Span{cl, sv} {
		c.transport(s)
		if s.Status != codes.Unset {
			t.Errorf("%s %q: status %v, want unset", s.Service, s.Name, s.Status)
		}
	}
	if c.http {
		c.attrs(cl, map[string]string{"server.address": c.host, "server.port": c.port})
	} else {
		c.attrs(cl, nil, "server.address", "server.port")
	}

	// The log message of the tool: the server's CLIENT span under its
	// own span, the client's SERVER span under that.
	sl := c.mustFind(c.server, "notifications/message", trace.SpanKindClient)
	cll := c.mustFind("host", "notifications/message", trace.SpanKindServer)
	if sl.Parent != sv.SpanID || cll.Parent != sl.SpanID {
		t.Errorf("notifications/message: the server's span has parent %s (want %s), the client's %s (want %s)", sl.Parent, sv.SpanID, cll.Parent, sl.SpanID)
	}
	c.attrs(sl, map[string]string{"mcp.method.name": "notifications/message"}, "jsonrpc.request.id")

	// A tool that reports an error, and one that does not exist.
	for _, side := range []struct {
		service string
		kind    trace.SpanKind
	}{{"host", trace.SpanKindClient}, {c.server, trace.SpanKindServer}} {
		f := c.mustFind(side.service, "tools/call fail", side.kind)
		c.attrs(f, map[string]string{"error.type": "tool_error", "gen_ai.tool.name": "fail"}, "rpc.response.status_code")
		if f.Status != codes.Error {
			t.Errorf("%s %q: status %v, want error", f.Service, f.Name, f.Status)
		}
		n := c.mustFind(side.service, "tools/call nope", side.kind)
		c.attrs(n, map[string]string{"error.type": "-32602", "rpc.response.status_code": "-32602"})
		if n.Status != codes.Error || n.StatusMessage == "" {
			t.Errorf("%s %q: status %v %q, want error with the JSON-RPC message", n.Service, n.Name, n.Status, n.StatusMessage)
		}
		p := c.mustFind(side.service, "prompts/get greet", side.kind)
		c.attrs(p, map[string]string{"gen_ai.prompt.name": "greet", "mcp.method.name": "prompts/get"}, "gen_ai.operation.name", "gen_ai.tool.name")
		r := c.mustFind(side.service, "resources/read", side.kind)
		c.attrs(r, map[string]string{"mcp.resource.uri": "file:///notes.txt"})
	}

	// The handshake.
	handshake := "initialize"
	if mcp.IsModern(c.version) {
		handshake = "server/discover"
	}
	hs := c.mustFind("host", handshake, trace.SpanKindClient)
	c.attrs(hs, map[string]string{"mcp.protocol.version": string(c.version)})
	if hs.Parent != hostSpan {
		t.Errorf("%s: parent %s, want the host's span", handshake, hs.Parent)
	}
}

// transport checks the session and transport attributes of s.
func (c *traceCheck) transport(s *otlptest.Span) {
	switch {
	case c.http:
		c.attrs(s, map[string]string{"network.transport": "tcp", "network.protocol.name": "http"})
	default:
		c.attrs(s, map[string]string{"network.transport": "pipe"}, "network.protocol.name")
	}
	switch {
	case c.http && !mcp.IsModern(c.version):
		if c.session == "" {
			c.t.Fatal("a legacy HTTP session has no id")
		}
		c.attrs(s, map[string]string{"mcp.session.id": c.session})
	default:
		c.attrs(s, nil, "mcp.session.id")
	}
}

// attrs checks that s has the attributes of want, and none of absent.
func (c *traceCheck) attrs(s *otlptest.Span, want map[string]string, absent ...string) {
	c.t.Helper()
	for k, v := range want {
		if got, ok := s.Attrs[k]; !ok || got != v {
			c.t.Errorf("%s %s %q: %s = %q, want %q", s.Service, s.Kind, s.Name, k, got, v)
		}
	}
	for _, k := range absent {
		if v, ok := s.Attrs[k]; ok {
			c.t.Errorf("%s %s %q: %s = %q, want none", s.Service, s.Kind, s.Name, k, v)
		}
	}
}

func (c *traceCheck) mustFind(service, name string, kind trace.SpanKind) *otlptest.Span {
	c.t.Helper()
	s := otlptest.Find(c.spans, service, name, kind)
	if s == nil {
		c.t.Fatalf("no %s span %q from %s in the trace", kind, name, service)
	}
	return s
}

func hasMetric(ms []otlptest.Metric, service, name, key, value string) bool {
	return slices.ContainsFunc(ms, func(m otlptest.Metric) bool {
		return m.Service == service && m.Name == name && (key == "" || m.Attrs[key] == value)
	})
}

// checkMetrics checks the histograms received: their unit, the
// conventions' buckets, and the attributes of the tool call's operation
// duration.
func checkMetrics(t *testing.T, rcv *otlptest.Receiver) {
	buckets := []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
	seen := map[string]bool{}
	for _, m := range rcv.Metrics() {
		seen[m.Name] = true
		if m.Unit != "s" || !slices.Equal(m.Bounds, buckets) {
			t.Errorf("%s: unit %q, buckets %v; want s and %v", m.Name, m.Unit, m.Bounds, buckets)
		}
		for _, k := range []string{"mcp.session.id", "jsonrpc.request.id", "mcp.resource.uri"} {
			if _, ok := m.Attrs[k]; ok {
				t.Errorf("%s has %s, which the conventions leave out of metrics", m.Name, k)
			}
		}
		if m.Name == "mcp.server.operation.duration" && m.Attrs["mcp.method.name"] == "tools/call" && m.Attrs["error.type"] == "-32602" {
			if _, ok := m.Attrs["gen_ai.tool.name"]; ok {
				t.Errorf("%s: the unknown tool's name reached a metric: %v", m.Name, m.Attrs)
			}
		}
	}
	for _, name := range []string{"mcp.client.operation.duration", "mcp.server.operation.duration", "mcp.client.session.duration", "mcp.server.session.duration"} {
		if !seen[name] {
			t.Errorf("no %s received", name)
		}
	}
}
