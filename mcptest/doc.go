// Package mcptest tests MCP servers the way net/http/httptest tests HTTP
// handlers: it runs a *server.Server and a real client in the same
// process, connected in memory, and gives the test the client's session.
//
// # A test of a server
//
//	func TestGreet(t *testing.T) {
//		srv := myserver.New() // a *server.Server with its tools
//		sess := mcptest.Connect(t, srv, nil)
//
//		got := mcptest.CallText(t, sess, "greet", map[string]string{"name": "Ada"})
//		if got != "Hello, Ada!" {
//			t.Errorf("greet said %q", got)
//		}
//	}
//
// Connect fails the test if the client cannot connect, and closes both
// sides when the test ends. The session is a plain *client.Session: list
// tools, read resources, get prompts with its methods. The helpers save
// the error handling of the common cases:
//
//   - CallText returns the text of a tool's result, and fails the test if
//     the call fails or the tool reports an error;
//   - CallError is for a call that must fail as a tool (isError): it
//     returns the message the model would read;
//   - Call[Out] decodes a structured result into a Go value, checked
//     against the tool's outputSchema when the session has listed the
//     tools.
//
// Each call is bounded by Timeout, so that a handler that hangs fails
// its test with a message rather than stalling the run.
//
// # Both eras
//
// MCP has two eras: sessions opened with initialize (up to 2025-11-25)
// and stateless requests (2026-07-28, the client's default). A handler is
// written once for both, and asking the client something (Elicit,
// Sample, ListRoots) works differently in each: a request to the client
// in a session, an input_required round in the stateless era. Test both
// with Eras and Options.Version:
//
//	mcptest.Eras(t, func(t *testing.T, v mcp.Version) {
//		sess := mcptest.Connect(t, srv, &mcptest.Options{
//			Version: v,
//			Client: &client.Options{
//				Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
//					return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
//				},
//			},
//		})
//		...
//	})
//
// Options.Client takes every client option: the handlers that answer
// the server, the notification callbacks, middleware.
//
// # The wire
//
// A Recorder keeps every frame exchanged, byte for byte, as the client
// saw it; give it to Options.Observer. Read them with Frames, or wait for
// one with Wait, which is how a test waits for a notification without
// sleeping:
//
//	var rec mcptest.Recorder
//	mcptest.Connect(t, srv, &mcptest.Options{Version: mcp.LatestLegacy, Observer: &rec})
//	srv.RemoveTools("old")
//	rec.Wait(t, func(f mcptest.Frame) bool { return f.Method == mcp.NotificationToolListChanged })
//
// (In the stateless era, notifications that belong to no request flow
// only while the client listens: see client.Session.Listen.)
//
// Any transport.Observer works in Options.Observer, such as
// transport.LogFrames to see the conversation in the test's log.
//
// # Leaks
//
// Connect's cleanup closes the session and waits for the server's side
// of it, so that a goroutine-leak check (go.uber.org/goleak in TestMain)
// passes after every test. The server itself is the test's: close it if
// it holds resources (tasks, listeners) of its own.
package mcptest
