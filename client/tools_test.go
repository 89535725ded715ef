package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/memory"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// headerToolServer is a server with a tool whose x-mcp-header parameters
// are valid ("route", which echoes the headers it was sent), two whose
// annotations are invalid, and a plain one.
func headerToolServer(t *testing.T) *server.Server {
	t.Helper()
	srv := server.New(mcp.Implementation{Name: "headers", Version: "1"}, nil)
	t.Cleanup(func() { srv.Close() })
	text := func(s string) server.ToolHandler {
		return func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			return server.TextResult(s), nil
		}
	}
	for _, tool := range []*mcp.Tool{
		{Name: "route", InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		{Name: "on_number", InputSchema: json.RawMessage(`{"type":"object","properties":{"f":{"type":"number","x-mcp-header":"F"}}}`)},
		{Name: "plain", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "twice", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Zone"},"b":{"type":"string","x-mcp-header":"zone"}}}`)},
	} {
		if err := srv.AddTool(tool, text(tool.Name+" ok")); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

// serveHTTP serves srv with the Streamable HTTP handler and returns a
// transport to it.
func serveHTTP(t *testing.T, srv *server.Server) transport.Transport {
	t.Helper()
	h := streamable.NewHandler(srv, nil)
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		h.Close()
		hs.Close()
	})
	return streamable.NewTransport(hs.URL, &streamable.ClientOptions{HTTPClient: hs.Client()})
}

// TestDroppedToolReported is the regression test of issue 9, defect 7:
// the Streamable HTTP transport dropped the tools whose x-mcp-header
// annotations are invalid from tools/list results and only logged it, so
// that the caller could not know. Now the client drops them (the
// specification asks HTTP clients to) and reports each one: ListTools
// returns the valid page with a DroppedTools error, Tools yields a
// *DroppedToolError in place of each, and the valid tools still get their
// Mcp-Param-* headers from the transport.
func TestDroppedToolReported(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, serveHTTP(t, headerToolServer(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if !sess.IsModern() {
		t.Fatalf("speaks %s, want the modern era", sess.ProtocolVersion())
	}

	res, err := sess.ListTools(ctx, nil)
	if err == nil {
		t.Fatalf("ListTools reported nothing; the page holds %d tools", len(res.Tools))
	}
	var dropped client.DroppedTools
	if !errors.As(err, &dropped) {
		t.Fatalf("ListTools: %v, want a client.DroppedTools", err)
	}
	if got := toolNames(res.Tools); !slices.Equal(got, []string{"route", "plain"}) {
		t.Errorf("the page holds %v, want route and plain", got)
	}
	if len(dropped) != 2 || dropped[0].Tool.Name != "on_number" || dropped[1].Tool.Name != "twice" {
		t.Fatalf("dropped %v, want on_number and twice", err)
	}
	for _, d := range dropped {
		if !errors.Is(d, mcp.ErrInvalidHeaderAnnotation) || len(d.Tool.InputSchema) == 0 {
			t.Errorf("%s: %v, want the listed tool and a cause wrapping mcp.ErrInvalidHeaderAnnotation", d.Tool.Name, d)
		}
	}
	var one *client.DroppedToolError
	if !errors.As(err, &one) || one.Tool.Name != "on_number" || !errors.Is(err, mcp.ErrInvalidHeaderAnnotation) {
		t.Errorf("errors.As and errors.Is do not reach the dropped tools through %v", err)
	}
	t.Log(err)

	var listed, skipped []string
	for tool, err := range sess.Tools(ctx) {
		var d *client.DroppedToolError
		switch {
		case errors.As(err, &d):
			skipped = append(skipped, d.Tool.Name)
		case err != nil:
			t.Fatal(err)
		default:
			listed = append(listed, tool.Name)
		}
	}
	if !slices.Equal(listed, []string{"route", "plain"}) || !slices.Equal(skipped, []string{"on_number", "twice"}) {
		t.Errorf("Tools yielded %v and dropped %v", listed, skipped)
	}

	// The valid tool's parameter goes in its header: the server refuses
	// a call without it (-32020).
	call, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "route", Arguments: json.RawMessage(`{"region":"eu-west"}`)})
	if err != nil || call.IsError {
		t.Fatalf("route: %+v, %v", call, err)
	}
}

// TestToolsKeptWhereNoRuleDropsThem: the drop rule is Streamable HTTP's
// in the modern era. A legacy session over HTTP, and a modern session in
// memory, list every tool and report nothing.
func TestToolsKeptWhereNoRuleDropsThem(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ct, st := memory.NewPair(nil)
	srv := headerToolServer(t)
	if _, err := srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		v mcp.Version
		t transport.Transport
	}{
		"legacy http":   {mcp.LatestLegacy, serveHTTP(t, headerToolServer(t))},
		"modern memory": {"", ct},
	} {
		sess, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{Version: c.v}).Connect(ctx, c.t)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sess.ListTools(ctx, nil)
		if err != nil || len(res.Tools) != 4 {
			t.Errorf("%s: %d tools, %v; want all 4 and no error", name, len(res.Tools), err)
		}
		sess.Close()
	}
}

// TestToolHeadersAfterListChanged: after notifications/tools/list_changed
// the session still gives the transport the parameters it learned (a
// best guess until the tools are listed again), and the next tools/list
// replaces them.
func TestToolHeadersAfterListChanged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv := headerToolServer(t)
	changed := make(chan struct{}, 4)
	sess, err := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
		OnListChanged: func(ctx context.Context, method string) { changed <- struct{}{} },
	}).Connect(ctx, serveHTTP(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	sub, err := sess.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var dropped client.DroppedTools
	if _, err := sess.ListTools(ctx, nil); !errors.As(err, &dropped) {
		t.Fatal(err)
	}
	srv.RemoveTools("plain")
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no list_changed")
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "route", Arguments: json.RawMessage(`{"region":"x"}`)})
	if err != nil || res.IsError {
		t.Fatalf("route after list_changed: %+v, %v", res, err)
	}
}

func toolNames(tools []mcp.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}
