package mcptest

import (
	"context"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/memory"
)

// Timeout bounds the handshake of Connect and each call made by the
// helpers of this package (CallText, CallError, Call). A test that needs
// longer calls the session itself, with a context of its own.
const Timeout = 30 * time.Second

// Options configure Connect. A nil *Options, and every zero field, mean
// the defaults: the newest protocol revision, a client without handlers,
// no observer.
type Options struct {
	// Version is the protocol revision the client speaks: mcp.Latest
	// (2026-07-28, the stateless era, also the default) or a legacy
	// revision such as mcp.LatestLegacy, which opens a session with
	// initialize. If set, it overrides Client.Version.
	Version mcp.Version
	// Client configures the client: the handlers that answer the
	// server's questions (Elicit, Sample, Roots), the notification
	// callbacks (OnLog, OnListChanged, ...), its middleware. Nil: a
	// client without handlers.
	Client *client.Options
	// Info is what the client says of itself. Default: "mcptest" 1.0.0.
	Info mcp.Implementation
	// Observer, if set, sees every frame exchanged, as the client sees
	// it: Sent for the client's messages, Received for the server's. A
	// *Recorder keeps them for the test to read.
	Observer transport.Observer
}

// Connect serves srv to a new client over an in-memory connection, runs
// the handshake, and returns the client's session. The session and the
// server's side of it end when the test does (t.Cleanup); srv itself
// is left to the caller. A failure to connect fails the test.
//
// Messages go through the same encoders and strict decoders as on stdio
// or HTTP, so what passes here passes on a real transport; only the
// bytes skip the pipe.
func Connect(t testing.TB, srv *server.Server, opts *Options) *client.Session {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	var co client.Options
	if o.Client != nil {
		co = *o.Client
	}
	if o.Version != "" {
		co.Version = o.Version
	}
	if o.Info.Name == "" {
		o.Info = mcp.Implementation{Name: "mcptest", Version: "1.0.0"}
	}
	ct, st := memory.NewPair(&memory.Options{Observer: o.Observer})
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatalf("mcptest: serving the server: %v", err)
	}
	t.Cleanup(func() {
		ss.Close()
		ss.Wait()
	})
	sess, err := client.New(o.Info, &co).Connect(ctx, ct)
	if err != nil {
		t.Fatalf("mcptest: connecting the client: %v", err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// Eras runs f as a subtest in each protocol era, "modern" (mcp.Latest,
// stateless) and "legacy" (mcp.LatestLegacy, with a session), with the
// revision to give Options.Version:
//
//	mcptest.Eras(t, func(t *testing.T, v mcp.Version) {
//		sess := mcptest.Connect(t, srv, &mcptest.Options{Version: v})
//		...
//	})
//
// A server's handlers are written once for both eras; Eras tests them
// once for both.
func Eras(t *testing.T, f func(t *testing.T, v mcp.Version)) {
	t.Helper()
	for _, era := range []struct {
		name string
		v    mcp.Version
	}{{"modern", mcp.Latest}, {"legacy", mcp.LatestLegacy}} {
		t.Run(era.name, func(t *testing.T) { f(t, era.v) })
	}
}
