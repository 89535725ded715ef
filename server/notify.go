package server

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// Notifications the server sends on its own initiative — a list changed,
// a subscribed resource was updated, a task moved — are never written in
// the goroutine that caused them (AddTool, ResourceUpdated, a task). Each
// target, a legacy session or an open subscriptions/listen, has an
// outbox: what it has yet to be told, coalesced — one notification per
// list however many changes, one per resource URI, the latest state of
// each task — and a sender goroutine that exists only while the outbox
// holds something. So registration returns at once whatever the clients
// do; an idle session costs no goroutine; a client that stops reading
// costs one goroutine and a bounded outbox, and is told once per list
// when it reads again. Each delivery is bounded by Options.NotifyTimeout;
// what was not delivered stays in the outbox, and a target that fails
// maxNotifyFailures deliveries in a row is given up: its session is
// closed, its listen ended.

// maxNotifyFailures is how many deliveries in a row may fail before a
// target is given up.
const maxNotifyFailures = 3

// listKinds is a set of lists whose change waits to be announced.
type listKinds uint8

const (
	listTools listKinds = 1 << iota
	listPrompts
	listResources
)

// listMethods maps each list to its notification, in the order they are
// sent.
var listMethods = [...]struct {
	kind   listKinds
	method string
}{
	{listTools, mcp.NotificationToolListChanged},
	{listPrompts, mcp.NotificationPromptListChanged},
	{listResources, mcp.NotificationResourceListChanged},
}

// outbox is what a target has yet to be told. It is guarded by the
// target's mutex, and small: a session carries one.
type outbox struct {
	more     *pendingNotes // resource updates and task states waiting; nil when none
	lists    listKinds     // list changes waiting
	sending  bool          // a sender goroutine is live: it takes what is put here
	failures uint8         // deliveries failed in a row
	closed   bool          // the target ended or was given up: nothing is queued any more
}

// close empties the outbox for good.
func (b *outbox) close() {
	b.closed = true
	b.lists = 0
	b.more = nil
}

// A note is a notification waiting in an outbox: a list change (method
// only), a resource update (uri) or a task's state (params).
type note struct {
	method string
	uri    string
	params any // task notifications: *mcp.Task for a session, *splitNote for a listener
}

// pendingNotes holds the resource updates and task states waiting for a
// target, one per key ("u" + URI, "t" + task id), the latest state of a
// task replacing the one before, in the order the keys came.
type pendingNotes struct {
	keys  []string
	notes map[string]note
	count [2]int // keys waiting of each kind: resource updates, task states
}

// noteKind returns the index in pendingNotes.count of a key's kind.
func noteKind(key string) int {
	if key[0] == 't' {
		return 1
	}
	return 0
}

// put adds or replaces the note of key; it reports false, doing nothing,
// when limit keys of its kind are waiting already.
func (p *pendingNotes) put(key string, n note, limit int) bool {
	if _, ok := p.notes[key]; !ok {
		k := noteKind(key)
		if p.count[k] >= limit {
			return false
		}
		p.count[k]++
		p.keys = append(p.keys, key)
	}
	p.notes[key] = n
	return true
}

// A target receives the notifications of an outbox.
type target interface {
	// outbox returns the target's outbox and the mutex that guards it.
	outbox() (*sync.Mutex, *outbox)
	// base is the parent of the context of each delivery.
	base() context.Context
	// deliver sends one notification.
	deliver(ctx context.Context, n note) error
	// abandon gives the target up after repeated failures.
	abandon()
}

// post puts something in t's outbox with add, called with the outbox
// locked, which reports whether it added anything; a sender starts if
// none is running.
func (s *Server) post(t target, add func(b *outbox) bool) {
	mu, b := t.outbox()
	mu.Lock()
	if b.closed || !add(b) || b.sending {
		mu.Unlock()
		return
	}
	b.sending = true
	s.senders.Add()
	mu.Unlock()
	go s.send(t)
}

// putNote is an add function of post for a resource update or a task
// state, keyed by key. What waits for one target is bounded: resource
// updates by MaxSubscriptions (a client watches no more resources than
// that, but it may churn its subscriptions while it does not read), task
// states by the tasks a client may own or watch.
func (s *Server) putNote(b *outbox, key string, n note) bool {
	if b.more == nil {
		b.more = &pendingNotes{notes: make(map[string]note)}
	}
	limit := s.opts.MaxSubscriptions
	if noteKind(key) == 1 {
		limit = s.tasks.noteLimit()
	}
	if b.more.put(key, n, limit) {
		return true
	}
	s.log.Warn("mcp server: a client is not reading its notifications; one is dropped",
		"method", n.method, "waiting", len(b.more.keys))
	return false
}

