package jsonrpc

import (
	"context"
	"runtime"
	"testing"
	"unsafe"
)

type discardWriter struct{}

func (discardWriter) Write(context.Context, Message) error { return nil }

// TestDirectConnIsSmall: a direct conn, which every idle legacy HTTP
// session keeps, makes no context, no channel and no map until they are
// used: one allocation of at most 384 bytes (issue 23). On 6ebbd51 it
// made 8, 1,128 bytes: the Conn (640), Closing's and Done's channels,
// the pending map and four contexts.
func TestDirectConnIsSmall(t *testing.T) {
	if size := unsafe.Sizeof(Conn{}); size > 384 {
		t.Errorf("a Conn is %d bytes, want at most 384", size)
	}
	opts := &Options{Context: context.WithValue(context.Background(), testValueKey("k"), "v")}
	var c *Conn
	allocs := testing.AllocsPerRun(100, func() { c = NewDirectConn(discardWriter{}, opts) })
	if allocs > 1 {
		t.Errorf("NewDirectConn made %.0f allocations, want 1", allocs)
	}
	runtime.KeepAlive(c)
	// What was made lazily works as before.
	if got := c.Serve(context.Background(), &Request{ID: Int64ID(1), Method: "m"}); got == nil || got.Error == nil || got.Error.Code != CodeMethodNotFound {
		t.Fatalf("Serve: %+v", got)
	}
	closing, done := c.Closing(), c.Done()
	c.Close()
	for _, ch := range []<-chan struct{}{closing, done, c.Closing(), c.Done()} {
		select {
		case <-ch:
		default:
			t.Fatal("a channel is still open after Close")
		}
	}
}

type testValueKey string

// TestIncomingIsSmall: the record of each incoming call packs its flags
// (issue 23: 96 bytes on 6ebbd51, a size class more than needed).
func TestIncomingIsSmall(t *testing.T) {
	if size := unsafe.Sizeof(incoming{}); size > 80 {
		t.Errorf("an incoming is %d bytes, want at most 80", size)
	}
}

// TestFinishedMakesNoChannel: Finished reports the end of the connection
// as Done does, and asking it leaves a conn without Done's channel.
func TestFinishedMakesNoChannel(t *testing.T) {
	c := NewDirectConn(discardWriter{}, nil)
	if c.Finished() {
		t.Fatal("a new conn is finished")
	}
	if c.done != nil {
		t.Error("Finished made Done's channel")
	}
	c.Close()
	if !c.Finished() {
		t.Fatal("a closed conn is not finished")
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Finished, but Done is open")
	}
}
