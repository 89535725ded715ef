package bridge

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport"
)

// A session is one legacy session (2024-11-05 to 2025-11-25) and the
// server process that is its own: every message passes unchanged, ids
// included, since nobody else talks to that process. It implements
// transport.ServerSession for the HTTP handlers.
//
// The process starts with the session's first message (initialize), so
// that a refusal (the bridge runs as many processes as it may, the
// command cannot be started) is an error response that says so. It lives
// as long as the session: through the client's reconnections (the
// handler keeps the session, and replays what the client missed from its
// event store), until the client deletes the session, the handler expires
// it (idle timeout), the bridge shuts down, or the process exits, which
// ends the session: its calls in flight fail with the way the process
// ended, and the handler answers the session's next request with 404.
//
// What the process sends besides responses goes to the handler's writer
// w with the id of the client call it relates to, so that it travels on
// that call's stream (see transport.MessageServer): a progress
// notification relates to the call that carries its progress token; list
// changes and resource updates relate to no call (the standalone
// stream); anything else (log messages, the server's requests, its other
// notifications) relates to the call in flight when there is exactly
// one, and to none otherwise. stdio does not say which request a message
// belongs to; this is the best a bridge can know.
type session struct {
	b  *Bridge
	id string
	w  jsonrpc.Writer

	start   sync.Once
	c       *child // set by start
	refused *jsonrpc.Error
	done    chan struct{} // closed when the session has ended

	mu        sync.Mutex
	calls     map[jsonrpc.ID]*sessionCall // client calls in flight, by id
	tokens    map[jsonrpc.ID]jsonrpc.ID   // their progress tokens (decoded) → call id
	asked     map[jsonrpc.ID]struct{}     // requests of the server awaiting the client's answer
	version   string                      // negotiated by initialize
	closing   bool
	dead      bool          // the process has ended: the session ends with its last call
	idle      chan struct{} // closed when the last call ends while closing
	endOnce   sync.Once
	holdsSlot bool // the session counts against MaxSessions
}

// A sessionCall is a call of the client in flight.
type sessionCall struct {
	cancelled chan struct{} // closed when the client cancels it
	token     jsonrpc.ID    // its progress token; not valid without one
}

// maxAsked bounds the requests of a server awaiting the client's answer;
// past it the oldest is forgotten (its answer will be dropped).
const maxAsked = 1024

var _ transport.ServerSession = (*session)(nil)

// child returns the session's process, starting it at the first call.
func (s *session) child() (*child, *jsonrpc.Error) {
	s.start.Do(func() {
		if !s.b.takeSlot() {
			s.refused = jsonrpc.Errorf(jsonrpc.CodeOverloaded,
				"Server overloaded: the bridge runs at most %d sessions, each with its own server process; retry later", s.b.opts.MaxSessions)
			s.end()
			return
		}
		s.mu.Lock()
		s.holdsSlot = true
		s.mu.Unlock()
		c, err := s.b.start(s.route, s.exited)
		if err != nil {
			s.refused = jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: cannot start the server: %v", err)
			s.end()
			return
		}
		s.mu.Lock()
		s.c = c
		s.mu.Unlock()
	})
	return s.proc(), s.refused
}

// proc returns the session's process, or nil before it starts.
func (s *session) proc() *child {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.c
}

// Serve forwards a message of the client to the process and waits for
// the response to a call.
func (s *session) Serve(ctx context.Context, req *jsonrpc.Request) *jsonrpc.Response {
	c, refused := s.child()
	if refused != nil {
		if req.IsCall() {
			return &jsonrpc.Response{ID: req.ID, Error: refused}
		}
		return nil
	}
	if !req.IsCall() {
		if req.Method == mcp.NotificationCancelled {
			s.cancelled(req.Params)
		}
		if err := c.write(ctx, req); err != nil {
			s.b.log.Debug("bridge: notification not delivered", "session", s.id, "method", req.Method, "error", err)
		}
		return nil
	}
	sc, e := s.begin(req)
	if e != nil {
		return &jsonrpc.Response{ID: req.ID, Error: e}
	}
	defer s.finish(req.ID, sc)
	ch, err := c.call(ctx, req)
	if err != nil {
		return s.unanswered(ctx, req.ID, err)
	}
	select {
	case resp := <-ch:
		if resp == nil {
			return s.unanswered(ctx, req.ID, c.errGone())
		}
		if req.Method == mcp.MethodInitialize && resp.Error == nil {
			s.noteVersion(resp.Result)
		}
		return resp
	case <-sc.cancelled:
		c.forget(req.ID)
		return nil // the client cancelled it, and told the process so
	case <-ctx.Done():
		c.forget(req.ID)
		s.cancel(c, req.ID, "the request was cancelled")
		return nil
	}
}

