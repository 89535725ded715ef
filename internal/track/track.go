// Package track counts work in progress — the goroutines an HTTP
// handler starts, the requests and sessions a server serves — so that a
// Shutdown can wait for it, with a deadline, and so that new work can be
// refused once shutting down has begun or when too much is running.
//
// A sync.WaitGroup does not do: its Wait cannot give up when a context
// ends, and a request that arrives while Shutdown waits would Add to a
// group whose counter may be zero.
package track

import (
	"context"
	"sync"
)

// A Group counts running work. The zero value is ready to use.
type Group struct {
	mu      sync.Mutex
	running int
	closed  bool          // TryAdd refuses
	idle    chan struct{} // closed when running drops to zero, if someone waits
}

// TryAdd counts one more piece of work, which Done ends, unless the group
// is closed or limit pieces are counted already (no limit when limit <=
// 0). It reports whether it counted it.
func (g *Group) TryAdd(limit int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || (limit > 0 && g.running >= limit) {
		return false
	}
	g.running++
	return true
}

// Close makes TryAdd refuse from now on. Work counted already goes on,
// and Add still counts (for work that must not be refused).
func (g *Group) Close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// Running returns the number of pieces of work counted now.
func (g *Group) Running() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.running
}

// Add counts one more piece of work, which Done ends.
func (g *Group) Add() {
	g.mu.Lock()
	g.running++
	g.mu.Unlock()
}

// Done ends a piece of work counted by Add.
func (g *Group) Done() {
	g.mu.Lock()
	g.running--
	if g.running == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
	g.mu.Unlock()
}

// Go runs f in a goroutine counted by g.
func (g *Group) Go(f func()) {
	g.Add()
	go func() {
		defer g.Done()
		f()
	}()
}

// Wait waits until no work is counted, or ctx ends (then it returns
// ctx.Err()).
func (g *Group) Wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		if g.running == 0 {
			g.mu.Unlock()
			return nil
		}
		if g.idle == nil {
			g.idle = make(chan struct{})
		}
		idle := g.idle
		g.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
