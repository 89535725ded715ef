package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// A Writer sends messages to the peer. The engine never calls Write
// concurrently, unless the Writer is a ConcurrentWriter that allows it. The context is the one of the operation that produced
// the message: for a handler's notifications and calls it answers
// IncomingID, which lets a transport send them on the right stream.
type Writer interface {
	Write(ctx context.Context, m Message) error
}

// A ConcurrentWriter is a Writer whose Write may be called from several
// goroutines at once, because each message travels on its own (an HTTP
// request each, say). The engine otherwise serializes writes; a Writer
// whose ConcurrentWrites reports true is written to without that lock,
// so that a call whose Write waits for the network (until its request is
// on the wire) does not hold up the calls made beside it.
type ConcurrentWriter interface {
	Writer
	ConcurrentWrites() bool
}

// A Stream is a bidirectional message stream: what a transport provides.
// Read returns io.EOF when the peer has closed the stream, ErrClosed after
// a local Close, and a *DecodeError for a frame that is not a valid
// message (the engine answers it and reads on). Close unblocks a pending
// Read.
type Stream interface {
	Writer
	Read(ctx context.Context) (Message, error)
	Close() error
}

// Defaults for Options.
const (
	DefaultMaxConcurrency         = 64
	DefaultMaxQueue               = 1024
	DefaultMaxQueuedNotifications = 4096
	DefaultDrainTimeout           = 5 * time.Second
)

// Options configure a Conn. A nil *Options, and every zero field, mean the
// defaults.
type Options struct {
	// Handler answers incoming requests. Nil answers every call with
	// CodeMethodNotFound.
	Handler Handler
	// Preempter sees incoming notifications before they are queued.
	Preempter Preempter
	// MaxConcurrency bounds the calls handled at once. Default 64.
	MaxConcurrency int
	// MaxQueue bounds the calls waiting for a handler; calls beyond it
	// are answered at once with CodeOverloaded. Default 1024.
	MaxQueue int
	// MaxQueuedNotifications bounds the notifications waiting for their
	// handler. A notification cannot be refused, and the reader never
	// waits for a handler (see the package overview): a peer that sends
	// one more ends the connection with ErrTooManyNotifications. Default
	// 4096.
	MaxQueuedNotifications int
	// AcceptBatch reports whether a batch may be received now. Nil
	// accepts batches, as JSON-RPC 2.0 requires; a refused batch is
	// answered with one CodeInvalidRequest error.
	AcceptBatch func() bool
	// Barrier reports whether a request is a lifecycle message: it waits
	// until every call before it has finished and nothing after it starts
	// until it has finished.
	Barrier func(*Request) bool
	// DrainTimeout is how long Close, or the end of the input, waits for
	// running handlers before cancelling their contexts. Default 5s.
	DrainTimeout time.Duration
	// OnCallAbandoned, if set, is called when an outgoing call's context
	// ends before its response arrives (MCP then sends
	// notifications/cancelled).
	OnCallAbandoned func(id ID, cause error)
	// Context is the parent of every handler's context, for values; the
	// connection adds cancellation. Default context.Background().
	Context context.Context
	// Logger receives the connection's diagnostics. Default: discarded.
	Logger *slog.Logger
	// OnClosed, if set, is called once when the connection has shut down
	// completely, with the same value Wait returns.
	OnClosed func(err error)
	// Outgoing wraps the calls and notifications this side sends, first
	// outermost, as Handler middleware wraps what the peer sends (see
	// outgoing.go: the wrapped handler sends the request and returns the
	// raw result). Nil: requests go straight to the wire.
	Outgoing []Middleware
	// IDBase numbers outgoing calls from IDBase+1 instead of 1, so that
	// several connections speaking for one peer (server instances sharing
	// a session) never give two calls the same id.
	IDBase int64
	// Client says that the connection is the client of the protocol it
	// carries, and its peer the server: a frame from the peer that is not
	// a valid message is then reported as usual (see FrameError) but
	// never answered. JSON-RPC asks the server to answer what it cannot
	// parse, since that may have been a call; a server does not send a
	// client such frames, and an answer to one could only start a
	// ping-pong with a program that replies to every line it reads. The
	// default, false, answers them as a server must.
	Client bool
}

func (o *Options) or() *Options {
	if o == nil {
		return &Options{}
	}
	return o
}

