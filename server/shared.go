package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store"
)

// Scale-out: with Options.Store, several instances of one server behave
// as one (see package store). What this file adds to the server:
//
//   - Legacy sessions opened through Open (HTTP) are shared: what
//     initialize, logging/setLevel and resources/subscribe change is
//     written to the store, and the handler brings a session up to date
//     from it before each request (SyncSession), on whichever instance.
//   - The ids of the requests an instance sends to a client carry the
//     instance's number (jsonrpc.Options.IDBase), so that the client's
//     answer, arriving on another instance, is forwarded to this one on
//     the Bus; cancellations go to every instance.
//   - A list change or resource update raised here reaches the
//     subscriptions/listen streams of every instance (Bus topic
//     notesTopic), and the shared legacy sessions through their own
//     stream in the store's Events (store.SessionStream), which the
//     instance holding the client's GET stream delivers.
//   - tasks/cancel and tasks/update for a task running on another
//     instance are forwarded to it; request state is sealed with the
//     store's KeyRing.
//
// Without a store none of this runs: s.shared is nil, and the paths of a
// single instance are unchanged.

// Bus topics of the server (the store prefixes them).
const (
	notesTopic   = "n" // list changes, resource updates, task states: for listeners
	controlTopic = "c" // cancellations of requests of shared sessions
)

// busMsg is what instances send each other.
type busMsg struct {
	Origin  string          `json:"o"`           // the sending server (sharedState.origin)
	Kind    string          `json:"k"`           // one of the busKind constants
	Lists   listKinds       `json:"l,omitempty"` // busList
	URI     string          `json:"u,omitempty"` // busResource
	Session string          `json:"s,omitempty"` // busResponse, busCancel
	Task    string          `json:"t,omitempty"` // busTask, busTaskCancel, busTaskUpdate
	Data    json.RawMessage `json:"d,omitempty"` // the message, params or answers
}

// Kinds of busMsg.
const (
	busList       = "l"  // lists changed
	busResource   = "u"  // a resource was updated
	busTask       = "t"  // a task moved (Data: its detailed state)
	busResponse   = "r"  // a client's response to a request of this instance (Data)
	busCancel     = "x"  // notifications/cancelled of a shared session (Data: params)
	busTaskCancel = "tc" // cancel the task running here
	busTaskUpdate = "tu" // answers for the task running here (Data: inputResponses)
)

// sharedState is the scale-out part of a Server.
type sharedState struct {
	s      *Server
	st     store.Store
	origin string // tells this server's bus messages from others'

	mu      sync.Mutex
	inst    int64               // instance number; 0 until joined
	byID    map[string]*Session // the shared sessions open here
	cancels []func()            // bus subscriptions
	fan     fanOut              // the pending fan-out to legacy sessions
}

// fanOut is what waits to be written to the shared legacy sessions'
// streams: list changes and resource updates, coalesced, written by one
// goroutine that runs while there is something to write.
type fanOut struct {
	lists   listKinds
	uris    []string
	running bool
}

// encoder writes the messages the server puts in the store.
var encoder = jsonrpc.Encoder{OmitNullID: true}

func newShared(s *Server, st store.Store) *sharedState {
	sh := &sharedState{s: s, st: st, origin: rand.Text(), byID: make(map[string]*Session)}
	bus := st.Bus()
	sh.cancels = append(sh.cancels,
		bus.Subscribe(notesTopic, sh.receive),
		bus.Subscribe(controlTopic, sh.receive))
	return sh
}

// join returns the instance number, drawing it (and subscribing to its
// topic) the first time.
func (sh *sharedState) join(ctx context.Context) (int64, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.inst != 0 {
		return sh.inst, nil
	}
	n, err := sh.st.NewInstance(ctx)
	if err != nil {
		return 0, fmt.Errorf("mcp server: joining the shared store: %w", err)
	}
	sh.inst = n
	sh.cancels = append(sh.cancels, sh.st.Bus().Subscribe(store.InstanceTopic(n), sh.receive))
	return n, nil
}

// instance returns the instance number, 0 before join.
func (sh *sharedState) instance() int64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.inst
}

