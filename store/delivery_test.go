package store

import (
	"fmt"
	"testing"
	"testing/synctest"
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

// TestDeliveryCancelFromItsCallbackReturnsAtOnce: a subscriber that
// cancels its subscription from its own function (on the message that
// ends its interest) must not wait for itself: Cancel waited its full
// second for the delivery in progress, which was the caller. Cancel from
// another goroutine still waits for that delivery.
func TestDeliveryCancelFromItsCallbackReturnsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var d *Delivery
		waited := make(chan time.Duration, 1)
		calls := 0
		d = NewDelivery(func([]byte) {
			calls++
			start := time.Now()
			d.Cancel()
			waited <- time.Since(start)
		})
		d.Put([]byte("last"))
		if w := <-waited; w != 0 {
			t.Errorf("Cancel called from its own delivery waited %v, want to return at once", w)
		}
		d.Put([]byte("after"))
		synctest.Wait()
		if calls != 1 {
			t.Errorf("%d deliveries, want 1: none after Cancel", calls)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		d := NewDelivery(func([]byte) { <-release })
		d.Put([]byte("slow"))
		synctest.Wait() // the delivery is in progress
		cancelled := make(chan struct{})
		go func() {
			d.Cancel()
			close(cancelled)
		}()
		synctest.Wait()
		select {
		case <-cancelled:
			t.Fatal("Cancel from another goroutine returned while the delivery was in progress")
		default:
		}
		close(release)
		<-cancelled
	})
}
