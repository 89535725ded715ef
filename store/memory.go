package store

import (
	"context"
	"crypto/rand"
	"slices"
	"sync"
	"time"
)

// Memory is a Store in the memory of one process: servers of one process
// that share it behave as one server, as instances sharing store/redis
// do across processes. It is what the tests of the seams run on, and
// what a program that runs several servers in one process may use.
//
// It is bounded as the shared stores are: events per session
// (MemoryOptions), tasks in all and per owner; sessions expire after
// their TTL.
type Memory struct {
	sessions memSessions
	events   *memEvents
	bus      memBus
	tasks    *MemoryTasks
	keys     memKeys
	live     memInstances

	mu   sync.Mutex
	inst int64
}

// MemoryOptions bound a Memory store. A nil *MemoryOptions, and every
// zero field, mean the defaults.
type MemoryOptions struct {
	// MaxEventsPerSession bounds the events kept for one session, the
	// oldest going first. Default DefaultMaxEventsPerSession.
	MaxEventsPerSession int
	// MaxTasks and MaxTasksPerOwner bound the tasks. Defaults
	// DefaultMaxTasks and DefaultMaxTasksPerOwner.
	MaxTasks, MaxTasksPerOwner int
}

// DefaultMaxEventsPerSession bounds the events a store keeps for one
// session.
const DefaultMaxEventsPerSession = 1000

// NewMemory returns an empty in-memory store.
func NewMemory(opts *MemoryOptions) *Memory {
	var o MemoryOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxEventsPerSession <= 0 {
		o.MaxEventsPerSession = DefaultMaxEventsPerSession
	}
	m := &Memory{
		events: newMemEvents(o.MaxEventsPerSession),
		tasks:  NewMemoryTasks(o.MaxTasks, o.MaxTasksPerOwner),
	}
	m.sessions.m = make(map[string]*memSession)
	m.bus.subs = make(map[string][]*Delivery)
	return m
}

// Sessions implements Store.
func (m *Memory) Sessions() Sessions { return &m.sessions }

// Events implements Store.
func (m *Memory) Events() Events { return m.events }

// Bus implements Store.
func (m *Memory) Bus() Bus { return &m.bus }

// Tasks implements Store.
func (m *Memory) Tasks() Tasks { return m.tasks }

// Keys implements Store.
func (m *Memory) Keys() KeyRing { return &m.keys }

// Instances implements Store.
func (m *Memory) Instances() Instances { return &m.live }

// NewInstance implements Store.
func (m *Memory) NewInstance(context.Context) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.inst = m.inst%MaxInstance + 1
	return m.inst, nil
}

// Sessions

type memSessions struct {
	mu sync.Mutex
	m  map[string]*memSession
}

type memSession struct {
	rec     Session
	expires time.Time
}

func (s *memSessions) getLocked(id string, now time.Time) *memSession {
	ms := s.m[id]
	if ms != nil && !now.Before(ms.expires) {
		delete(s.m, id)
		return nil
	}
	return ms
}

func (s *memSessions) Create(_ context.Context, rec *Session, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.getLocked(rec.ID, now) != nil {
		return ErrExists
	}
	c := *rec
	c.Subscriptions = slices.Clone(rec.Subscriptions)
	s.m[rec.ID] = &memSession{rec: c, expires: now.Add(ttl)}
	return nil
}

func (s *memSessions) Load(_ context.Context, id string, ttl time.Duration) (*Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	ms := s.getLocked(id, now)
	if ms == nil {
		return nil, ErrNotFound
	}
	if ttl > 0 {
		ms.expires = now.Add(ttl)
	}
	c := ms.rec
	c.Subscriptions = slices.Clone(ms.rec.Subscriptions)
	return &c, nil
}

func (s *memSessions) Update(_ context.Context, id string, u *SessionUpdate) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := s.getLocked(id, time.Now())
	if ms == nil {
		return ErrNotFound
	}
	r := &ms.rec
	if u.Subscribe != "" && !slices.Contains(r.Subscriptions, u.Subscribe) {
		if u.MaxSubscriptions > 0 && len(r.Subscriptions) >= u.MaxSubscriptions {
			return ErrLimit
		}
		r.Subscriptions = append(r.Subscriptions, u.Subscribe)
	}
	if u.Unsubscribe != "" {
		if i := slices.Index(r.Subscriptions, u.Unsubscribe); i >= 0 {
			r.Subscriptions = slices.Delete(r.Subscriptions, i, i+1)
		}
	}
	if u.Initialize {
		r.Initialized = true
		r.Version, r.ClientInfo, r.ClientCapabilities = u.Version, u.ClientInfo, u.ClientCapabilities
	}
	if u.LogLevel != "" {
		r.LogLevel = u.LogLevel
	}
	if u.Delivered != "" {
		r.Delivered = u.Delivered
	}
	return nil
}

func (s *memSessions) Delete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
	return nil
}

func (s *memSessions) Each(ctx context.Context, uri string, f func(id string) error) error {
	s.mu.Lock()
	now := time.Now()
	var ids []string
	for id, ms := range s.m {
		if !now.Before(ms.expires) || !ms.rec.Initialized {
			continue
		}
		if uri != "" && !slices.Contains(ms.rec.Subscriptions, uri) {
			continue
		}
		ids = append(ids, id)
	}
	s.mu.Unlock()
	slices.Sort(ids)
	for _, id := range ids {
		if err := f(id); err != nil {
			return err
		}
	}
	return nil
}

// Bus

type memBus struct {
	mu   sync.Mutex
	subs map[string][]*Delivery
}

func (b *memBus) Publish(_ context.Context, topic string, msg []byte) error {
	b.mu.Lock()
	subs := slices.Clone(b.subs[topic])
	b.mu.Unlock()
	for _, s := range subs {
		s.Put(append([]byte(nil), msg...))
	}
	return nil
}

func (b *memBus) Subscribe(topic string, f func([]byte)) func() {
	s := NewDelivery(f)
	b.mu.Lock()
	b.subs[topic] = append(b.subs[topic], s)
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		list := b.subs[topic]
		if i := slices.Index(list, s); i >= 0 {
			list = slices.Delete(list, i, i+1)
		}
		if len(list) == 0 {
			delete(b.subs, topic)
		} else {
			b.subs[topic] = list
		}
		b.mu.Unlock()
		s.Cancel()
	}
}

// Keys

type memKeys struct {
	mu   sync.Mutex
	keys [][]byte
}

func (k *memKeys) Keys(context.Context) ([][]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys == nil {
		key := make([]byte, 32)
		rand.Read(key)
		k.keys = [][]byte{key}
	}
	return slices.Clone(k.keys), nil
}
