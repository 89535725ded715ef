package proxytest

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestWaitForWakesEveryWaiter checks that a write wakes every WaitFor
// waiting on the buffer, not one of them: three wait (two for the same
// text), then one write holds all they wait for.
func TestWaitForWakesEveryWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log LogBuffer
		texts := []string{"first", "second", "first"}
		found := make(chan bool, len(texts))
		for _, text := range texts {
			go func() { found <- log.WaitFor(text, time.Minute) }()
		}
		synctest.Wait() // every waiter waits for a write
		log.Write([]byte("first second\n"))
		for range texts {
			if !<-found {
				t.Error("a waiter did not see the text written (it was not woken)")
			}
		}
	})
}

// TestWaitForTimesOut checks that WaitFor gives up after its duration
// when the text is not written, and finds a text written before it waits.
func TestWaitForTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log LogBuffer
		log.Write([]byte("already\n"))
		if !log.WaitFor("already", time.Second) {
			t.Error("WaitFor did not find a text written before")
		}
		start := time.Now()
		if log.WaitFor("never", time.Second) {
			t.Error("WaitFor found a text never written")
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("WaitFor gave up after %v, want 1s", d)
		}
	})
}
