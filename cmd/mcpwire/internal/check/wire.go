package check

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// A wire carries raw frames to one connection with the server and gives
// back what answered them. The checks speak to servers through it rather
// than through mcpwire's client, which never sends a malformed frame and
// smooths over the server's mistakes: here every byte is chosen, and
// every answer is seen as it came.
//
// There are two: stdioWire, over the standard input and output of a
// server process that the check starts, and httpWire, one HTTP request
// per frame (Streamable HTTP, either era). Neither is safe for concurrent
// use: a check sends one frame at a time.
type wire interface {
	// exchange sends f and waits for its answer: the response that bears
	// f's id, or an error response whose id is null (the answer to a
	// frame whose id the server could not read). A reply without a
	// response means that nothing answered (within the wire's timeout);
	// an error, that the frame could not be sent or the connection broke.
	exchange(ctx context.Context, f *frame) (*reply, error)
	// notify sends a frame that nothing answers (a notification).
	notify(ctx context.Context, f *frame) error
	// watch sends f and reads what the server sends until until returns
	// true or the wait ends, then stops reading (over HTTP it closes the
	// response); it returns the messages read.
	watch(ctx context.Context, f *frame, until func(jsonrpc.Message) bool) ([]jsonrpc.Message, error)
	// ended returns how the server ended, once it has (a server process
	// that exited), or nil.
	ended() error
	// close ends the connection (and stops the server process), within
	// ctx: the check's --timeout bounds it too.
	close(ctx context.Context) error
	// transport names the transport: "stdio" or "http".
	transport() string
}

// A frame is what a check sends: raw bytes, and what the wire needs to
// know of them.
type frame struct {
	raw    []byte
	id     jsonrpc.ID // the id its response bears; zero when none can be read
	method string     // for the Mcp-Method header (modern HTTP); "" for none
	name   string     // for the Mcp-Name header; "" for none
	// header, over HTTP, replaces the headers the wire would send: a
	// header set to "" is left out.
	header http.Header
	// probe asks the stdio wire to send a probe after the frame, whose
	// answer says when to stop waiting for the frame's: for frames that a
	// server may well leave unanswered (they break JSON-RPC).
	probe bool
}

// A reply is what answered a frame.
type reply struct {
	resp   *jsonrpc.Response // nil when nothing answered
	status int               // the HTTP status; 0 on stdio
	header http.Header       // the HTTP response headers; nil on stdio
	// seen are the server's other messages that arrived meanwhile:
	// notifications, and on stdio requests (which the wire answered).
	seen []jsonrpc.Message
}

// result decodes the result of r into v; it fails for no response, an
// error response, or a result that does not decode.
func (r *reply) result(v any) error {
	switch {
	case r.resp == nil:
		return errNoAnswer
	case r.resp.Error != nil:
		return r.resp.Error
	}
	return json.Unmarshal(r.resp.Result, v)
}

// errNoAnswer is the error of a frame that nothing answered.
var errNoAnswer = errors.New("no answer")

// errorCode returns the JSON-RPC error code of r, and whether it is an
// error response.
func (r *reply) errorCode() (jsonrpc.Code, bool) {
	if r.resp == nil || r.resp.Error == nil {
		return 0, false
	}
	return r.resp.Error.Code, true
}

// A recorder keeps the frames of the check under way, for the report of a
// check that does not pass, and shows every frame to the observer of
// --trace. It is the observer of every wire.
type recorder struct {
	trace transport.Observer // nil without --trace

	mu     sync.Mutex
	frames []frames.Record // those of the current check, the last maxKept
}

// maxKept bounds the frames a check keeps for its report.
const maxKept = 40

// ObserveFrame records f and hands it to the trace.
func (r *recorder) ObserveFrame(f *transport.Frame) {
	rec := frames.FromFrame(f, frames.AtClient)
	r.mu.Lock()
	if len(r.frames) >= maxKept {
		copy(r.frames, r.frames[1:])
		r.frames = r.frames[:maxKept-1]
	}
	r.frames = append(r.frames, rec)
	r.mu.Unlock()
	if r.trace != nil {
		r.trace.ObserveFrame(f)
	}
}

// take returns the frames recorded since the last take, and forgets them.
func (r *recorder) take() []frames.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.frames
	r.frames = nil
	return out
}

// put records frames again (the frames of a listing, which the checks
// that read the listing show too).
func (r *recorder) put(fr []frames.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.frames = append(append([]frames.Record(nil), fr...), r.frames...)
	if len(r.frames) > maxKept {
		r.frames = r.frames[len(r.frames)-maxKept:]
	}
}

// decodeSent decodes a frame the check sends, for the observer: the
// message, or why it is not one.
func decodeSent(raw []byte) (jsonrpc.Message, error) {
	return jsonrpc.Decode(raw, nil)
}

// methods are the method names the decoders know (they intern them).
var methods = mcp.KnownMethods()
