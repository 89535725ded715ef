package track

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Group
		if err := g.Wait(t.Context()); err != nil {
			t.Fatalf("Wait on an empty group: %v", err)
		}
		release := make(chan struct{})
		g.Go(func() { <-release })
		g.Add()
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		defer cancel()
		if err := g.Wait(ctx); err != context.DeadlineExceeded {
			t.Fatalf("Wait with work running: %v, want the deadline", err)
		}
		done := make(chan error, 1)
		go func() { done <- g.Wait(t.Context()) }()
		close(release)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Wait returned %v with work still counted", err)
		default:
		}
		g.Done()
		if err := <-done; err != nil {
			t.Fatalf("Wait: %v", err)
		}
		g.Go(func() {}) // the group is reusable
		if err := g.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestTryAdd(t *testing.T) {
	var g Group
	for range 2 {
		if !g.TryAdd(2) {
			t.Fatal("TryAdd refused below the limit")
		}
	}
	if g.TryAdd(2) {
		t.Fatal("TryAdd counted beyond the limit")
	}
	if !g.TryAdd(0) {
		t.Fatal("TryAdd refused without a limit")
	}
	if g.Running() != 3 {
		t.Fatalf("Running %d, want 3", g.Running())
	}
	g.Close()
	if g.TryAdd(0) {
		t.Fatal("TryAdd counted in a closed group")
	}
	g.Add() // Add still counts
	for range 4 {
		g.Done()
	}
	if err := g.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
}
