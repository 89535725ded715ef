package track

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestGroup(t *testing.T) {
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
	select {
	case err := <-done:
		t.Fatalf("Wait returned %v with work still counted", err)
	case <-time.After(20 * time.Millisecond):
	}
	g.Done()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Wait: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return once the work ended")
	}
	g.Go(func() {}) // the group is reusable
	if err := g.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
}