// stop ends the bus subscriptions (Shutdown).
func (sh *sharedState) stop() {
	if sh == nil {
		return
	}
	sh.mu.Lock()
	cancels := sh.cancels
	sh.cancels = nil
	sh.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

// addSession records a shared session opened here.
func (sh *sharedState) addSession(sess *Session) {
	sh.mu.Lock()
	sh.byID[sess.id] = sess
	sh.mu.Unlock()
}

// removeSession forgets it.
func (sh *sharedState) removeSession(sess *Session) {
	sh.mu.Lock()
	if sh.byID[sess.id] == sess {
		delete(sh.byID, sess.id)
	}
	sh.mu.Unlock()
}

func (sh *sharedState) session(id string) *Session {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.byID[id]
}

// publish sends m on topic, logging a failure.
func (sh *sharedState) publish(topic string, m *busMsg) {
	m.Origin = sh.origin
	b, err := json.Marshal(m)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), sh.s.opts.NotifyTimeout)
		err = sh.st.Bus().Publish(ctx, topic, b)
		cancel()
	}
	if err != nil {
		sh.s.log.Warn("mcp server: a message for the other instances was not sent", "kind", m.Kind, "error", err)
	}
}

// receive handles a message of another instance.
func (sh *sharedState) receive(b []byte) {
	var m busMsg
	if err := json.Unmarshal(b, &m); err != nil {
		sh.s.log.Warn("mcp server: an unreadable message from another instance", "error", err)
		return
	}
	if m.Origin == sh.origin {
		return // raised here, delivered here already
	}
	s := sh.s
	switch m.Kind {
	case busList:
		s.listChangedListeners(m.Lists)
	case busResource:
		s.resourceUpdatedListeners(m.URI)
	case busTask:
		var d mcp.DetailedTask
		if err := json.Unmarshal(m.Data, &d); err == nil {
			s.tasks.notifyListeners(m.Task, &d)
		}
	case busResponse:
		sess := sh.session(m.Session)
		msg, err := jsonrpc.Decode(m.Data, nil)
		resp, ok := msg.(*jsonrpc.Response)
		if sess == nil || err != nil || !ok || !sess.conn.Resolve(resp) {
			s.log.Debug("mcp server: a forwarded response found no request", "session", m.Session)
		}
	case busCancel:
		if sess := sh.session(m.Session); sess != nil {
			if n, err := jsonrpc.NewNotification(mcp.NotificationCancelled, m.Data); err == nil {
				sess.conn.Serve(context.Background(), n)
			}
		}
	case busTaskCancel:
		if run := s.tasks.running(m.Task); run != nil {
			run.cancel(errTaskCancelled)
		}
	case busTaskUpdate:
		var answers mcp.InputResponses
		if run := s.tasks.running(m.Task); run != nil && json.Unmarshal(m.Data, &answers) == nil {
			if err := run.answer(context.Background(), answers); err != nil {
				s.log.Info("mcp server: forwarded answers refused", "task", m.Task, "error", err)
			}
		}
	}
}

// forward sends a client's response that no request of this instance
// awaits to the instance whose number its id carries; it reports
// whether it did.
func (sh *sharedState) forward(sessionID string, resp *jsonrpc.Response) bool {
	n, ok := resp.ID.Int64()
	inst := n >> 32
	if !ok || inst <= 0 || inst > store.MaxInstance || inst == sh.instance() {
		return false
	}
	data, err := encoder.Append(nil, resp)
	if err != nil {
		return false
	}
	sh.publish(store.InstanceTopic(inst), &busMsg{Kind: busResponse, Session: sessionID, Data: data})
	return true
}

// update writes a change of a shared session to the store.
func (sh *sharedState) update(ctx context.Context, sess *Session, u *store.SessionUpdate) error {
	err := sh.st.Sessions().Update(ctx, sess.id, u)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrLimit):
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "Invalid Request: a session may hold at most %d subscriptions", sh.s.opts.MaxSubscriptions)
	case errors.Is(err, store.ErrNotFound):
		return jsonrpc.NewError(jsonrpc.CodeInvalidRequest, "Invalid Request: the session has ended")
	}
	sh.s.log.Warn("mcp server: the session store failed", "session", sess.id, "error", err)
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "Internal error: the session store is unavailable: %v", err)
}

// SyncSession brings a shared session up to date with its record in the
// store: what another instance negotiated or changed. The Streamable HTTP
// handler calls it before each request of a session when it shares a
// store with the server.
func (m messageSession) SyncSession(rec *store.Session) {
	sess := m.Session
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if !sess.initialized && rec.Initialized {
		// Written once: requests read the capabilities and info without
		// the lock once they saw the session initialized.
		sess.initialized = true
		sess.client = m.server.clients.intern(rec.Version, rec.ClientInfo, rec.ClientCapabilities)
	}
	sess.setLogLevelLocked(rec.LogLevel)
}

