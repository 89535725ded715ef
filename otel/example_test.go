package otel_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/otel"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// An instrumented client calls an instrumented server: the client's span
// of the tool call is the parent of the server's, through the trace
// context the client wrote into the request's _meta.
func Example() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())
	inst := otel.New(&otel.Options{TracerProvider: tp})

	srv := server.New(mcp.Implementation{Name: "weather", Version: "1"}, inst.Server(nil))
	defer srv.Close()
	type in struct {
		City string `json:"city"`
	}
	server.AddTool(srv, &mcp.Tool{Name: "get_weather"}, func(ctx context.Context, r *server.Request, in in) (string, error) {
		return "sunny in " + in.City, nil
	})
	ctx := context.Background()
	ct, st := memory.NewPair(nil)
	if _, err := srv.Connect(ctx, st); err != nil {
		panic(err)
	}
	cs, err := client.New(mcp.Implementation{Name: "host", Version: "1"}, inst.Client(nil)).Connect(ctx, ct)
	if err != nil {
		panic(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_weather", Arguments: []byte(`{"city":"Paris"}`)})
	if err != nil {
		panic(err)
	}
	cs.Close()
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)

	ended := spans.Ended()
	var lines []string
	for _, s := range ended {
		if !strings.HasPrefix(s.Name(), "tools/call") {
			continue
		}
		parent := "no parent"
		for _, p := range ended {
			if p.SpanContext().SpanID() == s.Parent().SpanID() {
				parent = "child of the " + p.SpanKind().String() + " span"
			}
		}
		lines = append(lines, fmt.Sprintf("%s (%s): %s", s.Name(), s.SpanKind(), parent))
	}
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// sunny in Paris
	// tools/call get_weather (client): no parent
	// tools/call get_weather (server): child of the client span
}
