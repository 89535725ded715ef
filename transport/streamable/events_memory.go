package streamable

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Defaults of MemoryEventStoreOptions.
const (
	// DefaultMaxEventsPerSession bounds the events kept for one session.
	DefaultMaxEventsPerSession = 1000
	// DefaultMaxBytesPerSession bounds the bytes kept for one session.
	DefaultMaxBytesPerSession = 1 << 20
	// DefaultMaxEventBytes bounds the bytes kept by a whole store.
	DefaultMaxEventBytes = 64 << 20
)

// eventOverhead is what one kept event costs besides its data, roughly.
const eventOverhead = 64

// MemoryEventStoreOptions bound a MemoryEventStore. A nil
// *MemoryEventStoreOptions, and every zero field, mean the defaults.
type MemoryEventStoreOptions struct {
	// MaxEventsPerSession bounds the events kept for one session; the
	// oldest go first. Default 1000.
	MaxEventsPerSession int
	// MaxBytesPerSession bounds the bytes kept for one session. Default
	// 1 MiB.
	MaxBytesPerSession int64
	// MaxBytes bounds the whole store; beyond it the oldest events of the
	// session that has been quiet longest go first. Default 64 MiB.
	MaxBytes int64
}

// A MemoryEventStore is an EventStore in the memory of the process,
// bounded per session and in total. Events are evicted oldest first; a
// client that resumes after an evicted event gets an error rather than a
// stream with a hole in it.
type MemoryEventStore struct {
	opts MemoryEventStoreOptions

	mu    sync.Mutex
	logs  map[string]*eventLog
	bytes int64
	lru   eventLog // sentinel of the ring of logs, most recently appended first
}

// eventLog is the events of one session, in the order appended.
type eventLog struct {
	session    string
	seq        uint64 // the last sequence number given out
	events     []memEvent
	start      int // events[:start] were evicted
	bytes      int64
	prev, next *eventLog
}

type memEvent struct {
	stream string
	seq    uint64
	data   []byte
}

// NewMemoryEventStore returns an empty store.
func NewMemoryEventStore(opts *MemoryEventStoreOptions) *MemoryEventStore {
	s := &MemoryEventStore{logs: make(map[string]*eventLog)}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.MaxEventsPerSession <= 0 {
		s.opts.MaxEventsPerSession = DefaultMaxEventsPerSession
	}
	if s.opts.MaxBytesPerSession <= 0 {
		s.opts.MaxBytesPerSession = DefaultMaxBytesPerSession
	}
	if s.opts.MaxBytes <= 0 {
		s.opts.MaxBytes = DefaultMaxEventBytes
	}
	s.lru.prev, s.lru.next = &s.lru, &s.lru
	return s
}

// Append implements EventStore. Event ids are "<streamID>_<n>", n
// counting the session's events from 1.
func (s *MemoryEventStore) Append(_ context.Context, sessionID, streamID string, data []byte) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.logs[sessionID]
	if l == nil {
		l = &eventLog{session: sessionID}
		s.logs[sessionID] = l
	} else {
		l.prev.next, l.next.prev = l.next, l.prev // unlink
	}
	l.next, l.prev = s.lru.next, &s.lru // link first
	s.lru.next.prev = l
	s.lru.next = l
	l.seq++
	ev := memEvent{stream: streamID, seq: l.seq}
	if len(data) > 0 {
		ev.data = append([]byte(nil), data...)
	}
	l.events = append(l.events, ev)
	size := int64(len(data)) + eventOverhead
	l.bytes += size
	s.bytes += size
	for l.live() > 1 && (l.live() > s.opts.MaxEventsPerSession || l.bytes > s.opts.MaxBytesPerSession) {
		s.evictOldest(l)
	}
	for s.bytes > s.opts.MaxBytes && s.lru.prev != &s.lru {
		victim := s.lru.prev
		if victim == l && l.live() <= 1 {
			break
		}
		s.evictOldest(victim)
	}
	return streamID + "_" + strconv.FormatUint(ev.seq, 10), nil
}

func (l *eventLog) live() int { return len(l.events) - l.start }

// evictOldest drops the oldest event of l, and l itself once empty.
func (s *MemoryEventStore) evictOldest(l *eventLog) {
	ev := &l.events[l.start]
	size := int64(len(ev.data)) + eventOverhead
	l.bytes -= size
	s.bytes -= size
	*ev = memEvent{seq: ev.seq}
	l.start++
	if l.start > len(l.events)/2 && l.start > 16 {
		n := copy(l.events, l.events[l.start:])
		clear(l.events[n:])
		l.events = l.events[:n]
		l.start = 0
	}
	if l.live() == 0 {
		s.removeLocked(l)
	}
}

func (s *MemoryEventStore) removeLocked(l *eventLog) {
	s.bytes -= l.bytes
	l.prev.next, l.next.prev = l.next, l.prev
	l.prev, l.next = nil, nil
	if s.logs[l.session] == l {
		delete(s.logs, l.session)
	}
}

// Replay implements EventStore.
func (s *MemoryEventStore) Replay(_ context.Context, sessionID, lastEventID string, send func(eventID string, data []byte) error) error {
	i := strings.LastIndexByte(lastEventID, '_')
	if i <= 0 {
		return ErrEventNotFound
	}
	stream := lastEventID[:i]
	seq, err := strconv.ParseUint(lastEventID[i+1:], 10, 64)
	if err != nil {
		return ErrEventNotFound
	}
	s.mu.Lock()
	l := s.logs[sessionID]
	if l == nil {
		s.mu.Unlock()
		return ErrEventNotFound
	}
	live := l.events[l.start:]
	k := sort.Search(len(live), func(j int) bool { return live[j].seq >= seq })
	if k == len(live) || live[k].seq != seq || live[k].stream != stream {
		s.mu.Unlock()
		return ErrEventNotFound
	}
	var todo []memEvent
	for _, ev := range live[k+1:] {
		if ev.stream == stream {
			todo = append(todo, ev)
		}
	}
	s.mu.Unlock()
	for _, ev := range todo {
		if err := send(stream+"_"+strconv.FormatUint(ev.seq, 10), ev.data); err != nil {
			return err
		}
	}
	return nil
}

// DeleteSession implements EventStore.
func (s *MemoryEventStore) DeleteSession(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.logs[sessionID]; l != nil {
		s.removeLocked(l)
	}
	return nil
}

// Len returns the number of events kept and their size in bytes
// (estimated: data plus a fixed overhead per event).
func (s *MemoryEventStore) Len() (events int, bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.logs {
		events += l.live()
	}
	return events, s.bytes
}
