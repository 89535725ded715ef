package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/peer"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// Options configure a Client. A nil *Options, and every zero field, mean
// the defaults. Setting a handler declares the matching capability.
type Options struct {
	// Sample answers the server's sampling requests (sampling/createMessage
	// in the legacy era, input requests in the modern era); it declares
	// the sampling capability.
	Sample func(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// SampleWithTools declares that Sample accepts tools and toolChoice.
	SampleWithTools bool
	// Elicit answers the server's questions to the user; it declares the
	// elicitation capability (form mode, and URL mode if ElicitURL).
	Elicit func(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// ElicitURL declares that Elicit handles URL-mode elicitation.
	ElicitURL bool
	// Roots answers roots/list; it declares the roots capability.
	Roots func(ctx context.Context) (*mcp.ListRootsResult, error)

	// OnLog receives the server's log messages (notifications/message).
	OnLog func(ctx context.Context, params *mcp.LoggingMessageParams)
	// OnListChanged is told when the server's tools, prompts or resources
	// changed: method is the notification's name, such as
	// mcp.NotificationToolListChanged.
	OnListChanged func(ctx context.Context, method string)
	// OnResourceUpdated is told when a subscribed resource changed.
	OnResourceUpdated func(ctx context.Context, uri string)
	// OnElicitationComplete is told when a URL-mode elicitation finished.
	OnElicitationComplete func(ctx context.Context, elicitationID string)

	// Version is the protocol revision to speak. Default: the newest
	// (2026-07-28), falling back to the legacy handshake when the server
	// does not speak it. A legacy revision skips the probe.
	Version mcp.Version
	// ProbeTimeout bounds the wait for the answer to the modern probe
	// before falling back to the legacy era. Default 5s. With Version set
	// to a modern revision there is nothing to fall back to, and the probe
	// waits as long as Connect's context lets it.
	ProbeTimeout time.Duration
	// Capabilities, if set, is merged into the declared capabilities
	// (Experimental and Extensions are taken from it).
	Capabilities *mcp.ClientCapabilities
	// MaxRounds bounds the rounds of one multi round-trip request (modern
	// era). Default 16.
	MaxRounds int
	// Tasks declares the tasks extension (io.modelcontextprotocol/tasks)
	// on modern requests, which lets the server answer tools/call with a
	// task; CallTool then follows the task to its end. The core tasks of
	// 2025-11-25 need no option. See Session.CallToolAsTask on both.
	Tasks bool
	// Apps declares the MCP Apps extension (io.modelcontextprotocol/ui,
	// for text/html;profile=mcp-app interfaces) in both eras: the client
	// is a host that renders the interfaces of tools (see
	// Session.ReadApp).
	Apps bool
	// MaxCachedTools bounds the tools whose schemas a session remembers
	// from tools/list results (see Session.ListTools). Default
	// DefaultMaxCachedTools.
	MaxCachedTools int
	// KeepAlive, if positive, pings the server at this interval and
	// closes the session when a ping goes unanswered.
	KeepAlive time.Duration
	// Middleware wraps the client's handler of server requests and
	// notifications, first outermost. SessionFromContext tells which
	// session received them.
	Middleware []jsonrpc.Middleware
	// Outgoing wraps every request and notification the client sends,
	// first outermost (see jsonrpc.Options.Outgoing: the wrapped handler
	// sends the request and returns the raw result of a call). A
	// middleware may add to a request's params, such as trace context in
	// _meta, or measure it; modern requests already carry their _meta
	// envelope when it runs. SessionFromContext tells which session sends.
	Outgoing []jsonrpc.Middleware
	// OnSessionClosed, if set, is called once when a session has ended,
	// with the error it ended with (nil for an orderly close), after its
	// last message; Session.Close and Session.Wait return after it. It is
	// called too when Connect fails after the connection was made (the
	// handshake failed).
	OnSessionClosed func(s *Session, err error)
	// Logger receives the client's diagnostics. Default: discarded.
	Logger *slog.Logger
}

// A Client is an MCP client: who it is, what it can do for servers, and
// how it reacts to them. It connects to any number of servers; each
// connection is a Session.
type Client struct {
	info mcp.Implementation
	opts Options
	log  *slog.Logger
	caps mcp.ClientCapabilities

	erasMu sync.Mutex
	eras   map[string]mcp.Version // the revision each known server spoke
}

// maxEras bounds the servers whose revision a client remembers.
const maxEras = 256

// knownEra returns the revision the server at addr spoke last time.
func (c *Client) knownEra(addr string) mcp.Version {
	if addr == "" {
		return ""
	}
	c.erasMu.Lock()
	defer c.erasMu.Unlock()
	return c.eras[addr]
}

// rememberEra records the revision the server at addr speaks.
func (c *Client) rememberEra(addr string, v mcp.Version) {
	if addr == "" {
		return
	}
	c.erasMu.Lock()
	defer c.erasMu.Unlock()
	if c.eras == nil || len(c.eras) >= maxEras {
		c.eras = make(map[string]mcp.Version)
	}
	c.eras[addr] = v
}

// New returns a client that introduces itself with info.
func New(info mcp.Implementation, opts *Options) *Client {
	c := &Client{info: info}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.ProbeTimeout <= 0 {
		c.opts.ProbeTimeout = 5 * time.Second
	}
	if c.opts.MaxRounds <= 0 {
		c.opts.MaxRounds = 16
	}
	if c.opts.MaxCachedTools <= 0 {
		c.opts.MaxCachedTools = DefaultMaxCachedTools
	}
	c.log = c.opts.Logger
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if o := c.opts.Capabilities; o != nil {
		c.caps = *o
	}
	if c.opts.Sample != nil {
		c.caps.Sampling = &mcp.SamplingCapability{}
		if c.opts.SampleWithTools {
			c.caps.Sampling.Tools = &mcp.Supported{}
		}
	}
	if c.opts.Elicit != nil {
		c.caps.Elicitation = &mcp.ElicitationCapability{Form: &mcp.Supported{}}
		if c.opts.ElicitURL {
			c.caps.Elicitation.URL = &mcp.Supported{}
		}
	}
	if c.opts.Roots != nil {
		c.caps.Roots = &mcp.RootsCapability{ListChanged: true}
	}
	c.declareApps() // apps.go
	return c
}

// Capabilities returns the capabilities the client declares.
func (c *Client) Capabilities() mcp.ClientCapabilities { return c.caps }

// Connect connects to a server over t and agrees on a protocol revision:
// it probes for the modern (stateless) era with server/discover, and falls
// back to the legacy initialize handshake if the server does not answer it
// (or if Options.Version is a legacy revision). A client remembers the
// revision of each server it reached through a transport that names its
// peer (transport.Addresser: an HTTP endpoint, a command line), and does
// not probe a legacy server again. ctx bounds the connection and the
// handshake only.
func (c *Client) Connect(ctx context.Context, t transport.Transport) (*Session, error) {
	var addr string
	if a, ok := t.(transport.Addresser); ok {
		addr = a.Address()
	}
	conn, err := t.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp client: connecting: %w", err)
	}
	s := &Session{client: c, tconn: conn, addr: addr, ended: make(chan struct{})}
	s.tools.max = c.opts.MaxCachedTools
	if tc, ok := conn.(transport.ToolSchemaConn); ok {
		tc.SetToolSchemas(&s.tools) // the transport asks the session for x-mcp-header parameters
		s.tools.mirror = true
	}
	s.conn = jsonrpc.NewConn(conn, &jsonrpc.Options{
		Handler:         jsonrpc.Chain(jsonrpc.HandlerFunc(s.handle), c.opts.Middleware...),
		Outgoing:        s.outgoing(c.opts.Outgoing),
		Preempter:       &s.peer,
		OnCallAbandoned: s.peer.SendCancelled,
		Context:         context.WithValue(context.Background(), sessionKey{}, s), // SessionFromContext (context.go)
		OnClosed:        s.closed,
		Logger:          c.log,
		Client:          true, // a frame from the server that is not a valid message is reported, not answered
	})
	s.peer.Bind(s.conn)
	if err := s.handshake(ctx, c.knownEra(addr)); err != nil {
		s.Close()
		return nil, err
	}
	c.rememberEra(addr, s.version)
	if c.opts.KeepAlive > 0 && !s.modern {
		kctx, stop := context.WithCancel(context.Background())
		s.stopKeepAlive = stop
		go peer.KeepAlive(kctx, s.conn, c.opts.KeepAlive, func(err error) {
			c.log.Info("mcp client: keepalive failed, closing the session", "error", err)
			go s.Close()
		})
	}
	return s, nil
}

// handle answers the server's requests and notifications (legacy era).
func (s *Session) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	o := &s.client.opts
	switch req.Method {
	case mcp.MethodPing:
		return mcp.EmptyResult{}, nil
	case mcp.MethodCreateMessage:
		if o.Sample == nil {
			break
		}
		p, err := peer.DecodeParams[mcp.CreateMessageParams](req.Params)
		if err != nil {
			return nil, err
		}
		return o.Sample(ctx, p)
	case mcp.MethodElicit:
		if o.Elicit == nil {
			break
		}
		p, err := peer.DecodeParams[mcp.ElicitParams](req.Params)
		if err != nil {
			return nil, err
		}
		if p.Mode == mcp.ElicitModeURL && !o.ElicitURL {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: this client does not support URL-mode elicitation")
		}
		return o.Elicit(ctx, p)
	case mcp.MethodListRoots:
		if o.Roots == nil {
			break
		}
		return o.Roots(ctx)
	case mcp.NotificationLoggingMessage:
		if o.OnLog != nil {
			if p, err := peer.DecodeParams[mcp.LoggingMessageParams](req.Params); err == nil {
				o.OnLog(ctx, p)
			}
		}
		return nil, nil
	case mcp.NotificationToolListChanged, mcp.NotificationPromptListChanged, mcp.NotificationResourceListChanged:
		if req.Method == mcp.NotificationToolListChanged {
			s.tools.invalidate()
		}
		if o.OnListChanged != nil {
			o.OnListChanged(ctx, req.Method)
		}
		return nil, nil
	case mcp.NotificationSubscriptionsAcknowledged:
		if p, err := peer.DecodeParams[mcp.SubscriptionsAcknowledgedParams](req.Params); err == nil {
			var id jsonrpc.ID
			if ok, err := p.Meta.Decode(mcp.MetaKeySubscriptionID, &id); ok && err == nil {
				s.acks.deliver(id, p.Notifications)
			}
		}
		return nil, nil
	case mcp.NotificationResourceUpdated:
		if o.OnResourceUpdated != nil {
			if p, err := peer.DecodeParams[mcp.ResourceUpdatedNotificationParams](req.Params); err == nil {
				o.OnResourceUpdated(ctx, p.URI)
			}
		}
		return nil, nil
	case mcp.NotificationElicitationComplete:
		if o.OnElicitationComplete != nil {
			if p, err := peer.DecodeParams[mcp.ElicitationCompleteParams](req.Params); err == nil {
				o.OnElicitationComplete(ctx, p.ElicitationID)
			}
		}
		return nil, nil
	}
	if !req.IsCall() {
		return nil, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "Method not found: %s", req.Method)
}

// answer fulfils one input request of the modern era with the client's
// handlers, returning the bare result.
func (c *Client) answer(ctx context.Context, ir mcp.InputRequest) (any, error) {
	o := &c.opts
	switch ir.Method {
	case mcp.MethodElicit:
		if o.Elicit == nil {
			return nil, errors.New("mcp client: the server asked for elicitation, which this client does not handle")
		}
		p, err := peer.DecodeParams[mcp.ElicitParams](ir.Params)
		if err != nil {
			return nil, err
		}
		return o.Elicit(ctx, p)
	case mcp.MethodCreateMessage:
		if o.Sample == nil {
			return nil, errors.New("mcp client: the server asked for sampling, which this client does not handle")
		}
		p, err := peer.DecodeParams[mcp.CreateMessageParams](ir.Params)
		if err != nil {
			return nil, err
		}
		return o.Sample(ctx, p)
	case mcp.MethodListRoots:
		if o.Roots == nil {
			return nil, errors.New("mcp client: the server asked for roots, which this client does not handle")
		}
		return o.Roots(ctx)
	}
	return nil, fmt.Errorf("mcp client: the server asked for %q, which is not an input request", ir.Method)
}
