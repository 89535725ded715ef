package wire

import (
	"container/list"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/transport"
)

// Defaults of the HTTP tap's session tracking.
const (
	// DefaultMaxSessions bounds the sessions whose frames an HTTPTap
	// tracks at once.
	DefaultMaxSessions = 1000
	// DefaultSessionIdle is how long an HTTPTap tracks a session that
	// has no exchange.
	DefaultSessionIdle = 30 * time.Minute
)

// A sessionTable holds the frame trackers of the sessions an upstream
// accepted, so that a session's exchanges share one (a response on a GET
// stream is matched with the request POSTed for it). It is bounded: a
// session leaves it when it ends (DELETE, 404 from the upstream, the end
// of a legacy SSE stream), after idle time without an exchange, and, when
// the table is full, the least recently used session leaves it for a new
// one. A session out of the table is still recorded; only the matching of
// its responses to requests across exchanges is lost.
type sessionTable struct {
	max  int
	idle time.Duration
	log  *slog.Logger

	mu   sync.Mutex
	byID map[string]*list.Element // of *trackedSession, in lru
	lru  list.List                // the most recently used first
}

type trackedSession struct {
	id   string
	tr   *transport.FrameTracker
	used time.Time
}

// get returns the tracker of session id, or nil when the table has none.
func (s *sessionTable) get(id string) *transport.FrameTracker {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.expire(now)
	e, ok := s.byID[id]
	if !ok {
		return nil
	}
	ts := e.Value.(*trackedSession)
	ts.used = now
	s.lru.MoveToFront(e)
	return ts.tr
}

// add tracks session id with tr, unless it is tracked already.
func (s *sessionTable) add(id string, tr *transport.FrameTracker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.expire(now)
	if e, ok := s.byID[id]; ok {
		e.Value.(*trackedSession).used = now
		s.lru.MoveToFront(e)
		return
	}
	if s.byID == nil {
		s.byID = make(map[string]*list.Element)
	}
	if s.lru.Len() >= s.max {
		old := s.lru.Back().Value.(*trackedSession)
		s.drop(s.lru.Back())
		s.log.Warn("tap: tracking as many sessions as it may; the least recently used one is no longer tracked (its responses on other exchanges are recorded without their request's method and latency)",
			"max", s.max, "session", old.id)
	}
	s.byID[id] = s.lru.PushFront(&trackedSession{id: id, tr: tr, used: now})
}

// remove forgets session id, if tr (when not nil) is its tracker.
func (s *sessionTable) remove(id string, tr *transport.FrameTracker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.byID[id]; ok && (tr == nil || e.Value.(*trackedSession).tr == tr) {
		s.drop(e)
	}
}

// len returns how many sessions are tracked.
func (s *sessionTable) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}

// expire forgets the sessions idle for longer than s.idle; s.mu is held.
func (s *sessionTable) expire(now time.Time) {
	for e := s.lru.Back(); e != nil && now.Sub(e.Value.(*trackedSession).used) > s.idle; e = s.lru.Back() {
		s.drop(e)
	}
}

func (s *sessionTable) drop(e *list.Element) {
	delete(s.byID, e.Value.(*trackedSession).id)
	s.lru.Remove(e)
}
