package server_test

import (
	"context"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// What Session.ClientCapabilities and Session.ClientInfo return is the
// caller's: sessions whose clients declared the same share their state
// (session_client.go), and a handler that changes the value it got, even
// through its pointers, changes nothing of another session.
func TestSessionClientStateIsACopy(t *testing.T) {
	s := server.New(mcp.Implementation{Name: "s", Version: "1"}, nil)
	t.Cleanup(func() { s.Close() })
	err := server.AddTool(s, &mcp.Tool{Name: "tamper"}, func(ctx context.Context, r *server.Request, in struct{}) (string, error) {
		sess := server.SessionFromContext(ctx)
		if caps := sess.ClientCapabilities(); caps.Roots != nil {
			caps.Roots.ListChanged = false
		}
		if info := sess.ClientInfo(); len(info.Icons) > 0 {
			info.Icons[0].Src = "https://evil.example/icon.png"
		}
		return "done", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const icon = "https://client.example/icon.png"
	impl := mcp.Implementation{Name: "c", Version: "1", Icons: []mcp.Icon{{Src: icon}}}
	opts := &client.Options{
		Version: mcp.LatestLegacy,
		Roots:   func(ctx context.Context) (*mcp.ListRootsResult, error) { return &mcp.ListRootsResult{}, nil },
	}
	var first *client.Session
	for i := range 2 {
		ct, st := memory.NewPair(nil)
		ss, err := s.Connect(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := client.New(impl, opts).Connect(context.Background(), ct)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close(); ss.Close(); ss.Wait() })
		if i == 0 {
			first = cs
		}
	}
	if _, err := first.CallTool(context.Background(), &mcp.CallToolParams{Name: "tamper"}); err != nil {
		t.Fatal(err)
	}
	for ss := range s.Sessions() {
		if c := ss.ClientCapabilities(); c.Roots == nil || !c.Roots.ListChanged {
			t.Errorf("a session's roots capability is %+v after a handler changed its copy; want ListChanged", c.Roots)
		}
		if info := ss.ClientInfo(); len(info.Icons) != 1 || info.Icons[0].Src != icon {
			t.Errorf("a session's client icons are %+v after a handler changed its copy; want %s", info.Icons, icon)
		}
	}
}
