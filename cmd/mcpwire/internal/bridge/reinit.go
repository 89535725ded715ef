package bridge

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// A stdio client initializes once, for the life of the process. When the
// HTTP server forgets the legacy session (it restarted, or expired the
// session), the HTTP transport fails the next call with
// CodeSessionNotFound; the bridge then opens a new session with the
// client's own initialize and initialized, restores its log level and
// resource subscriptions, and sends the calls that failed so again, once
// each. Only if that fails does the client see the error. The server's
// requests still waiting for the client's answer are lost with the old
// session.
//
// The bridge's own requests have ids "mcpwire-bridge-" and 128 random
// bits, and their responses are not passed to the client: a response is
// the bridge's when its id is one of those the bridge sent, compared
// whole, so that no id of the client's is ever taken for one (whatever
// it begins with).

// bridgeIDPrefix starts the ids of the bridge's own requests.
const bridgeIDPrefix = "mcpwire-bridge-"

// maxRetried bounds the client calls remembered for a second attempt.
const maxRetried = 4096

// maxOwn bounds the bridge's own requests awaiting their answer: an
// initialize, a logging/setLevel and the subscriptions of each session
// opened again. Past it the oldest are forgotten (their answers would
// reach the client, under ids it never used).
const maxOwn = 2*maxRetried + 2

// upSession is what it takes to open the client's legacy session again.
type upSession struct {
	mu       sync.Mutex
	init     *jsonrpc.Request                // the client's initialize
	ready    bool                            // it sent notifications/initialized
	level    json.RawMessage                 // the params of its last logging/setLevel
	subs     map[string]bool                 // the resources it subscribed to
	calls    map[jsonrpc.ID]*jsonrpc.Request // its calls in flight
	retried  map[jsonrpc.ID]bool             // calls sent again already
	opening  *jsonrpc.ID                     // the id of the bridge's initialize in flight
	waiting  []*jsonrpc.Request              // calls to send again once it is answered
	failures []*jsonrpc.Response             // their errors, if it fails
	own      map[jsonrpc.ID]struct{}         // the bridge's own requests awaiting their answer
	ownOrder []jsonrpc.ID                    // own's keys, oldest first (some perhaps answered)
}

// note records what a message of the client changes.
func (s *upSession) note(m jsonrpc.Message) {
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch req.Method {
	case mcp.MethodInitialize:
		if meta, _ := mcp.DecodeRequestMeta(req.Params); !meta.IsModern() {
			s.init, s.ready, s.level, s.subs = req, false, nil, nil
		}
	case mcp.NotificationInitialized:
		s.ready = s.init != nil
	case mcp.NotificationCancelled:
		if id, ok := memberID(req.Params, "requestId"); ok {
			delete(s.calls, id) // no answer will come
		}
	case mcp.MethodSetLevel:
		s.level = req.Params
	case mcp.MethodSubscribe, mcp.MethodUnsubscribe:
		if uri, ok := memberString(req.Params, "uri"); ok && uri != "" {
			if s.subs == nil {
				s.subs = make(map[string]bool)
			}
			if req.Method == mcp.MethodSubscribe && len(s.subs) < maxRetried {
				s.subs[uri] = true
			} else {
				delete(s.subs, uri)
			}
		}
	}
	if req.IsCall() && req.Method != mcp.MethodInitialize {
		if s.calls == nil {
			s.calls = make(map[jsonrpc.ID]*jsonrpc.Request)
		}
		if len(s.calls) < maxRetried {
			s.calls[req.ID] = req
		}
	}
}

// nextIDLocked returns the id of a new request of the bridge, and
// remembers it until its answer.
func (s *upSession) nextIDLocked() jsonrpc.ID {
	id := jsonrpc.StringID(bridgeIDPrefix + rand.Text())
	if s.own == nil {
		s.own = make(map[jsonrpc.ID]struct{})
	}
	for len(s.ownOrder) >= maxOwn {
		delete(s.own, s.ownOrder[0])
		s.ownOrder = s.ownOrder[1:]
	}
	s.own[id] = struct{}{}
	s.ownOrder = append(s.ownOrder, id)
	return id
}

