package client_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestSessionFromContextInMiddleware checks, over HTTP in both eras, that
// the client's middleware both ways learns the session of each message
// (SessionFromContext), with the transport's session id and the server's
// address, and that OnSessionClosed has run when Close returns.
func TestSessionFromContextInMiddleware(t *testing.T) {
	for _, v := range []mcp.Version{mcp.LatestLegacy, mcp.Latest} {
		t.Run(string(v), func(t *testing.T) {
			srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
			srv.AddTool(&mcp.Tool{Name: "log", InputSchema: []byte(`{"type":"object"}`)}, func(ctx context.Context, r *server.Request, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
				return server.TextResult("ok"), r.Log(ctx, mcp.LevelInfo, "t", "hello")
			})
			h := streamable.NewHandler(srv, nil)
			hs := httptest.NewServer(h)
			defer func() { hs.Close(); h.Close(); srv.Close() }()

			var mu sync.Mutex
			var out, in []*client.Session
			var ids []string
			record := func(list *[]*client.Session) jsonrpc.Middleware {
				return func(next jsonrpc.Handler) jsonrpc.Handler {
					return jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
						s := client.SessionFromContext(ctx)
						res, err := next.Handle(ctx, req)
						mu.Lock()
						*list = append(*list, s)
						if s != nil {
							ids = append(ids, s.ID())
						}
						mu.Unlock()
						return res, err
					})
				}
			}
			closed := 0
			c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
				Version:         v,
				Outgoing:        []jsonrpc.Middleware{record(&out)},
				Middleware:      []jsonrpc.Middleware{record(&in)},
				OnSessionClosed: func(*client.Session, error) { closed++ },
			})
			ctx := client.WithLogLevel(context.Background(), mcp.LevelDebug)
			cs, err := c.Connect(ctx, streamable.NewTransport(hs.URL, nil))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "log"}); err != nil {
				t.Fatal(err)
			}
			if cs.Address() != hs.URL {
				t.Errorf("Address() = %q, want %q", cs.Address(), hs.URL)
			}
			if legacy := !mcp.IsModern(v); legacy != (cs.ID() != "") {
				t.Errorf("ID() = %q in a %s session", cs.ID(), v)
			}
			if err := cs.Close(); err != nil {
				t.Fatal(err)
			}
			if closed != 1 {
				t.Errorf("OnSessionClosed ran %d times before Close returned, want 1", closed)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(out) < 2 || len(in) < 1 {
				t.Fatalf("the middleware saw %d outgoing and %d incoming messages", len(out), len(in))
			}
			for _, s := range append(out, in...) {
				if s != cs {
					t.Errorf("SessionFromContext = %p, want the session %p", s, cs)
				}
			}
			if last := ids[len(ids)-1]; last != cs.ID() {
				t.Errorf("the middleware saw the session id %q, want %q", last, cs.ID())
			}
		})
	}
}

// TestOnSessionClosedWhenHandshakeFails checks that a session whose
// handshake fails is reported ended too.
func TestOnSessionClosedWhenHandshakeFails(t *testing.T) {
	// A server of the modern era only, which refuses initialize.
	srv := server.New(mcp.Implementation{Name: "s", Version: "1"}, &server.Options{Versions: []mcp.Version{mcp.Latest}})
	defer srv.Close()
	ct, st := memory.NewPair(nil)
	if _, err := srv.Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	var got []*client.Session
	c := client.New(mcp.Implementation{Name: "c", Version: "1"}, &client.Options{
		Version:         mcp.LatestLegacy,
		OnSessionClosed: func(s *client.Session, err error) { got = append(got, s) },
	})
	if _, err := c.Connect(context.Background(), ct); err == nil {
		t.Fatal("Connect succeeded with no server")
	}
	if len(got) != 1 || got[0] == nil {
		t.Errorf("OnSessionClosed got %v, want one session", got)
	}
}
