package store

import (
	"fmt"
	"testing"
	"time"
)

// TestDeliveryInOrderBoundedAndCancelled: messages reach the function in
// order; while it is blocked, at most MaxQueuedDeliveries wait (the
// oldest go); Cancel ends the deliveries and leaves no goroutine.
func TestDeliveryInOrderBoundedAndCancelled(t *testing.T) {
	release := make(chan struct{})
	got := make(chan string, MaxQueuedDeliveries+10)
	d := NewDelivery(func(b []byte) {
		if string(b) == "block" {
			<-release
			return
		}
		got <- string(b)
	})
	d.Put([]byte("block"))
	for i := range MaxQueuedDeliveries + 5 {
		d.Put(fmt.Appendf(nil, "%d", i))
	}
	close(release)
	for i := 5; i < MaxQueuedDeliveries+5; i++ { // the first 5 were dropped
		select {
		case s := <-got:
			if want := fmt.Sprint(i); s != want {
				t.Fatalf("delivered %s, want %s", s, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("message %d never delivered", i)
		}
	}
	d.Cancel()
	d.Put([]byte("late"))
	select {
	case s := <-got:
		t.Fatalf("delivered %q after Cancel", s)
	default:
	}
}
