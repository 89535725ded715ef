package transport

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Closing the connection writes the answers it holds: the engine counts
// an answer as sent once Write returns, and closes the stream when every
// call in hand has been answered, so the answer to a pipelined call still
// held (the reader is busy with the next line of its burst) must reach
// the peer before the closer ends the stream.
func TestCloseWritesHeldAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		entered := make(chan struct{})
		release := make(chan struct{})
		h := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			return "A", nil
		})
		pre := jsonrpc.PreempterFunc(func(ctx context.Context, req *jsonrpc.Request) bool {
			if req.Method != "block" {
				return false
			}
			close(entered)
			<-release // the reader is busy while the connection closes
			return true
		})
		c, p := newPushConn(t, &jsonrpc.Options{Handler: h, Preempter: pre})
		// One write: the notification is buffered behind the call, so the
		// call's answer is held while the notification is delivered.
		burst := `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"block"}` + "\n"
		if _, err := io.WriteString(p.in, burst); err != nil {
			t.Fatal(err)
		}
		<-entered
		c.Close()
		close(release)
		<-p.done
		var got []map[string]any
		for len(p.out) > 0 {
			got = append(got, <-p.out)
		}
		if len(got) != 1 || got[0]["result"] != "A" {
			t.Fatalf("after Close the peer got %v, want the answer to call 1", got)
		}
	})
}

// Once Close has written what is held, nothing is held again: the reader
// could set hold between that write and the end of the stream (a refusal
// of a line it had buffered), and a line then held was reported written
// (Write returned nil) but never reached the peer.
func TestNothingHeldOnceClosing(t *testing.T) {
	var out bytes.Buffer
	c := NewLineConn(strings.NewReader(""), &out, nil, nil).(*lineConn)
	c.writeHeldBeforeClose() // Close's first step
	c.setHold(true)          // the reader, in between
	if err := c.Write(context.Background(), &jsonrpc.Request{Method: "late"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"late"`) {
		t.Errorf("a line written after Close wrote what was held, but before the stream ended, was held: the peer got %q", out.String())
	}
	c.Close()
}
