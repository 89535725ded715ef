package mcptest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/transport"
)

// A Frame is one message that crossed the connection, as the client saw
// it.
type Frame struct {
	// Direction is transport.Sent for the client's messages and
	// transport.Received for the server's.
	Direction transport.Direction
	// Method is the method of a request or notification, and for a
	// response the method of the request it answers.
	Method string
	// Raw is the message as it crossed the wire: one JSON-RPC message,
	// byte for byte.
	Raw json.RawMessage
}

// String returns the frame on one line: "-> " before the client's
// messages, "<- " before the server's, then the JSON.
func (f Frame) String() string {
	arrow := "<- "
	if f.Direction == transport.Sent {
		arrow = "-> "
	}
	return arrow + string(f.Raw)
}

// DefaultMaxFrames is the number of frames a Recorder keeps unless told
// otherwise: the most recent ones.
const DefaultMaxFrames = 10000

// A Recorder keeps the frames it observes, for a test to read: give it to
// Options.Observer (or to any transport's Observer option). Its zero
// value is ready to use, and it is safe for concurrent use.
//
//	var rec mcptest.Recorder
//	sess := mcptest.Connect(t, srv, &mcptest.Options{Observer: &rec})
//	mcptest.CallText(t, sess, "greet", nil)
//	for _, f := range rec.Frames() {
//		t.Log(f) // -> {"jsonrpc":"2.0","id":1,"method":"tools/call",...}
//	}
type Recorder struct {
	// Max bounds the frames kept: past it, the oldest are forgotten.
	// Default DefaultMaxFrames.
	Max int

	mu      sync.Mutex
	frames  []Frame
	changed chan struct{} // closed and replaced at every frame
}

// ObserveFrame records f (it implements transport.Observer).
func (r *Recorder) ObserveFrame(f *transport.Frame) {
	fr := Frame{Direction: f.Direction, Method: f.Method, Raw: append(json.RawMessage(nil), f.Raw...)}
	r.mu.Lock()
	defer r.mu.Unlock()
	max := r.Max
	if max <= 0 {
		max = DefaultMaxFrames
	}
	r.frames = append(r.frames, fr)
	if len(r.frames) >= 2*max {
		r.frames = append(r.frames[:0:0], r.frames[len(r.frames)-max:]...)
	}
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// Frames returns the frames recorded so far (at most Max), oldest first.
func (r *Recorder) Frames() []Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.framesLocked()
}

func (r *Recorder) framesLocked() []Frame {
	max := r.Max
	if max <= 0 {
		max = DefaultMaxFrames
	}
	fs := r.frames
	if len(fs) > max {
		fs = fs[len(fs)-max:]
	}
	return append([]Frame(nil), fs...)
}

// Reset forgets the frames recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.frames = nil
	r.mu.Unlock()
}

// Wait returns the first recorded frame for which match holds, waiting
// for it if need be (at most Timeout, after which it fails the test). It
// is how a test waits for a message that comes on its own, such as a
// notification, without sleeping:
//
//	rec.Wait(t, func(f mcptest.Frame) bool { return f.Method == "notifications/tools/list_changed" })
func (r *Recorder) Wait(t testing.TB, match func(Frame) bool) Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	for {
		r.mu.Lock()
		for _, f := range r.framesLocked() {
			if match(f) {
				r.mu.Unlock()
				return f
			}
		}
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("mcptest: no matching frame within %v", Timeout)
		}
	}
}
