package main

import (
	"context"
	"io"
	"net"
	"strings"
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
	go func() { exit <- run(ctx, []string{"-http", addr}, strings.NewReader(""), io.Discard, io.Discard) }()
	url := "http://" + addr + "/mcp"
	for _, v := range []mcp.Version{mcp.Latest, mcp.LatestLegacy} {
		var sess *client.Session
		deadline := time.Now().Add(10 * time.Second)
		for {
			c := client.New(mcp.Implementation{Name: "t", Version: "1"}, &client.Options{Version: v})
			sess, err = c.Connect(t.Context(), streamable.NewTransport(url, nil))
			if err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
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