// A Conn is one side of a JSON-RPC connection. Either side may call: a
// Conn sends calls and notifications to its peer and answers the peer's
// with its Handler.
//
// The concurrency contract is documented in the package overview.
type Conn struct {
	w          Writer
	handler    Handler
	out        Handler // Options.Outgoing around outgoing; nil without middleware
	preempter  Preempter
	opts       settings
	log        *slog.Logger
	base       context.Context    // parent of handler contexts; a direct conn's is Options.Context
	cancelBase context.CancelFunc // nil for a direct conn, whose handlers run under Serve's context
	seq        atomic.Int64
	writeMu    sync.Mutex  // serializes writes, unless concurrent
	concurrent bool        // w is a ConcurrentWriter that allows concurrent writes
	finished   atomic.Bool // the conn has shut down (set with mu held, before done is closed)

	*streamSide // nil for a direct conn

	mu    sync.Mutex
	avail *sync.Cond // signalled when running drops or the conn closes; L is &mu; made by waitLocked
	st    state      // guarded by mu

	wg sync.WaitGroup // every goroutine the conn started
	// The two channels are made when first asked for (mu): an idle HTTP
	// session, which keeps a Conn, keeps neither.
	closing chan struct{} // closed when the conn stops taking new work (st.closing)
	done    chan struct{} // closed when the conn has shut down completely (finished)
}

// takeInvalid returns and forgets the invalid frame that the pending
// call id saw, if any.
func (st *state) takeInvalid(id ID) *frameRecord {
	if st.invalid == nil {
		return nil
	}
	r := st.invalid[id]
	delete(st.invalid, id)
	return r
}

// The incoming calls in hand are one, then active: a connection that
// handles one call at a time (most of them, and every idle one) needs no
// map, and an idle HTTP session keeps no table.

func (st *state) activeGet(id ID) *incoming {
	if st.one != nil && st.one.req.ID == id {
		return st.one
	}
	return st.active[id]
}

// activeAdd records ic, whose id is not in use.
func (st *state) activeAdd(ic *incoming) {
	if st.one == nil {
		st.one = ic
		return
	}
	if st.active == nil {
		st.active = make(map[ID]*incoming)
	}
	st.active[ic.req.ID] = ic
}

func (st *state) activeDel(id ID) {
	if st.one != nil && st.one.req.ID == id {
		st.one = nil
		return
	}
	delete(st.active, id)
}

func (st *state) activeLen() int {
	n := len(st.active)
	if st.one != nil {
		n++
	}
	return n
}

func (st *state) activeEach(f func(*incoming)) {
	if st.one != nil {
		f(st.one)
	}
	for _, ic := range st.active {
		f(ic)
	}
}

// delivery hands a response to the call waiting for it, with the sequence
// number of the last notification received before it: the call returns
// only once that notification has been handled, so that a caller sees the
// effects of the notifications that preceded the response on the wire
// (log messages of a tool call, for instance).
type delivery struct {
	resp    *Response
	noteSeq uint64
	// err, when there is no response, says why: the connection ended
	// (closedBy), or the outcome of a call made through Options.Outgoing.
	err error
}

// incoming is a received request on its way through the engine. It is
// also the context its handler runs with.
type incoming struct {
	context.Context
	conn      *Conn
	req       *Request
	cancel    context.CancelFunc
	batch     *batchReply
	seq       uint64 // a queued notification's sequence number
	direct    chan *Response
	barrier   bool
	cancelled bool // the peer cancelled it: send no response (Conn.mu)
	detached  bool // handed to Serve: runs under its caller's context
}

// Value makes an incoming request's context answer ConnFromContext and
// IncomingID without allocating separate value contexts.
func (ic *incoming) Value(key any) any {
	switch key {
	case incomingKey:
		return ic
	case connKey:
		return ic.conn
	}
	if ic.Context == nil {
		return nil
	}
	if v := ic.Context.Value(key); v != nil || !ic.detached {
		return v
	}
	// A request handed to Serve runs under its caller's context; values
	// it lacks come from the connection's Options.Context.
	return ic.conn.base.Value(key)
}

// NewConn starts a connection over s: it reads messages from s until s
// ends or Close is called.
func NewConn(s Stream, opts *Options) *Conn {
	c := newConn(s, opts)
	c.streamSide = &streamSide{stream: s}
	// The reader, the dispatcher and the workers run under base, which
	// Close cancels when the drain ends.
	c.base, c.cancelBase = context.WithCancel(context.WithValue(c.base, connKey, c))
	if rs, ok := s.(ResolvingStream); ok {
		c.startResolver(rs)
	}
	if ps, ok := s.(PushStream); ok {
		c.startPush(ps)
		return c
	}
	c.wg.Add(1)
	go c.readLoop()
	return c
}

