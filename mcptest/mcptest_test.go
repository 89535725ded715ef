package mcptest_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/mcptest"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
)

// TestConnectEras: Eras runs a subtest per era; Connect speaks the
// revision asked for, with the client's handlers answering the server in
// both eras; the cleanup closes the server's side of the session.
func TestConnectEras(t *testing.T) {
	srv := greeter()
	defer srv.Close()
	var eras []string
	var elicited atomic.Int32
	mcptest.Eras(t, func(t *testing.T, v mcp.Version) {
		eras = append(eras, t.Name())
		sess := mcptest.Connect(t, srv, &mcptest.Options{
			Version: v,
			Info:    mcp.Implementation{Name: "tester", Version: "2"},
			Client: &client.Options{
				Version: "2024-11-05", // overridden by Options.Version
				Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					elicited.Add(1)
					return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Lin"}}, nil
				},
			},
		})
		if sess.ProtocolVersion() != v || sess.IsModern() != (v == mcp.Latest) {
			t.Errorf("speaks %s, want %s", sess.ProtocolVersion(), v)
		}
		if got := mcptest.CallText(t, sess, "ask", nil); got != "Hello, Lin!" {
			t.Errorf("ask: %q", got)
		}
	})
	if strings.Join(eras, " ") != "TestConnectEras/modern TestConnectEras/legacy" {
		t.Errorf("subtests %v", eras)
	}
	if elicited.Load() != 2 {
		t.Errorf("the Elicit handler answered %d times, want once per era", elicited.Load())
	}
	for s := range srv.Sessions() {
		t.Errorf("session %v outlived its test", s)
	}
}

// TestHelpersFail: each helper fails the test, with a message that says
// why, when the call does not go as it expects.
func TestHelpersFail(t *testing.T) {
	srv := greeter()
	defer srv.Close()
	for _, tc := range []struct {
		name string
		f    func(t testing.TB, sess *client.Session)
		want string
	}{
		{"CallText of a failing tool", func(t testing.TB, s *client.Session) { mcptest.CallText(t, s, "greet", map[string]string{"name": ""}) }, `tool "greet" failed: whom should I greet?`},
		{"CallError of a tool that works", func(t testing.TB, s *client.Session) {
			mcptest.CallError(t, s, "greet", json.RawMessage(`{"name":"Ada"}`))
		}, `succeeded, want a tool error; it said: Hello, Ada!`},
		{"an unknown tool", func(t testing.TB, s *client.Session) { mcptest.CallText(t, s, "nope", nil) }, `calling tool "nope"`},
		{"arguments that do not encode", func(t testing.TB, s *client.Session) { mcptest.CallText(t, s, "greet", func() {}) }, `encoding the arguments of tool "greet"`},
		{"Call of text that is not JSON", func(t testing.TB, s *client.Session) {
			mcptest.Call[int](t, s, "greet", map[string]string{"name": "Ada"})
		}, `is not the JSON of int`},
	} {
		ft := &fakeT{}
		sess := mcptest.Connect(ft, srv, nil)
		got := ft.run(func(t testing.TB) { tc.f(t, sess) })
		ft.finish()
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: failure %q, want one that says %q", tc.name, got, tc.want)
		}
	}
	ft := &fakeT{}
	if got := ft.run(func(t testing.TB) { mcptest.Connect(t, srv, &mcptest.Options{Version: "1999-01-01"}) }); !strings.Contains(got, "connecting the client") {
		t.Errorf("Connect with an unknown revision: failure %q", got)
	}
	ft.finish()
}

// TestRecorder: frames of both directions are recorded as the client saw
// them, with the method of the request a response answers; Wait returns
// a frame that came on its own, such as a notification; Max bounds what
// is kept.
func TestRecorder(t *testing.T) {
	srv := greeter()
	defer srv.Close()
	rec := &mcptest.Recorder{Max: 3}
	sess := mcptest.Connect(t, srv, &mcptest.Options{Version: mcp.LatestLegacy, Observer: rec})
	mcptest.CallText(t, sess, "greet", map[string]string{"name": "Ada"})
	server.AddTool(srv, &mcp.Tool{Name: "new"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) { return "", nil })
	f := rec.Wait(t, func(f mcptest.Frame) bool { return f.Method == mcp.NotificationToolListChanged })
	if f.Direction != transport.Received || !strings.Contains(string(f.Raw), `"notifications/tools/list_changed"`) {
		t.Errorf("waited for %v", f)
	}
	frames := rec.Frames()
	if len(frames) != 3 {
		t.Fatalf("kept %d frames, want Max (3): %v", len(frames), frames)
	}
	var call, answer bool
	for _, f := range frames {
		switch {
		case f.Method == mcp.MethodCallTool && f.Direction == transport.Sent:
			call = strings.HasPrefix(f.String(), `-> {"jsonrpc":"2.0","id":`)
		case f.Method == mcp.MethodCallTool && f.Direction == transport.Received:
			answer = strings.Contains(f.String(), `<- {"jsonrpc":"2.0","id":`) && strings.Contains(f.String(), "Hello, Ada!")
		}
	}
	if !call || !answer {
		t.Errorf("the call and its answer are not among the last frames: %v", frames)
	}
	rec.Reset()
	if fs := rec.Frames(); len(fs) != 0 {
		t.Errorf("after Reset: %v", fs)
	}
}
