package otel_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/otel/otlpenv"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/stdio"
)

// The stdio tests run this test binary again as the server: with
// childEnv set, TestMain serves the test server over stdio instead of
// running the tests, exporting its telemetry as the environment says
// (otlpenv), as a real server process would.
const childEnv = "MCPWIRE_OTEL_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	goleak.VerifyTestMain(m)
}

// childCmd returns the command that runs the stdio server, exporting to
// the OTLP endpoint.
func childCmd(endpoint string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	// GORACE: a race-enabled child would sleep a second before exiting.
	cmd.Env = append(os.Environ(), childEnv+"=1", "GORACE=atexit_sleep_ms=0",
		"OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint, "OTEL_SERVICE_NAME=stdio-server")
	return cmd
}

func runChild() int {
	ctx := context.Background()
	tel, err := otlpenv.Setup(ctx, otlpenv.Options{ServiceName: "unnamed"})
	if err != nil || tel == nil {
		fmt.Fprintln(os.Stderr, "child: telemetry:", err, tel)
		return 2
	}
	srv := newTestServer(tel.Instrumentation().Server(nil))
	err = srv.Run(ctx, stdio.New(nil))
	srv.Close() // waits for the session's end to be recorded
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if serr := tel.Shutdown(sctx); serr != nil {
		fmt.Fprintln(os.Stderr, "child: flushing telemetry:", serr)
		return 1
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// newTestServer returns the server of the tests: a tool that does work of
// its own (a span of its own, a log message to the client), a tool that
// fails, a prompt and a resource.
func newTestServer(opts *server.Options) *server.Server {
	s := server.New(mcp.Implementation{Name: "traced", Version: "1.0.0"}, opts)
	type lookupIn struct {
		City string `json:"city"`
	}
	server.AddTool(s, &mcp.Tool{Name: "lookup"}, func(ctx context.Context, r *server.Request, in lookupIn) (string, error) {
		// What the tool calls joins the trace: a span of the tool's own,
		// made with the provider of the span the server gave it.
		_, sp := trace.SpanFromContext(ctx).TracerProvider().Tracer("weather-db").Start(ctx, "db.query")
		sp.End()
		if err := r.Log(ctx, mcp.LevelInfo, "lookup", "looking up "+in.City); err != nil {
			return "", err
		}
		return "sunny in " + in.City, nil
	})
	s.AddTool(&mcp.Tool{Name: "fail", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
		return server.ErrorResult("the service is down"), nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(ctx context.Context, r *server.Request, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Hello"}}}}, nil
	}, nil)
	s.AddResource(&mcp.Resource{URI: "file:///notes.txt", Name: "notes"}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, MimeType: "text/plain", Text: "notes"}}}, nil
	})
	return s
}