// NewDirectConn returns a connection without a read loop: the caller hands
// it each received message with Serve (requests) and Resolve (responses),
// and it sends its own messages with w. Transports that receive each
// message in its own request, like HTTP, use it.
func NewDirectConn(w Writer, opts *Options) *Conn {
	// Handlers run under the contexts Serve is given, with the values of
	// Options.Context (incoming.Value): base needs no cancellation of its
	// own, and the Conn makes no context.
	return newConn(w, opts)
}

func newConn(w Writer, opts *Options) *Conn {
	o := opts.or()
	cw, ok := w.(ConcurrentWriter)
	c := &Conn{
		w:          w,
		concurrent: ok && cw.ConcurrentWrites(),
		handler:    o.Handler,
		preempter:  o.Preempter,
		log:        o.Logger,
		base:       o.Context,
		opts: settings{
			MaxConcurrency:         orDefault(o.MaxConcurrency, DefaultMaxConcurrency),
			MaxQueue:               orDefault(o.MaxQueue, DefaultMaxQueue),
			MaxQueuedNotifications: orDefault(o.MaxQueuedNotifications, DefaultMaxQueuedNotifications),
			DrainTimeout:           orDefault(o.DrainTimeout, DefaultDrainTimeout),
			AcceptBatch:            o.AcceptBatch,
			Barrier:                o.Barrier,
			OnCallAbandoned:        o.OnCallAbandoned,
			OnClosed:               o.OnClosed,
			Client:                 o.Client,
		},
	}
	if c.base == nil {
		c.base = context.Background()
	}
	if c.handler == nil {
		c.handler = methodNotFound
	}
	if len(o.Outgoing) > 0 {
		c.out = Chain(HandlerFunc(c.outgoing), o.Outgoing...)
	}
	if c.log == nil {
		c.log = discardLogger
	}
	c.seq.Store(o.IDBase)
	return c
}

// Call sends a call and waits for its response. The result is unmarshaled
// into result unless result is nil; a *json.RawMessage receives it as is.
// An error response is returned as an *Error. If ctx ends first, Call
// returns ctx.Err() and the response, if it comes, is dropped.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	switch r := result.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		*r = raw
		return nil
	case json.Unmarshaler:
		// The result was validated with the frame by the strict decoder:
		// skip encoding/json's second pass over it.
		if err := r.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("jsonrpc: decoding the result of %s: %w", method, err)
		}
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("jsonrpc: decoding the result of %s: %w", method, err)
	}
	return nil
}

// CallRaw is Call returning the raw JSON result.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	req, err := c.newCall(method, params)
	if err != nil {
		return nil, err
	}
	if c.out != nil {
		return c.callOut(ctx, req)
	}
	req.waits = true // the transport may answer it within Write (Request.CallerWaits)
	p, err := c.start(ctx, req)
	if err != nil {
		return nil, err
	}
	return p.Wait(ctx)
}

// A Pending is a call sent and not yet answered; see Conn.Start.
type Pending struct {
	c    *Conn
	id   ID
	ch   chan delivery
	stop context.CancelFunc // ends the outgoing middleware's run; nil without
	req  *Request           // the call, for the errors that name it
}

// method returns the method of p's call.
func (p *Pending) method() string {
	if p.req == nil {
		return ""
	}
	return p.req.Method
}

// ID returns the call's id.
func (p *Pending) ID() ID { return p.id }

// Start sends a call and returns without waiting for its response, for
// callers that need the call's id while it runs (a long-lived request
// whose notifications carry it, for instance). Wait for the response
// with Pending.Wait.
func (c *Conn) Start(ctx context.Context, method string, params any) (*Pending, error) {
	req, err := c.newCall(method, params)
	if err != nil {
		return nil, err
	}
	if c.out != nil {
		return c.startOut(ctx, req)
	}
	return c.start(ctx, req)
}

// newCall makes a call with the connection's next id.
func (c *Conn) newCall(method string, params any) (*Request, error) {
	req, err := NewCall(Int64ID(c.seq.Add(1)), method, params)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: encoding the params of %s: %w", method, err)
	}
	return req, nil
}

