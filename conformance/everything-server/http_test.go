package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// TestRunHTTP runs the program with -http and talks to it over Streamable
// HTTP in both eras; cancelling its context stops it with exit code 0.
func TestRunHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(t.Context())
	exit := make(chan int, 1)
	serving := &lineWatch{prefix: "msg=serving", seen: make(chan struct{})}
	go func() { exit <- run(ctx, []string{"-http", addr, "-v"}, strings.NewReader(""), io.Discard, serving) }()
	select {
	case <-serving.seen: // it listens
	case code := <-exit:
		t.Fatalf("the server exited with code %d", code)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not say it was serving")
	}
	url := "http://" + addr + "/mcp"
	for _, v := range []mcp.Version{mcp.Latest, mcp.LatestLegacy} {
		c := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{Version: v})
		sess, err := c.Connect(t.Context(), streamable.NewTransport(url, nil))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		res, err := sess.CallTool(t.Context(), &mcp.CallToolParams{Name: "test_simple_text"})
		if err != nil || res.IsError || len(res.Content) == 0 {
			t.Errorf("%s: test_simple_text: %+v, %v", v, res, err)
		}
		if sess.ProtocolVersion() != v {
			t.Errorf("negotiated %s, want %s", sess.ProtocolVersion(), v)
		}
		sess.Close()
	}
	cancel()
	select {
	case code := <-exit:
		if code != exitOK {
			t.Errorf("exit code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
}

// lineWatch is a log writer that closes seen at the first line that
// contains prefix.
type lineWatch struct {
	prefix string
	seen   chan struct{}
	mu     sync.Mutex
	buf    []byte
	done   bool
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	for {
		line, rest, ok := bytes.Cut(w.buf, []byte("\n"))
		if !ok {
			break
		}
		w.buf = rest
		if bytes.Contains(line, []byte(w.prefix)) {
			w.done = true
			w.buf = nil
			close(w.seen)
			break
		}
	}
	return len(p), nil
}
