package bridge

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// recorder is a stream that records what is written to it, and can hold
// its writes until released.
type recorder struct {
	mu      sync.Mutex
	got     []string
	hold    chan struct{} // when not nil, each write waits for it to be closed
	writing chan struct{} // receives at the start of each write
}

func (r *recorder) Write(_ context.Context, m jsonrpc.Message) error {
	if r.writing != nil {
		r.writing <- struct{}{}
	}
	if r.hold != nil {
		<-r.hold
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, m.(*jsonrpc.Request).Method)
	return nil
}

// TestOutboxInOrderAndBounded: an outbox writes what is put in it in
// order, and close waits until it has; put never waits on the stream,
// and past the bound reports it once and drops the rest.
func TestOutboxInOrderAndBounded(t *testing.T) {
	msg := func(i int) jsonrpc.Message { return &jsonrpc.Request{Method: fmt.Sprint(i)} }

	r := &recorder{}
	o := &outbox{w: r, ctx: context.Background()}
	var want []string
	for i := range 1000 {
		if o.put(msg(i), 1000, 1<<20) {
			t.Fatalf("message %d hit the bound", i)
		}
		want = append(want, fmt.Sprint(i))
	}
	if o.close() {
		t.Error("close reports the bound hit")
	}
	if fmt.Sprint(r.got) != fmt.Sprint(want) {
		t.Errorf("written %v", r.got)
	}
	if o.put(msg(0), 1000, 1<<20) || len(r.got) != 1000 {
		t.Error("a message put after close was taken")
	}

	r = &recorder{hold: make(chan struct{}), writing: make(chan struct{}, 1)}
	o = &outbox{w: r, ctx: context.Background()}
	o.put(msg(1), 2, 1<<20)
	<-r.writing // the stream holds message 1
	for i := 2; i <= 3; i++ {
		if o.put(msg(i), 2, 1<<20) {
			t.Fatalf("message %d hit the bound of 2 waiting", i)
		}
	}
	if !o.put(msg(4), 2, 1<<20) {
		t.Fatal("a third message waiting did not hit the bound")
	}
	if o.put(msg(5), 2, 1<<20) {
		t.Error("the bound was reported twice")
	}
	close(r.hold)
	if !o.close() {
		t.Error("close does not report the bound hit")
	}
	if fmt.Sprint(r.got) != "[1]" {
		t.Errorf("written %v, want [1]: what waited when the bound was hit is dropped", r.got)
	}

	r = &recorder{hold: make(chan struct{}), writing: make(chan struct{}, 1)}
	o = &outbox{w: r, ctx: context.Background()}
	big := &jsonrpc.Request{Method: "big", Params: make([]byte, 4096)}
	o.put(big, 10, 1024) // larger than the bound, alone: it passes
	<-r.writing
	if o.put(msg(1), 10, 1024) || !o.put(big, 10, 1024) {
		t.Error("the bound in bytes")
	}
	close(r.hold)
	o.close()
}
