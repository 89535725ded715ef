// Package track counts the goroutines an HTTP transport's handler starts,
// so that its Shutdown can wait for them, with a deadline.
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
	idle    chan struct{} // closed when running drops to zero, if someone waits
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
