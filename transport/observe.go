package transport

import (
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Seeing the wire. Every transport of mcpwire can show each frame it sends
// and receives to an Observer: the bytes as they crossed the wire, which
// way they went, when, on which transport and session, the decoded
// message (or why it could not be decoded), and, for a response, the
// method of the request it answers and the time since that request.
//
// Each transport takes an Observer in its options (LineOptions.Observer
// and the Observer option of the stdio, command, memory, Streamable HTTP
// and HTTP+SSE packages). Without one, a transport does no work for it:
// the observer is a nil check on the fast path.

// A Direction says which way a frame went, seen from the side that
// observes it.
type Direction uint8

const (
	// Received is a frame that came from the peer.
	Received Direction = 1
	// Sent is a frame that went to the peer.
	Sent Direction = 2
)

// String returns "received" or "sent".
func (d Direction) String() string {
	switch d {
	case Received:
		return "received"
	case Sent:
		return "sent"
	}
	return "unknown"
}

// Names of the transports, as Frame.Transport gives them.
const (
	TransportStdio      = "stdio"      // a server's standard input and output
	TransportCommand    = "command"    // a client's subprocess
	TransportMemory     = "memory"     // an in-process pair
	TransportStreamable = "streamable" // Streamable HTTP
	TransportSSE        = "sse"        // the legacy HTTP+SSE transport
	TransportLine       = "line"       // NewLineConn over another byte stream
)

// A Frame is one message as it crossed the wire.
type Frame struct {
	// Time is when the frame was read, or when it was handed to the
	// wire.
	Time time.Time
	// Direction is Received or Sent.
	Direction Direction
	// Transport names the transport (TransportStdio, ...).
	Transport string
	// Session is the transport's session id (Mcp-Session-Id, the legacy
	// SSE session), or "" where there is none: stdio, subprocesses and
	// in-memory pairs, whose connection is the session, and stateless
	// (2026-07-28) HTTP requests.
	Session string
	// Raw is the frame as it crossed the wire, without its framing (the
	// line ending of stdio, the "data:" fields of SSE): one JSON-RPC
	// message or batch, or whatever the peer sent instead. It is valid
	// only during the call to ObserveFrame: copy it to keep it. For a
	// frame refused for its size, Raw holds the part that was read, up to
	// the limit.
	Raw []byte
	// Message is the decoded message; nil when the frame is not a valid
	// message, and Err says why.
	Message jsonrpc.Message
	// Err is the *jsonrpc.DecodeError of a frame that is not a valid
	// message (invalid JSON, a broken JSON-RPC rule, a size or depth
	// limit), or nil.
	Err error
	// Method is the method of a request or notification, and for a
	// response the method of the request it answers, when that request
	// was seen on the same connection; "" otherwise.
	Method string
	// Latency is, for a response, the time since the request it answers
	// was seen on the same connection; 0 otherwise.
	Latency time.Duration
	// HTTPStatus is the status of the HTTP response that carried a
	// received frame or will carry a sent one, for the HTTP transports
	// when it is known; 0 otherwise.
	HTTPStatus int
}

// An Observer sees frames. ObserveFrame is called from the transport's own
// goroutines, for frames of every connection the observer was given to,
// possibly concurrently: it must be safe for concurrent use, and it
// should return quickly, since the frame waits for it. The *Frame and its
// Raw bytes are valid only during the call: copy what you keep. Frames of one
// connection in one direction arrive in the order they crossed the wire;
// a request is observed before its response.
type Observer interface {
	ObserveFrame(f *Frame)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(f *Frame)

// ObserveFrame calls f(fr).
func (f ObserverFunc) ObserveFrame(fr *Frame) { f(fr) }

// maxTracked bounds the requests a FrameTracker remembers while they wait
// for their response; beyond it the oldest are forgotten (their responses
// are then observed without Method and Latency).
const maxTracked = 1024

// A FrameTracker hands the frames of one connection to an Observer and
// fills in what one frame alone cannot tell: the method and latency of a
// response, from the request it answers. Transports make one per
// connection (per session for HTTP); programs that see frames by other
// means, such as a recording proxy, use one too. Its methods are safe for
// concurrent use. A nil *FrameTracker observes nothing.
type FrameTracker struct {
	obs       Observer
	transport string

	mu      sync.Mutex
	session string
	pending map[trackKey]tracked // requests awaiting a response
	order   []trackKey           // pending's keys, oldest first (may hold stale keys)
}

type trackKey struct {
	dir Direction // the direction of the request
	id  jsonrpc.ID
}

type tracked struct {
	method string
	at     time.Time
}

// NewFrameTracker returns a tracker that hands the frames of one
// connection of the transport named transportName to o, or nil if o is
// nil.
func NewFrameTracker(o Observer, transportName, session string) *FrameTracker {
	if o == nil {
		return nil
	}
	return &FrameTracker{obs: o, transport: transportName, session: session}
}

// SetSession records the session id of the frames that follow, for
// transports that learn it during the connection (an HTTP client learns
// it from the response to initialize).
func (t *FrameTracker) SetSession(id string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.session = id
	t.mu.Unlock()
}

// Observe hands one frame to the observer: raw as it crossed the wire in
// direction dir, and msg and err as decoding it gave (or, for a sent
// frame, the message that was encoded). httpStatus is the status of the
// HTTP response that carries the frame, or 0.
func (t *FrameTracker) Observe(dir Direction, raw []byte, msg jsonrpc.Message, err error, httpStatus int) {
	if t == nil {
		return
	}
	f := framePool.Get().(*Frame)
	*f = Frame{Time: time.Now(), Direction: dir, Transport: t.transport, Raw: raw, Message: msg, Err: err, HTTPStatus: httpStatus}
	t.mu.Lock()
	f.Session = t.session
	switch m := msg.(type) {
	case *jsonrpc.Request:
		f.Method = m.Method
		if m.IsCall() {
			t.remember(dir, m.ID, m.Method, f.Time)
		}
	case *jsonrpc.Response:
		f.Method, f.Latency = t.answer(dir, m.ID, f.Time)
	case *jsonrpc.Batch:
		for _, x := range m.Messages {
			switch x := x.(type) {
			case *jsonrpc.Request:
				if x.IsCall() {
					t.remember(dir, x.ID, x.Method, f.Time)
				}
			case *jsonrpc.Response:
				t.answer(dir, x.ID, f.Time)
			}
		}
	}
	t.mu.Unlock()
	t.obs.ObserveFrame(f)
	*f = Frame{}
	framePool.Put(f)
}

// framePool recycles the frames handed to observers, which may not keep
// them.
var framePool = sync.Pool{New: func() any { return new(Frame) }}

// remember records a request seen in direction dir; t.mu is held.
func (t *FrameTracker) remember(dir Direction, id jsonrpc.ID, method string, at time.Time) {
	if t.pending == nil {
		t.pending = make(map[trackKey]tracked)
	}
	for len(t.pending) >= maxTracked && len(t.order) > 0 {
		delete(t.pending, t.order[0])
		t.order = t.order[1:]
	}
	k := trackKey{dir, id}
	t.pending[k] = tracked{method, at}
	t.order = append(t.order, k)
	if len(t.order) > 2*maxTracked { // drop the keys of answered requests
		live := t.order[:0]
		for _, k := range t.order {
			if _, ok := t.pending[k]; ok {
				live = append(live, k)
			}
		}
		clear(t.order[len(live):])
		t.order = live
	}
}

// answer looks up the request that a response seen in direction dir
// answers, and forgets it; t.mu is held.
func (t *FrameTracker) answer(dir Direction, id jsonrpc.ID, at time.Time) (string, time.Duration) {
	k := trackKey{Received, id}
	if dir == Received {
		k.dir = Sent
	}
	r, ok := t.pending[k]
	if !ok {
		return "", 0
	}
	delete(t.pending, k)
	if len(t.pending) == 0 {
		clear(t.order)
		t.order = t.order[:0]
	}
	return r.method, at.Sub(r.at)
}