// answeredOwnLocked reports whether id is that of a request of the
// bridge awaiting its answer, which it then no longer awaits.
func (s *upSession) answeredOwnLocked(id jsonrpc.ID) bool {
	if _, ok := s.own[id]; !ok {
		return false
	}
	delete(s.own, id)
	if len(s.own) == 0 {
		s.ownOrder = s.ownOrder[:0]
	}
	return true
}

// reopen handles a response of the server before it goes to the client.
// It reports true for a response the client must not see: the answer to
// a request of the bridge, or a call's failure for a forgotten session,
// which will be sent again in a new one.
func (r *reverse) reopen(ctx context.Context, resp *jsonrpc.Response) bool {
	s := &r.again
	s.mu.Lock()
	if s.answeredOwnLocked(resp.ID) {
		opened := s.opening != nil && *s.opening == resp.ID
		s.mu.Unlock()
		if opened {
			r.opened(ctx, resp)
		}
		return true
	}
	req := s.calls[resp.ID]
	delete(s.calls, resp.ID)
	lost := resp.Error != nil && resp.Error.Code == streamable.CodeSessionNotFound && errors.Unwrap(resp.Error) != nil
	if !lost || req == nil || s.init == nil || !s.ready || s.retried[req.ID] {
		delete(s.retried, resp.ID)
		s.mu.Unlock()
		return false
	}
	if s.retried == nil {
		s.retried = make(map[jsonrpc.ID]bool)
	}
	s.retried[req.ID] = true
	s.waiting = append(s.waiting, req)
	s.failures = append(s.failures, resp)
	if s.opening != nil {
		s.mu.Unlock()
		return true // a new session is on its way
	}
	id := s.nextIDLocked()
	s.opening = &id
	init := &jsonrpc.Request{ID: id, Method: s.init.Method, Params: s.init.Params}
	s.mu.Unlock()
	r.log.Info("bridge: the server forgot the session; opening a new one")
	if err := r.send(ctx, init); err != nil {
		r.opened(ctx, &jsonrpc.Response{ID: id, Error: jsonrpc.NewError(jsonrpc.CodeInternalError, err.Error())})
	}
	return true
}

// opened continues once the server answered the bridge's initialize:
// the session is set up as the client had it, and the calls are sent
// again; if the server refused, the calls fail as they did.
func (r *reverse) opened(ctx context.Context, resp *jsonrpc.Response) {
	s := &r.again
	s.mu.Lock()
	waiting, failures := s.waiting, s.failures
	s.waiting, s.failures, s.opening = nil, nil, nil
	var setup []*jsonrpc.Request
	if resp.Error == nil {
		if s.level != nil {
			setup = append(setup, &jsonrpc.Request{ID: s.nextIDLocked(), Method: mcp.MethodSetLevel, Params: s.level})
		}
		for uri := range s.subs {
			p, _ := json.Marshal(map[string]string{"uri": uri})
			setup = append(setup, &jsonrpc.Request{ID: s.nextIDLocked(), Method: mcp.MethodSubscribe, Params: p})
		}
		for _, req := range waiting {
			s.calls[req.ID] = req
		}
	}
	s.mu.Unlock()
	if resp.Error != nil {
		r.log.Warn("bridge: the server refused a new session", "error", resp.Error.Message)
		for _, f := range failures {
			r.toClient(r.fromServerResponse(f))
		}
		return
	}
	msgs := []jsonrpc.Message{&jsonrpc.Request{Method: mcp.NotificationInitialized}}
	for _, m := range setup {
		msgs = append(msgs, m)
	}
	for _, m := range waiting {
		msgs = append(msgs, m)
	}
	for i, m := range msgs {
		if err := r.send(ctx, m); err != nil && i >= len(msgs)-len(waiting) {
			req := m.(*jsonrpc.Request)
			r.toClient(&jsonrpc.Response{ID: req.ID, Error: jsonrpc.NewError(jsonrpc.CodeInternalError, r.words(err))})
		}
	}
}