// start registers a call and writes it.
func (c *Conn) start(ctx context.Context, req *Request) (*Pending, error) {
	id := req.ID
	if c.streamSide != nil && c.inlineRunning.Load() > 0 && c.handOff != nil {
		c.handOff() // a call running in the reading goroutine waits for the peer: read elsewhere
	}
	p := &Pending{c: c, id: id, ch: make(chan delivery, 1), req: req}
	c.mu.Lock()
	if c.st.inputDone {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if c.st.pending == nil { // made with the first call: an idle HTTP session keeps no map
		c.st.pending = make(map[ID]*Pending)
	}
	c.st.pending[id] = p
	c.st.invalidKept = false
	c.mu.Unlock()
	if err := c.write(ctx, req); err != nil {
		c.forget(id)
		return nil, err
	}
	return p, nil
}

// Wait waits for the call's response and returns its raw result, or the
// error response as an *Error. If ctx ends first, the call is abandoned
// (Options.OnCallAbandoned) and Wait returns ctx.Err(), or a *FrameError
// wrapping it when the peer sent a frame that was not a valid message
// meanwhile. A response that arrives as an invalid frame fails the call
// at once with a *FrameError.
func (p *Pending) Wait(ctx context.Context) (json.RawMessage, error) {
	c := p.c
	select {
	case d := <-p.ch:
		if d.err != nil {
			return nil, d.err
		}
		resp := d.resp
		if resp == nil {
			return nil, ErrClosed
		}
		c.awaitNotifications(ctx, d.noteSeq)
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-ctx.Done():
		if p.stop != nil {
			p.stop() // the outgoing middleware's run abandons the call
		}
		was, invalid := c.forgetPending(p.id)
		if was && c.opts.OnCallAbandoned != nil {
			c.opts.OnCallAbandoned(p.id, context.Cause(ctx))
		}
		if invalid != nil {
			return nil, &FrameError{Method: invalid.method, ID: p.id, N: invalid.n, Err: invalid.err, Cause: ctx.Err()}
		}
		return nil, ctx.Err()
	}
}

// awaitNotifications waits until the notifications queued up to seq have
// been handled, except those that could wait for the caller itself and
// would never be handled then: the notification whose handler is making
// the call (and those after it), and, for a call's handler, which holds
// a slot, notifications queued behind a call or barrier waiting for
// capacity (the dispatcher is stalled).
func (c *Conn) awaitNotifications(ctx context.Context, seq uint64) {
	ic, _ := ctx.Value(incomingKey).(*incoming)
	mine := ic != nil && ic.conn == c
	if mine && ic.seq > 0 && ic.seq <= seq {
		seq = ic.seq - 1
	}
	holdsSlot := mine && ic.req.IsCall()
	c.mu.Lock()
	for c.st.doneSeq < seq && !c.st.aborted && !c.st.inputDone && !(holdsSlot && c.st.stalled) {
		c.waitLocked()
	}
	c.mu.Unlock()
}

// forget drops a pending call; it reports whether the call was pending.
func (c *Conn) forget(id ID) bool {
	ok, _ := c.forgetPending(id)
	return ok
}

// forgetPending drops a pending call; it reports whether the call was
// pending, and the invalid frame it saw, if any.
func (c *Conn) forgetPending(id ID) (bool, *frameRecord) {
	c.mu.Lock()
	_, ok := c.st.pending[id]
	delete(c.st.pending, id)
	invalid := c.st.takeInvalid(id)
	c.mu.Unlock()
	return ok, invalid
}

// Notify sends a notification.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	req, err := NewNotification(method, params)
	if err != nil {
		return fmt.Errorf("jsonrpc: encoding the params of %s: %w", method, err)
	}
	if c.out != nil {
		_, err := c.out.Handle(ctx, req)
		return err
	}
	if c.Finished() {
		return ErrClosed
	}
	return c.write(ctx, req)
}

// write sends one message; writes are serialized unless the writer
// allows concurrent ones.
func (c *Conn) write(ctx context.Context, m Message) error {
	if c.concurrent {
		return c.w.Write(ctx, m)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	return c.w.Write(ctx, m)
}

// Finished reports whether the connection has shut down, which Done
// reports by closing its channel. Unlike Done it makes no channel, so a
// caller that only polls (an HTTP handler sweeping its idle sessions)
// leaves none behind on each connection.
func (c *Conn) Finished() bool { return c.finished.Load() }

// Closing returns a channel that is closed when the connection starts
// shutting down (Close, or the end of the input). Long-lived handlers,
// such as subscriptions, end when it is closed instead of waiting for the
// drain timeout.
func (c *Conn) Closing() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closingLocked()
}

