// Package sse implements the legacy HTTP+SSE transport of MCP, the
// transport of revision 2024-11-05, which Streamable HTTP replaced in
// 2025-03-26 (and 2026-07-28 formally deprecated). Old servers still
// speak it.
//
// # Connecting
//
// The server has two endpoints. A GET of the first opens an event stream
// whose first event, "endpoint", names the second; the client POSTs each
// of its messages there (the server answers 202) and reads every message
// of the server, answers included, from the stream:
//
//	GET /sse                    -> event: endpoint, data: /messages?session=42
//	POST /messages?session=42   {"jsonrpc":"2.0","id":1,"method":"initialize",...}  -> 202
//	(on the stream)             event: message, data: {"jsonrpc":"2.0","id":1,"result":{...}}
//
// NewTransport returns a transport.Transport for the MCP client:
//
//	sess, err := client.New(info, nil).Connect(ctx, sse.NewTransport("http://localhost:8080/sse", nil))
//
// Connect waits (ConnectTimeout, 30s by default) for the endpoint event,
// which must name a URL on the same origin as the stream. A session lasts
// as long as the stream: when the server ends it, Read returns io.EOF;
// there is no resumption in this transport.
//
// Usually there is no need to choose: streamable.NewTransport speaks
// Streamable HTTP and falls back to this transport, on the same
// connection, when a server refuses initialize with 400, 404 or 405.
//
// # Limits
//
// Every input is bounded: an event (and the message it carries) by
// ClientOptions.Limits.MaxMessageSize (16 MiB by default), the messages
// read ahead of the caller by MaxQueued (256), each POST by
// ConnectTimeout. Events are decoded by the strict decoder of package
// jsonrpc; one that is not a valid message is reported by Read, which can
// go on.
package sse

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
	wire "github.com/mcpwire/mcpwire/transport/internal/sse"
)

// Defaults of ClientOptions.
const (
	// DefaultConnectTimeout bounds the wait for the endpoint event when
	// connecting, and each POST.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultMaxQueued bounds the messages received and not yet read.
	DefaultMaxQueued = 256
)

// DefaultMaxIdleConnsPerHost is how many idle connections to the server
// the transport's own HTTP client keeps for its POSTs (Go's default, 2,
// makes concurrent calls open and close a connection each).
const DefaultMaxIdleConnsPerHost = 64

// ClientOptions configure a client Transport. A nil *ClientOptions, and
// every zero field, mean the defaults.
type ClientOptions struct {
	// HTTPClient sends the GET and the POSTs. Its Timeout must be zero,
	// since the GET stream lasts as long as the connection. Default: a
	// client of the transport's own (a clone of http.DefaultTransport
	// keeping DefaultMaxIdleConnsPerHost idle connections), whose idle
	// connections are closed with each connection.
	HTTPClient *http.Client
	// Header is added to every request: authorization, for instance.
	Header http.Header
	// Limits bound each incoming message; Limits.MaxMessageSize also
	// bounds an SSE event. Default jsonrpc.DefaultMaxMessageSize (16 MiB).
	Limits jsonrpc.Limits
	// ConnectTimeout bounds the wait for the endpoint event and each
	// POST. Default 30s.
	ConnectTimeout time.Duration
	// MaxQueued bounds the messages received and not yet read; the stream
	// is not read further while the queue is full. Default 256.
	MaxQueued int
	// Logger receives the client's diagnostics. Default: discarded.
	Logger *slog.Logger
	// Observer, if set, sees every frame sent and received: POST bodies,
	// the messages of the stream, and the JSON-RPC error bodies of
	// refused POSTs (see transport.Frame).
	Observer transport.Observer
}

// A Transport connects to an MCP server that speaks the legacy HTTP+SSE
// transport of revision 2024-11-05, at the URL of its event stream (often
// ".../sse"). Each Connect opens a new stream, which is a new session.
//
// Prefer streamable.NewTransport for servers of unknown age: it speaks
// Streamable HTTP and falls back to this transport when initialize is
// refused the way an old server refuses it.
type Transport struct {
	url     string
	opts    ClientOptions
	client  *http.Client
	ownIdle *http.Transport
	dec     *jsonrpc.Decoder
	log     *slog.Logger
}

// NewTransport returns a transport to the event stream at url. The URL is
// checked by Connect.
func NewTransport(url string, opts *ClientOptions) *Transport {
	t := &Transport{url: url}
	if opts != nil {
		t.opts = *opts
	}
	if t.opts.ConnectTimeout <= 0 {
		t.opts.ConnectTimeout = DefaultConnectTimeout
	}
	if t.opts.MaxQueued <= 0 {
		t.opts.MaxQueued = DefaultMaxQueued
	}
	t.client = t.opts.HTTPClient
	if t.client == nil {
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			t.ownIdle = dt.Clone()
			t.ownIdle.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
			t.client = &http.Client{Transport: t.ownIdle}
		} else {
			t.client = &http.Client{}
		}
	}
	t.log = t.opts.Logger
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	t.dec = jsonrpc.NewDecoder(t.opts.Limits, mcp.KnownMethods()...)
	return t
}

