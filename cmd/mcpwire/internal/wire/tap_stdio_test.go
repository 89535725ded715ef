package wire

import (
	"context"
	"io"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
)

// TestStdioTapRecordsNothingAfterRun: when the server exits first, Run
// returns, and the caller closes the recording; a line the client writes
// afterwards is not recorded. The goroutine that copied the client's
// lines outlived Run and recorded them, into a closed file.
func TestStdioTapRecordsNothingAfterRun(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	before := goleak.IgnoreCurrent()
	stdin, client := io.Pipe()
	defer client.Close()
	var ran atomic.Bool
	var late atomic.Int32
	tap := &StdioTap{
		Cmd:    exec.Command(sh, "-c", `read line; echo "$line"`), // answers one line, and exits
		Stdin:  stdin,
		Stdout: io.Discard,
		Stderr: io.Discard,
		Record: func(r *frames.Record) {
			if ran.Load() {
				late.Add(1)
				t.Errorf("recorded after Run returned: %s %s", r.From, r.Body())
			}
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- tap.Run(ctx) }()
	io.WriteString(client, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ran.Store(true)
	// The server is gone; the client writes on. Once the tap has read
	// the line (Write returns then) and its goroutines have ended, every
	// record it was to make is made.
	io.WriteString(client, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	client.Close()
	if err := goleak.Find(before); err != nil {
		t.Fatal(err)
	}
	if late.Load() > 0 {
		t.Errorf("%d records after Run returned", late.Load())
	}
}
