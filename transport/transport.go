// Package transport is the message-level seam between MCP peers and the
// ways their messages travel.
//
// A Transport makes connections; a Conn carries whole JSON-RPC messages in
// both directions. The MCP server and client are written against these two
// interfaces only, so any transport works with either:
//
//   - stdio: the server side of a subprocess (stdin/stdout), in package
//     transport/stdio;
//   - command: the client side, spawning a server as a subprocess, in
//     package transport/command;
//   - memory: an in-process pair, in package transport/memory;
//   - Streamable HTTP and the legacy HTTP+SSE transport, in their own
//     packages.
//
// Framing, bounds and strictness live here too: NewLineConn turns any byte
// stream into a Conn of newline-delimited JSON-RPC messages, with a maximum
// message size and the strict decoder of package jsonrpc.
//
// # Seeing the wire
//
// Every transport shows each frame it sends and receives to an Observer
// given in its options: the bytes as they crossed the wire, the direction,
// the time, the transport and session, the decoded message or why it is not
// one, and for a response the method of its request and the latency. Frames
// that cannot be decoded are shown too. LogFrames writes them to a
// *slog.Logger; FrameTracker does the bookkeeping for code that sees frames
// by other means. Without an observer a transport does no work for it.
package transport

import (
	"context"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// A Transport makes connections to a peer. Connect returns when the
// connection is ready to carry messages; it does not exchange any.
type Transport interface {
	Connect(ctx context.Context) (Conn, error)
}

// A Conn carries JSON-RPC messages between two peers. It is a
// jsonrpc.Stream:
//
//   - Read returns the next message; io.EOF when the peer has closed its
//     side; a *jsonrpc.DecodeError for a frame that is not a valid message,
//     after which reading can go on.
//   - Write sends one message. Callers never call Write concurrently.
//   - Close releases the connection and unblocks a pending Read.
type Conn interface {
	jsonrpc.Stream
}

// A SessionConn is a Conn that belongs to a transport-level session, such
// as a Streamable HTTP session; SessionID returns its id ("" when the
// transport has none).
type SessionConn interface {
	Conn
	SessionID() string
}

// An Addresser is a Transport that names the peer it connects to: the
// origin of an HTTP endpoint, or the command line of a subprocess.
// Clients use the name to remember what they learned about the peer,
// such as the protocol era it speaks.
type Addresser interface {
	Address() string
}