// unanswered answers the call id that the process will not answer: the
// error goes to the call's stream through the handler's writer, before
// the session ends (a handler ends its sessions' streams when they end,
// and would lose an answer still on its way); the handler then gets no
// response to send. If the writer cannot take it, the handler gets it.
func (s *session) unanswered(ctx context.Context, id jsonrpc.ID, err error) *jsonrpc.Response {
	resp := goneResponse(id, err)
	resp.Error.Message += "; the session has ended"
	if s.w.Write(jsonrpc.WithIncomingID(ctx, id), resp) == nil {
		return nil
	}
	return resp
}

// begin records a call of the client, within the session's bound.
func (s *session) begin(req *jsonrpc.Request) (*sessionCall, *jsonrpc.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return nil, jsonrpc.NewError(jsonrpc.CodeConnectionClosed, "Connection closed: the session is ending")
	case s.b.isClosed():
		return nil, jsonrpc.NewError(jsonrpc.CodeConnectionClosed, "Connection closed: the bridge is shutting down")
	case s.calls[req.ID] != nil:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: id %s is already in use by a running request", req.ID)
	case len(s.calls) >= s.b.opts.MaxSessionCalls:
		return nil, jsonrpc.Errorf(jsonrpc.CodeOverloaded, "Server overloaded: %d requests of this session are already running", s.b.opts.MaxSessionCalls)
	}
	sc := &sessionCall{cancelled: make(chan struct{})}
	if tok, ok := memberID(req.Params, "_meta", mcp.MetaKeyProgressToken); ok {
		sc.token = tok
		if s.tokens == nil {
			s.tokens = make(map[jsonrpc.ID]jsonrpc.ID)
		}
		s.tokens[tok] = req.ID
	}
	if s.calls == nil {
		s.calls = make(map[jsonrpc.ID]*sessionCall)
	}
	s.calls[req.ID] = sc
	return sc, nil
}

// running returns the number of calls in flight.
func (s *session) running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// finish forgets a call that has ended.
func (s *session) finish(id jsonrpc.ID, sc *sessionCall) {
	defer s.b.callEnded()
	s.mu.Lock()
	if s.calls[id] == sc {
		delete(s.calls, id)
	}
	if sc.token.IsValid() && s.tokens[sc.token] == id {
		delete(s.tokens, sc.token)
	}
	if s.closing && len(s.calls) == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	over := s.dead && len(s.calls) == 0
	s.mu.Unlock()
	if over {
		s.end()
	}
}

// cancelled notes the client's cancellation of one of its calls: the
// call returns no response (the notification goes on to the process).
func (s *session) cancelled(params json.RawMessage) {
	id, ok := memberID(params, "requestId")
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc := s.calls[id]; sc != nil {
		select {
		case <-sc.cancelled:
		default:
			close(sc.cancelled)
		}
	}
}

// cancel tells the process that the call id is cancelled.
func (s *session) cancel(c *child, id jsonrpc.ID, reason string) {
	n, err := jsonrpc.NewNotification(mcp.NotificationCancelled, map[string]any{"requestId": id, "reason": reason})
	if err == nil {
		err = c.write(context.Background(), n)
	}
	if err != nil {
		s.b.log.Debug("bridge: cancellation not delivered", "session", s.id, "error", err)
	}
}

// noteVersion records the protocol version of an initialize result.
func (s *session) noteVersion(result json.RawMessage) {
	if v, ok := memberString(result, "protocolVersion"); ok {
		s.mu.Lock()
		s.version = v
		s.mu.Unlock()
	}
}