// Store returns the store the server shares with other instances (nil
// without one); the Streamable HTTP handler takes it by default.
func (s *Server) Store() store.Store { return s.opts.Store }

// sharedOwner is the task owner of a shared legacy session: the same on
// every instance, and not the session id itself, which is a credential.
func sharedOwner(sessionID string) string {
	sum := sha256.Sum256([]byte("mcpwire task owner\x00" + sessionID))
	return "s:" + hex.EncodeToString(sum[:16])
}

// listChanged sends a list change to the other instances' listeners and
// to the shared legacy sessions.
func (sh *sharedState) listChanged(kind listKinds) {
	sh.publish(notesTopic, &busMsg{Kind: busList, Lists: kind})
	sh.mu.Lock()
	sh.fan.lists |= kind
	sh.startFanLocked()
	sh.mu.Unlock()
}

// resourceUpdated sends a resource update to the other instances'
// listeners and to the shared legacy sessions subscribed to uri.
func (sh *sharedState) resourceUpdated(uri string) {
	sh.publish(notesTopic, &busMsg{Kind: busResource, URI: uri})
	sh.mu.Lock()
	if !slices.Contains(sh.fan.uris, uri) {
		if len(sh.fan.uris) >= sh.s.opts.MaxSubscriptions {
			sh.s.log.Warn("mcp server: too many resource updates waiting for shared sessions; one is dropped", "uri", uri)
		} else {
			sh.fan.uris = append(sh.fan.uris, uri)
		}
	}
	sh.startFanLocked()
	sh.mu.Unlock()
}

func (sh *sharedState) startFanLocked() {
	if sh.fan.running {
		return
	}
	sh.fan.running = true
	sh.s.senders.Add()
	go sh.fanOut()
}

// fanOut writes the pending list changes and resource updates to the
// streams of the shared legacy sessions, until none is pending.
func (sh *sharedState) fanOut() {
	defer sh.s.senders.Done()
	for {
		sh.mu.Lock()
		f := sh.fan
		sh.fan = fanOut{running: true}
		if f.lists == 0 && len(f.uris) == 0 {
			sh.fan.running = false
			sh.mu.Unlock()
			return
		}
		sh.mu.Unlock()
		for _, lm := range listMethods {
			if f.lists&lm.kind != 0 {
				sh.fanOne("", lm.method, emptyParams)
			}
		}
		for _, uri := range f.uris {
			sh.fanOne(uri, mcp.NotificationResourceUpdated, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
}

// fanOne appends one notification to the stream of every shared legacy
// session (uri "") or of those subscribed to uri.
func (sh *sharedState) fanOne(uri, method string, params any) {
	s := sh.s
	n, err := jsonrpc.NewNotification(method, params)
	if err != nil {
		s.log.Error("mcp server: a notification cannot be encoded", "method", method, "error", err)
		return
	}
	data, err := encoder.Append(nil, n)
	if err != nil {
		s.log.Error("mcp server: a notification cannot be encoded", "method", method, "error", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.NotifyTimeout)
	defer cancel()
	events := sh.st.Events()
	err = sh.st.Sessions().Each(ctx, uri, func(id string) error {
		if len(s.opts.Outgoing) == 0 {
			_, err := events.Append(ctx, id, store.SessionStream, data)
			return err
		}
		send := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			b, err := encoder.Append(nil, req)
			if err == nil {
				_, err = events.Append(ctx, id, store.SessionStream, b)
			}
			return nil, err
		})
		_, err := jsonrpc.Chain(send, s.opts.Outgoing...).Handle(ctx, n)
		return err
	})
	if err != nil {
		s.log.Warn("mcp server: a notification did not reach every shared session", "method", method, "error", err)
	}
}

// forward sends m to the instance that runs the task rec, if that is
// another instance.
func (e *taskEngine) forward(rec *TaskRecord, m *busMsg) {
	sh := e.s.shared
	if sh == nil || rec.Instance == 0 || rec.Instance == sh.instance() {
		return
	}
	sh.publish(store.InstanceTopic(rec.Instance), m)
}
