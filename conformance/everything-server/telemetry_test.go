package main

import (
	"bytes"
	"io"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/otel/otlptest"
	"github.com/mcpwire/mcpwire/transport"
)

// TestTelemetry checks that with OTEL_EXPORTER_OTLP_ENDPOINT set the
// server exports its spans and metrics there (the other tests run
// without it: nothing is set up then).
func TestTelemetry(t *testing.T) {
	r := otlptest.NewReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", r.URL)
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(t.Context(), []string{"-stdio"}, stdinR, stdoutW, &stderr)
		stdoutW.Close()
	}()
	conn := transport.NewLineConn(stdoutR, stdinW, stdinW, nil)
	cs, err := client.New(mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(testCtx(t), pipeTransport{conn})
	if err != nil {
		t.Fatal(err)
	}
	onlyText(t, callTool(t, testCtx(t), cs, "test_simple_text", ""))
	cs.Close()
	select {
	case code := <-done: // run flushes before it returns
		if code != exitOK || stderr.Len() != 0 {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after stdin closed")
	}
	stdoutR.Close()
	r.WaitFor(t, "the server's span and session", func(spans []otlptest.Span, ms []otlptest.Metric) bool {
		s := otlptest.Find(spans, progName, "tools/call test_simple_text", trace.SpanKindServer)
		session := false
		for _, m := range ms {
			session = session || m.Service == progName && m.Name == "mcp.server.session.duration"
		}
		return s != nil && s.Attrs["network.transport"] == "pipe" && session
	})
}
