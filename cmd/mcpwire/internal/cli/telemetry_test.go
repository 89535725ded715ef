package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/otel/otlptest"
)

// TestTelemetry runs mcpwire against mcpwire serve, both real processes,
// with OTEL_EXPORTER_OTLP_ENDPOINT set (testdata/telemetry), and checks
// what reached the OTLP receiver: for each command, one trace from the
// command's span through the client's spans to the server's, in both
// protocol eras.
func TestTelemetry(t *testing.T) {
	r := otlptest.NewReceiver(t)
	t.Run("scripts", func(t *testing.T) {
		testscript.Run(t, testscript.Params{
			Dir:                 filepath.Join("testdata", "telemetry"),
			RequireExplicitExec: true,
			Setup: func(e *testscript.Env) error {
				e.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
				e.Setenv("OTLP", r.URL)
				return nil
			},
		})
	})
	for _, c := range []struct{ command, call, handshake string }{
		{"mcpwire call", "tools/call read_text_file", "server/discover"},
		{"mcpwire tools", "tools/list", "initialize"},
	} {
		var root *otlptest.Span
		var spans []otlptest.Span
		r.WaitFor(t, c.command+"'s trace", func(all []otlptest.Span, _ []otlptest.Metric) bool {
			if root = otlptest.Find(all, "mcpwire", c.command, trace.SpanKindInternal); root == nil {
				return false
			}
			spans = otlptest.InTrace(all, root.TraceID)
			return otlptest.Find(spans, "mcpwire", c.call, trace.SpanKindServer) != nil
		})
		t.Logf("%s:\n%s", c.command, otlptest.Tree(spans, "mcp.protocol.version", "network.transport", "jsonrpc.request.id", "gen_ai.tool.name"))
		cl := otlptest.Find(spans, "mcpwire", c.call, trace.SpanKindClient)
		sv := otlptest.Find(spans, "mcpwire", c.call, trace.SpanKindServer)
		hs := otlptest.Find(spans, "mcpwire", c.handshake, trace.SpanKindClient)
		switch {
		case root.Parent != "":
			t.Errorf("%s: the command's span has a parent", c.command)
		case cl == nil || cl.Parent != root.SpanID:
			t.Errorf("%s: the client's %s span is not the command's child: %+v", c.command, c.call, cl)
		case sv.Parent != cl.SpanID:
			t.Errorf("%s: the server's span has parent %s, want the client's %s", c.command, sv.Parent, cl.SpanID)
		case hs == nil || hs.Parent != root.SpanID:
			t.Errorf("%s: no %s span under the command's", c.command, c.handshake)
		case cl.Attrs["network.transport"] != "pipe" || sv.Attrs["network.transport"] != "pipe":
			t.Errorf("%s: network.transport %q and %q, want pipe", c.command, cl.Attrs["network.transport"], sv.Attrs["network.transport"])
		}
	}
	r.WaitFor(t, "the server's metrics", func(_ []otlptest.Span, ms []otlptest.Metric) bool {
		for _, m := range ms {
			if m.Name == "mcp.server.session.duration" {
				return true
			}
		}
		return false
	})
}
