package bridge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
)

// TestSlowReaderStallsOnlyItself: a modern client that stops reading its
// stream while its request floods it with progress affects that request
// only: the other clients of the same pooled process keep getting their
// answers at once, not after the write timeout; the slow client's
// request is ended, with a log line that says why.
func TestSlowReaderStallsOnlyItself(t *testing.T) {
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	tb := startBridge(t, Options{PoolSize: 1, PoolConcurrency: 8, Logger: log}, httpLimits{writeTimeout: time.Minute}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	fast := connect(t, tb.base, mcp.Version20260728, nil)
	call(t, ctx, fast, "echo", textArgs{Text: "warm"})

	// 4000 progress notifications of 32 KiB: far more than the sockets
	// and pipes between the process and a client that does not read.
	tag := strings.Repeat("x", 32<<10)
	slow := modernPost(t, ctx, tb.base, 1, "tagged", fmt.Sprintf(`"arguments":{"tag":%q,"n":4000}`, tag), `"progressToken":"flood"`)
	defer slow.Body.Close()
	if ct := slow.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("the flooding call answered %s, want an event stream", ct)
	}
	// The fast client calls on until the bridge has given up the slow
	// one; meanwhile every call must be answered at once, not after the
	// write timeout (a minute).
	const prompt = 20 * time.Second
	for i := 0; !strings.Contains(logs.String(), "does not read its stream"); i++ {
		if ctx.Err() != nil {
			t.Fatalf("the slow client was never given up; log: %s", logs.String())
		}
		cctx, ccancel := context.WithTimeout(ctx, prompt)
		start := time.Now()
		got, err := callErr(cctx, fast, "echo", textArgs{Text: fmt.Sprint(i)})
		ccancel()
		if err != nil || got != fmt.Sprint(i) {
			t.Fatalf("echo %d, while another client does not read its stream: %q, %v after %s", i, got, err, time.Since(start).Round(time.Millisecond))
		}
	}
	for i := range 10 {
		cctx, ccancel := context.WithTimeout(ctx, prompt)
		got, err := callErr(cctx, fast, "echo", textArgs{Text: fmt.Sprint(i)})
		ccancel()
		if err != nil || got != fmt.Sprint(i) {
			t.Fatalf("echo %d, after the slow client was given up: %q, %v", i, got, err)
		}
	}
	// What the slow client gets, if it reads at last: its progress, then
	// an error that says why its request ended.
	b, _ := io.ReadAll(slow.Body)
	if i := bytes.LastIndex(b, []byte("data: ")); i < 0 || !bytes.Contains(b[i:], []byte("does not read its stream")) {
		t.Errorf("the slow client's stream ends with %.300q", b[max(0, len(b)-300):])
	}
}
