package redis_test

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestBusSubscribeRacingLastCancel: a Subscribe made while the last
// subscription of its topic is being cancelled must end subscribed. The
// cancel sent UNSUBSCRIBE after releasing its lock, so that a Subscribe
// in between (which, finding no subscriber, sent SUBSCRIBE) was undone:
// the new subscriber received nothing, for good (the follows of a
// session missed their wake-ups and fell back to polling). The cancel
// is held between the two by the delivery in progress it waits for.
func TestBusSubscribeRacingLastCancel(t *testing.T) {
	st := open(t, nil)
	bus := st.Bus()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	entered, release := make(chan struct{}, 1), make(chan struct{})
	cancelA := bus.Subscribe("race", func([]byte) {
		select {
		case entered <- struct{}{}:
			<-release
		default:
		}
	})
	publishUntil := func(seen <-chan struct{}, what string) {
		t.Helper()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(5 * time.Second)
		for {
			if err := bus.Publish(ctx, "race", []byte("x")); err != nil {
				t.Fatal(err)
			}
			select {
			case <-seen:
				return
			case <-tick.C:
			case <-deadline:
				t.Fatalf("%s: no message in 5s: the topic's channel was left unsubscribed", what)
			}
		}
	}
	publishUntil(entered, "the first subscriber") // its delivery is in progress now
	cancelled := make(chan struct{})
	go func() {
		cancelA() // waits for the delivery in progress
		close(cancelled)
	}()
	for st.BusSubscribers("race") != 0 { // the cancel has let go of the topic
		if ctx.Err() != nil {
			t.Fatal("the cancel never removed the subscription")
		}
		runtime.Gosched()
	}
	got := make(chan struct{}, 1)
	cancelB := bus.Subscribe("race", func([]byte) {
		select {
		case got <- struct{}{}:
		default:
		}
	})
	defer cancelB()
	close(release)
	<-cancelled
	publishUntil(got, "the subscriber that came during the cancel")
}
