// Package memory is an in-process transport: two connected ends, one for
// a client and one for a server, in the same program. Tests, examples and
// benchmarks use it to run a whole MCP conversation without a process or
// a socket.
//
// Messages still go through the same encoder and strict decoder as on a
// real transport, so a message that a stdio or HTTP peer would reject is
// rejected here too; only the bytes skip the pipe. Each message costs one
// allocation for its encoded frame, handed over a channel, plus the
// decoded message itself.
//
//	client, server := memory.NewPair(nil)
//	go serve(ctx, server)             // the server calls server.Connect
//	conn, err := client.Connect(ctx)  // the client's end
//
// Closing either end ends the connection for both: the other end reads
// the messages already sent to it, then io.EOF.
package memory

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// Options configure a pair. A nil *Options, and every zero field, mean
// the defaults.
type Options struct {
	// Limits bound each message received, as on a real transport.
	Limits jsonrpc.Limits
	// Methods are method names the decoder returns without allocating.
	// Default: mcp.KnownMethods().
	Methods []string
	// Observer, if set, sees every frame that crosses the pair, once,
	// as the client end (the first NewPair returns) sees it: Sent for
	// the frames it writes, Received for those the server end writes.
	// Frames are observed when the other end reads them.
	Observer transport.Observer
}

// queueLen is the number of messages that may wait, in each direction,
// for the other end to read them; Write blocks beyond it.
const queueLen = 64

// maxRetained is the largest encoding buffer kept between messages.
const maxRetained = 1 << 20

// A Transport is one end of an in-process pair. Its Connect returns that
// end's connection; there is one connection per end, so Connect succeeds
// once.
type Transport struct {
	end *end

	mu        sync.Mutex
	connected bool
}

// NewPair returns the two ends of a new in-process connection. Which end
// is the "client" only matters to the reader of the code: both are alike.
func NewPair(opts *Options) (client, server *Transport) {
	var o Options
	if opts != nil {
		o = *opts
	}
	methods := o.Methods
	if methods == nil {
		methods = mcp.KnownMethods()
	}
	dec := jsonrpc.NewDecoder(o.Limits, methods...)
	p := &pair{done: make(chan struct{})}
	ab, ba := make(chan []byte, queueLen), make(chan []byte, queueLen)
	tr := transport.NewFrameTracker(o.Observer, transport.TransportMemory, "")
	a := &end{pair: p, in: ba, out: ab, dec: dec, closed: make(chan struct{}), tr: tr, dir: transport.Received}
	b := &end{pair: p, in: ab, out: ba, dec: dec, closed: make(chan struct{}), tr: tr, dir: transport.Sent}
	return &Transport{end: a}, &Transport{end: b}
}

// Connect returns this end's connection. It fails if it was called
// before or if ctx is done.
func (t *Transport) Connect(ctx context.Context) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.connected {
		return nil, errors.New("memory: Connect called twice: each end of a pair has one connection")
	}
	t.connected = true
	return t.end, nil
}

// pair is what the two ends share.
type pair struct {
	done chan struct{} // closed when either end closes
	once sync.Once
}

// end is one side of a pair; it implements transport.Conn.
type end struct {
	pair   *pair
	in     <-chan []byte
	out    chan<- []byte
	dec    *jsonrpc.Decoder
	closed chan struct{} // closed when this end closes
	once   sync.Once
	tr     *transport.FrameTracker // nil without an observer
	dir    transport.Direction     // of the frames this end reads, as the client end sees them

	mu  sync.Mutex // guards buf
	buf []byte     // encoding scratch
}

var encoder = jsonrpc.Encoder{OmitNullID: true}

// Read returns the next message from the other end. After the other end
// closes, the messages it sent before are still returned, then io.EOF;
// after this end closes, Read returns jsonrpc.ErrClosed.
func (e *end) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-e.closed:
		return nil, jsonrpc.ErrClosed
	default:
	}
	select {
	case f := <-e.in:
		return e.decode(f)
	case <-e.pair.done:
		select {
		case <-e.closed:
			return nil, jsonrpc.ErrClosed
		case f := <-e.in:
			return e.decode(f)
		default:
			return nil, io.EOF
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// decode decodes a frame read from the other end, and shows it to the
// observer.
func (e *end) decode(f []byte) (jsonrpc.Message, error) {
	m, err := e.dec.Decode(f)
	if e.tr != nil {
		e.tr.Observe(e.dir, f, m, err, 0)
	}
	return m, err
}

// Write encodes m and hands the frame to the other end. It blocks while
// the other end has 64 messages unread, until ctx is done or the pair
// closes.
func (e *end) Write(ctx context.Context, m jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-e.pair.done:
		return jsonrpc.ErrClosed
	default:
	}
	e.mu.Lock()
	b, err := encoder.Append(e.buf[:0], m)
	if err != nil {
		e.mu.Unlock()
		return err
	}
	frame := make([]byte, len(b))
	copy(frame, b)
	if cap(b) <= maxRetained {
		e.buf = b[:0]
	} else {
		e.buf = nil
	}
	e.mu.Unlock()
	select {
	case e.out <- frame:
		return nil
	case <-e.pair.done:
		return jsonrpc.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends the connection for both ends. It is idempotent.
func (e *end) Close() error {
	e.once.Do(func() { close(e.closed) })
	e.pair.once.Do(func() { close(e.pair.done) })
	return nil
}
