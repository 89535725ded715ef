package server_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// TestModernEnvelopePerRequest: the server decodes the envelope a client
// repeats once, and still gives every request its own client's info and
// capabilities when clients that differ take turns.
func TestModernEnvelopePerRequest(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	t.Cleanup(func() { s.Close() })
	err := server.AddTool(s, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		who := r.ClientInfo().Name
		if r.ClientCapabilities().Roots != nil {
			who += "+roots"
		}
		return who, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dial := func(name string, opts *client.Options) *client.Session {
		ct, st := memory.NewPair(nil)
		ss, err := s.Connect(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := client.New(mcp.Implementation{Name: name, Version: "1"}, opts).Connect(context.Background(), ct)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); ss.Close(); ss.Wait() })
		return cs
	}
	roots := func(context.Context) (*mcp.ListRootsResult, error) { return &mcp.ListRootsResult{}, nil }
	sessions := map[string]*client.Session{
		"a":       dial("a", nil),
		"b":       dial("b", nil),
		"a+roots": dial("a", &client.Options{Roots: roots}),
	}
	for range 3 {
		for want, cs := range sessions {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; got != want {
				t.Errorf("the server saw %q, want %q", got, want)
			}
		}
	}
}
