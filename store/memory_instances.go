package store

import (
	"context"
	"sync"
	"time"
)

// memInstances is the Instances of a Memory store: when each name's beat
// expires. Expired names are dropped as new beats come.
type memInstances struct {
	mu      sync.Mutex
	expires map[string]time.Time
}

func (m *memInstances) Beat(_ context.Context, name string, ttl time.Duration) error {
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.expires == nil {
		m.expires = make(map[string]time.Time)
	}
	if _, ok := m.expires[name]; !ok {
		for n, t := range m.expires {
			if !t.After(now) {
				delete(m.expires, n)
			}
		}
	}
	m.expires[name] = now.Add(ttl)
	return nil
}

func (m *memInstances) Alive(_ context.Context, name string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.expires[name].After(time.Now()), nil
}