// closingLocked is Closing with c.mu held: it makes the channel when it
// is first asked for.
func (c *Conn) closingLocked() <-chan struct{} {
	if c.closing == nil {
		if c.st.closing {
			c.closing = closedChan
		} else {
			c.closing = make(chan struct{})
		}
	}
	return c.closing
}

// Done returns a channel that is closed when the connection has shut down.
func (c *Conn) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		if c.finished.Load() {
			c.done = closedChan
		} else {
			c.done = make(chan struct{})
		}
	}
	return c.done
}

// Wait blocks until the connection has shut down. It returns nil if the
// peer closed the stream or Close was called, and the read error otherwise.
func (c *Conn) Wait() error {
	<-c.Done()
	c.mu.Lock()
	defer c.mu.Unlock()
	if errors.Is(c.st.cause, ErrClosed) || errors.Is(c.st.cause, io.EOF) {
		return nil
	}
	return c.st.cause
}

// Close shuts the connection down: it stops taking new requests, waits up
// to Options.DrainTimeout for running handlers (their responses are still
// sent), cancels the rest, fails outstanding calls with ErrClosed and
// closes the stream. It returns once every goroutine of the connection has
// ended, with the error closing the stream returned (a subprocess that
// failed, for instance).
func (c *Conn) Close() error {
	c.shutdown(ErrClosed)
	<-c.Done()
	return c.closeError()
}

// CancelIncoming cancels the incoming call id, as the peer asked: a queued
// call is dropped, a running one has its context cancelled, and neither
// gets a response. It reports whether the call was known.
func (c *Conn) CancelIncoming(id ID) bool {
	c.mu.Lock()
	ic := c.st.activeGet(id)
	ok := ic != nil
	if ok {
		ic.cancelled = true
		c.broadcastLocked() // a queued call: the dispatcher waits no longer for its capacity
	}
	c.mu.Unlock()
	if ok && ic.cancel != nil {
		ic.cancel()
	}
	return ok
}

// Resolve delivers a response received outside the read loop (see
// NewDirectConn). It reports whether a call was waiting for it.
func (c *Conn) Resolve(resp *Response) bool {
	c.mu.Lock()
	p, ok := c.st.pending[resp.ID]
	delete(c.st.pending, resp.ID)
	if c.st.invalid != nil {
		delete(c.st.invalid, resp.ID)
	}
	seq := c.st.noteSeq
	c.mu.Unlock()
	if ok {
		p.ch <- delivery{resp: resp, noteSeq: seq}
	} else {
		c.log.Debug("jsonrpc: response to an unknown call dropped", "id", resp.ID.String())
	}
	return ok
}

// InFlight returns the number of incoming calls not yet answered and of
// outgoing calls not yet resolved.
func (c *Conn) InFlight() (incoming, outgoing int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st.activeLen(), len(c.st.pending)
}

// handle runs the handler for a notification, turning a panic into an
// error.
func (c *Conn) handle(ic *incoming) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("jsonrpc: handler panicked", "method", ic.req.Method, "panic", r, "stack", string(debug.Stack()))
			err = Errorf(CodeInternalError, "Internal error: the handler for %s failed", quoteForMessage(ic.req.Method))
		}
	}()
	return c.handler.Handle(ic, ic.req)
}

// call runs the handler for a call and returns the response to send. A
// panic, in the handler or in the encoding of its result (a MarshalJSON
// or AppendJSON that panics), fails this call with CodeInternalError and
// nothing else.
func (c *Conn) call(ic *incoming) (resp *Response) {
	encoding := false
	defer func() {
		if r := recover(); r != nil {
			what := "the handler for %s failed"
			if encoding {
				what = "the result of %s cannot be encoded"
			}
			c.log.Error("jsonrpc: handler panicked", "method", ic.req.Method, "encoding", encoding, "panic", r, "stack", string(debug.Stack()))
			resp = &Response{ID: ic.req.ID, Error: Errorf(CodeInternalError, "Internal error: "+what, quoteForMessage(ic.req.Method))}
		}
	}()
	res, err := c.handler.Handle(ic, ic.req)
	encoding = true
	return c.response(ic.req.ID, res, err)
}
