package app

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// TestOpenSessionWith: the session of OpenSessionWith has the client's options (here, the
// handler that answers the server's elicitation), lives until end, and
// end, called again, does nothing.
func TestOpenSessionWith(t *testing.T) {
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	err := server.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "Name?", RequestedSchema: []byte(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return "", err
		}
		return "Hello, " + res.Content["name"].(string), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var served *server.Session
	a := New(strings.NewReader(""), io.Discard, io.Discard)
	a.Global.Target.Command = []string{"test"}
	a.Connect = func(ctx context.Context, _ *Target, _ *slog.Logger) (*Link, error) {
		ct, st := memory.NewPair(nil)
		ss, err := srv.Connect(context.Background(), st)
		served = ss
		return &Link{Transport: ct}, err
	}
	for _, v := range []mcp.Version{"2026-07-28", "2025-11-25"} {
		a.Global.Protocol = v
		sess, end, err := a.OpenSessionWith(t.Context(), &a.Global.Target, &client.Options{
			Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
			},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sess.ProtocolVersion() != v {
			t.Errorf("protocol %s, want %s", sess.ProtocolVersion(), v)
		}
		res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask"})
		if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "Hello, Ada" {
			t.Errorf("%s: %v, %v", v, res, err)
		}
		if err := end(); err != nil {
			t.Errorf("end: %v", err)
		}
		if err := end(); err != nil {
			t.Errorf("end again: %v", err)
		}
		select {
		case <-sess.Done():
		default:
			t.Errorf("the session goes on after end")
		}
		served.Close()
		served.Wait()
	}
}