// send is the sender goroutine of t: it delivers what the outbox holds
// until it is empty.
func (s *Server) send(t target) {
	defer s.senders.Done()
	mu, b := t.outbox()
	for {
		mu.Lock()
		lists, more := b.lists, b.more
		b.lists, b.more = 0, nil
		if b.closed || (lists == 0 && more == nil) {
			b.sending = false
			mu.Unlock()
			return
		}
		mu.Unlock()
		err := s.deliverAll(t, lists, more)
		mu.Lock()
		switch {
		case err == nil:
			b.failures = 0
		case errors.Is(err, jsonrpc.ErrClosed):
			b.close() // the target is gone
		default:
			b.failures++
			if b.failures < maxNotifyFailures {
				break
			}
			b.close()
			mu.Unlock()
			s.log.Warn("mcp server: a client failed to take its notifications; giving it up",
				"failures", maxNotifyFailures, "error", err)
			t.abandon()
			mu.Lock()
		}
		mu.Unlock()
	}
}

// deliverAll sends the list changes and notes taken from an outbox. At
// the first failure it puts back what was not delivered, that one
// included, and returns the error.
func (s *Server) deliverAll(t target, lists listKinds, more *pendingNotes) error {
	for _, lm := range listMethods {
		if lists&lm.kind == 0 {
			continue
		}
		if err := s.deliverOne(t, note{method: lm.method}); err != nil {
			var keys []string
			if more != nil {
				keys = more.keys
			}
			s.putBack(t, lists, more, keys)
			return err
		}
		lists &^= lm.kind
	}
	if more == nil {
		return nil
	}
	for i, key := range more.keys {
		if err := s.deliverOne(t, more.notes[key]); err != nil {
			s.putBack(t, 0, more, more.keys[i:])
			return err
		}
	}
	return nil
}

func (s *Server) deliverOne(t target, n note) error {
	ctx, cancel := context.WithTimeout(t.base(), s.opts.NotifyTimeout)
	defer cancel()
	return t.deliver(ctx, n)
}

// putBack returns undelivered notifications to the outbox, behind what
// came meanwhile (a newer state of the same task wins).
func (s *Server) putBack(t target, lists listKinds, more *pendingNotes, keys []string) {
	mu, b := t.outbox()
	mu.Lock()
	defer mu.Unlock()
	if b.closed {
		return
	}
	b.lists |= lists
	for _, key := range keys {
		if b.more != nil {
			if _, newer := b.more.notes[key]; newer {
				continue
			}
		}
		s.putNote(b, key, more.notes[key])
	}
}

// listChanged announces that a list changed: to every initialized legacy
// session, and to the modern listeners that asked for it; with a store,
// to those of every instance (shared.go).
func (s *Server) listChanged(kind listKinds) {
	for sess := range s.Sessions() {
		s.post(sess, func(b *outbox) bool {
			if !sess.initialized || sess.shared { // shared sessions: through the store
				return false
			}
			b.lists |= kind
			return true
		})
	}
	s.listChangedListeners(kind)
	if s.shared != nil {
		s.shared.listChanged(kind)
	}
}

// listChangedListeners announces a list change to the modern listeners
// of this instance that asked for it.
func (s *Server) listChangedListeners(kind listKinds) {
	for _, l := range s.listenersWhere(func(f *mcp.SubscriptionFilter) bool {
		switch kind {
		case listTools:
			return f.ToolsListChanged
		case listPrompts:
			return f.PromptsListChanged
		case listResources:
			return f.ResourcesListChanged
		}
		return false
	}) {
		s.post(l, func(b *outbox) bool {
			b.lists |= kind
			return true
		})
	}
}

// listenersWhere returns the open listens whose filter want accepts.
func (s *Server) listenersWhere(want func(*mcp.SubscriptionFilter) bool) []*listener {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*listener
	for l := range s.listeners {
		if want(&l.filter) {
			out = append(out, l)
		}
	}
	return out
}

// A Session is a target of notifications.

func (sess *Session) outbox() (*sync.Mutex, *outbox) { return &sess.mu, &sess.out }

func (sess *Session) base() context.Context { return context.Background() }

// emptyParams are the params of a list change.
var emptyParams = json.RawMessage(`{}`)

func (sess *Session) deliver(ctx context.Context, n note) error {
	switch {
	case n.params != nil:
		return sess.conn.Notify(ctx, n.method, n.params)
	case n.uri != "":
		return sess.conn.Notify(ctx, n.method, &mcp.ResourceUpdatedNotificationParams{URI: n.uri})
	}
	return sess.conn.Notify(ctx, n.method, emptyParams)
}

func (sess *Session) abandon() { sess.conn.Close() }