// Connect opens the event stream and waits for its endpoint event, within
// ctx and ConnectTimeout. The endpoint must be on the origin of the URL.
// The connection is a *ClientConn.
func (t *Transport) Connect(ctx context.Context) (transport.Conn, error) {
	u, err := wire.ParseEndpoint("sse", t.url)
	if err != nil {
		return nil, err
	}
	lim := t.dec.Limits()
	max := lim.MessageSize()
	if max < int(^uint(0)>>2) {
		max += 4 << 10 // the field names and line breaks around the message
	}
	lc, err := wire.DialLegacy(ctx, u.String(), wire.LegacyOptions{
		Client:       t.client,
		Header:       t.opts.Header,
		MaxEventSize: max,
		Timeout:      t.opts.ConnectTimeout,
		Queue:        t.opts.MaxQueued,
	})
	if err != nil {
		if t.ownIdle != nil {
			t.ownIdle.CloseIdleConnections()
		}
		return nil, err
	}
	t.log.Debug("sse: connected", "endpoint", lc.Endpoint())
	c := &ClientConn{t: t, lc: lc}
	if t.opts.Observer != nil {
		var sid string
		if u, err := url.Parse(lc.Endpoint()); err == nil {
			sid = u.Query().Get(SessionParam)
		}
		c.tr = transport.NewFrameTracker(t.opts.Observer, transport.TransportSSE, sid)
	}
	return c, nil
}

// A ClientConn is a connection of the HTTP+SSE transport: Read returns
// the messages of the server's event stream, Write POSTs each message to
// the endpoint the stream named. It has one goroutine, which reads the
// stream; Close ends it.
type ClientConn struct {
	t    *Transport
	lc   *wire.LegacyClient
	once sync.Once
	tr   *transport.FrameTracker // nil without an observer
}

// Endpoint returns the URL the connection POSTs its messages to.
func (c *ClientConn) Endpoint() string { return c.lc.Endpoint() }

// Read returns the next message of the event stream. It returns io.EOF
// when the stream has ended (the session is then over) and after Close,
// a *jsonrpc.DecodeError for an event that is not a valid message (the
// caller may read on), and another error when reading the stream failed.
func (c *ClientConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	frame, err := c.lc.Next(ctx)
	if err != nil {
		return nil, err
	}
	m, err := c.t.dec.Decode(frame)
	if c.tr != nil {
		c.tr.Observe(transport.Received, frame, m, err, http.StatusOK)
	}
	return m, err
}

// Write POSTs one message to the endpoint and returns once the server has
// accepted it (202). When the server refuses it with a JSON-RPC error
// body, that error (a *jsonrpc.Error) is returned, so that a call fails
// with it; its cause (errors.Unwrap) is the *transport.HTTPStatusError.
// Other failures are returned as Go errors that wrap their cause: another
// refusal wraps a *transport.HTTPStatusError, a network failure a
// *url.Error, a failure of the HTTPClient's RoundTripper the
// RoundTripper's error.
func (c *ClientConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if _, ok := m.(*jsonrpc.Batch); ok {
		return errors.New("sse: a client sends no batches")
	}
	body, err := jsonrpc.Encoder{OmitNullID: true}.Append(nil, m)
	if err != nil {
		return fmt.Errorf("sse: %w", err)
	}
	if c.tr != nil {
		c.tr.Observe(transport.Sent, body, m, nil, 0)
	}
	if err := c.lc.Post(ctx, body); err != nil {
		var se *transport.HTTPStatusError
		if errors.As(err, &se) {
			msg, derr := jsonrpc.Decode(se.Body, nil)
			if c.tr != nil && len(se.Body) > 0 {
				c.tr.Observe(transport.Received, se.Body, msg, derr, se.StatusCode)
			}
			if derr == nil {
				if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
					return r.Error.WithCause(se)
				}
			}
		}
		return err
	}
	return nil
}

// Close ends the stream and waits for its reader; Read then returns
// io.EOF. The 2024-11-05 transport has no explicit end of session: the
// server ends it when the stream closes. Close is idempotent.
func (c *ClientConn) Close() error {
	c.once.Do(func() {
		c.lc.Close()
		if c.t.ownIdle != nil {
			c.t.ownIdle.CloseIdleConnections()
		}
	})
	return nil
}

// Address returns the SSE endpoint URL (see transport.Addresser).
func (t *Transport) Address() string { return t.url }
