package streamable

import (
	"net/http"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

// The handler shows its frames to HandlerOptions.Observer: each POST body
// once read (valid or not), each message written as an SSE event (replays
// included) or as a JSON body, and the JSON-RPC error bodies of the HTTP
// errors that answer a POST. A legacy session's frames go through one
// tracker, so that the client's responses to the server's requests and the
// answers to its calls are tied to their requests; a modern request and
// its answer, and a POST refused before it reached a session, get a
// tracker of their own.

// observedWriter is the ResponseWriter of a POST when there is an
// observer: it carries the tracker of the POST's frames to the code that
// answers it. Everything else passes through.
type observedWriter struct {
	http.ResponseWriter
	tr *transport.FrameTracker
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *observedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// trackerOf returns the tracker a POST's writer carries, or nil.
func trackerOf(w http.ResponseWriter) *transport.FrameTracker {
	if ow, ok := w.(*observedWriter); ok {
		return ow.tr
	}
	return nil
}

// observePost shows a POST's body to the observer and returns the writer
// to answer it with, which carries the tracker of its frames: the
// session's for a request of an open legacy session, else one of its own.
func (h *Handler) observePost(w http.ResponseWriter, r *http.Request, body []byte, msg jsonrpc.Message, refusal *jsonrpc.Response, modern bool) http.ResponseWriter {
	var tr *transport.FrameTracker
	sid, _ := header(r, keySessionID)
	if sid != "" && !modern {
		h.mu.Lock()
		if s := h.sessions[sid]; s != nil {
			tr = s.tr
		}
		h.mu.Unlock()
	}
	if tr == nil {
		tr = transport.NewFrameTracker(h.opts.Observer, transport.TransportStreamable, sid)
	}
	var err error
	if refusal != nil {
		err = &jsonrpc.DecodeError{ID: refusal.ID, Err: refusal.Error}
	}
	tr.Observe(transport.Received, body, msg, err, 0)
	return &observedWriter{ResponseWriter: w, tr: tr}
}

// observeSent shows a message written on a stream to the observer; m may
// be nil when only its encoding is at hand.
func observeSent(tr *transport.FrameTracker, data []byte, m jsonrpc.Message, status int) {
	if tr == nil {
		return
	}
	if m == nil {
		var err error
		if m, err = jsonrpc.Decode(data, nil); err != nil {
			m = nil
		}
	}
	tr.Observe(transport.Sent, data, m, nil, status)
}