// route sends a message of the process (not a response) to the client, on
// the stream of the call it relates to (see session).
func (s *session) route(c *child, m *jsonrpc.Request) {
	ctx := context.Background()
	if id, ok := s.related(m); ok {
		ctx = jsonrpc.WithIncomingID(ctx, id)
	}
	if m.IsCall() {
		s.mu.Lock()
		if s.asked == nil {
			s.asked = make(map[jsonrpc.ID]struct{})
		}
		if len(s.asked) >= maxAsked {
			for id := range s.asked {
				delete(s.asked, id)
				break
			}
		}
		s.asked[m.ID] = struct{}{}
		s.mu.Unlock()
	}
	if err := s.w.Write(ctx, m); err != nil {
		s.b.log.Debug("bridge: a message of the server not delivered", "session", s.id, "method", m.Method, "error", err)
		if m.IsCall() {
			s.mu.Lock()
			delete(s.asked, m.ID)
			s.mu.Unlock()
			c.write(ctx, &jsonrpc.Response{ID: m.ID, Error: jsonrpc.NewError(jsonrpc.CodeInternalError, "Internal error: the client cannot be reached")})
		}
	}
}

// related returns the id of the client call a message of the process
// relates to, if it can tell.
func (s *session) related(m *jsonrpc.Request) (jsonrpc.ID, bool) {
	switch m.Method {
	case mcp.NotificationProgress:
		tok, ok := memberID(m.Params, mcp.MetaKeyProgressToken)
		if !ok {
			return jsonrpc.ID{}, false
		}
		s.mu.Lock()
		id, ok := s.tokens[tok]
		s.mu.Unlock()
		return id, ok
	case mcp.NotificationToolListChanged, mcp.NotificationPromptListChanged,
		mcp.NotificationResourceListChanged, mcp.NotificationResourceUpdated:
		return jsonrpc.ID{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) == 1 {
		for id := range s.calls {
			return id, true
		}
	}
	return jsonrpc.ID{}, false
}

// Resolve forwards the client's answer to a request of the process.
func (s *session) Resolve(resp *jsonrpc.Response) bool {
	s.mu.Lock()
	_, ok := s.asked[resp.ID]
	delete(s.asked, resp.ID)
	c := s.c
	s.mu.Unlock()
	if !ok || c == nil {
		return false
	}
	if err := c.write(context.Background(), resp); err != nil {
		s.b.log.Debug("bridge: an answer of the client not delivered", "session", s.id, "error", err)
	}
	return true
}

// ProtocolVersion returns the revision initialize negotiated.
func (s *session) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Done is closed when the session has ended.
func (s *session) Done() <-chan struct{} { return s.done }

// Close ends the session: new calls are refused, those in flight have
// DrainTimeout to finish, then the process is stopped.
func (s *session) Close() error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		<-s.done
		return nil
	}
	s.closing = true
	var idle chan struct{}
	if len(s.calls) > 0 {
		idle = make(chan struct{})
		s.idle = idle
	}
	s.mu.Unlock()
	if idle != nil {
		t := time.NewTimer(s.b.opts.DrainTimeout)
		select {
		case <-idle:
		case <-t.C:
			s.b.log.Info("bridge: calls still running when the session ended", "session", s.id)
		}
		t.Stop()
	}
	s.start.Do(func() {}) // no process starts from now on
	if c := s.proc(); c != nil {
		c.close()
	}
	s.end()
	return nil
}

// exited ends the session whose process has ended, once the calls in
// flight have been answered (see unanswered).
func (s *session) exited(reason string) {
	if reason != reasonStopped {
		s.b.log.Warn("bridge: a session's server ended", "session", s.id, "why", reason)
	}
	s.mu.Lock()
	s.dead = true
	over := len(s.calls) == 0
	s.mu.Unlock()
	if over {
		s.end()
	}
}

// end marks the session ended, once: its process has exited, or it was
// closed. A process that exits on its own ends the session at once.
func (s *session) end() {
	s.endOnce.Do(func() {
		s.mu.Lock()
		slot := s.holdsSlot
		s.holdsSlot = false
		s.mu.Unlock()
		if slot {
			s.b.releaseSlot()
		}
		s.b.ended(s)
		close(s.done)
	})
}
