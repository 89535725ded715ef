package transport

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// closePipes closes both ends a line connection uses.
type closePipes struct {
	in  *io.PipeReader
	out *io.PipeWriter
}

func (c closePipes) Close() error { c.in.Close(); return c.out.Close() }

// Close ends at once a write blocked on a peer that stopped reading, when
// nothing is held: it does not wait for the writer's lock, which that
// write keeps until the closer ends it (a review found Close waiting
// lineCloseWait, 1 s, for it).
func TestCloseDoesNotWaitForABlockedWrite(t *testing.T) {
	for _, engine := range []bool{false, true} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe() // nobody reads outR: a stuck peer
		lc := NewLineConn(inR, outW, closePipes{inR, outW}, nil)
		write := func() error { return lc.Write(context.Background(), &jsonrpc.Request{Method: "stuck"}) }
		closeIt := lc.Close
		if engine {
			conn := jsonrpc.NewConn(lc, nil)
			write = func() error {
				return conn.Notify(context.Background(), "notifications/message", map[string]any{"x": 1})
			}
			closeIt = conn.Close
		}
		werr := make(chan error, 1)
		go func() { werr <- write() }()
		time.Sleep(50 * time.Millisecond) // the write blocks in outW.Write (were it not there yet, Close is quick anyway)
		start := time.Now()
		closeIt()
		took := time.Since(start)
		<-werr
		inW.Close()
		outR.Close()
		if took > 300*time.Millisecond {
			t.Errorf("engine %v: Close took %v with a write blocked on a stuck peer and nothing held; want the stream closed at once", engine, took)
		}
	}
}
