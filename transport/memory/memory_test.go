package memory

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func connect(t testing.TB, opts *Options) (client, server transport.Conn) {
	t.Helper()
	ct, st := NewPair(opts)
	ctx := context.Background()
	c, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func TestRoundTripThroughJSONRPCConn(t *testing.T) {
	c, s := connect(t, nil)
	echo := jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method != "echo" {
			return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "")
		}
		return req.Params, nil
	})
	client := jsonrpc.NewConn(c, &jsonrpc.Options{Handler: echo})
	server := jsonrpc.NewConn(s, &jsonrpc.Options{Handler: echo})
	defer server.Close()
	ctx := context.Background()

	var got map[string]string
	if err := client.Call(ctx, "echo", map[string]string{"from": "client"}, &got); err != nil || got["from"] != "client" {
		t.Fatalf("client→server: %v, %v", got, err)
	}
	if err := server.Call(ctx, "echo", map[string]string{"from": "server"}, &got); err != nil || got["from"] != "server" {
		t.Fatalf("server→client: %v, %v", got, err)
	}
	if err := client.Call(ctx, "nope", nil, nil); jsonrpc.ErrorCode(err) != jsonrpc.CodeMethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}

	client.Close()
	select {
	case <-server.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("closing the client did not end the server")
	}
	if err := server.Wait(); err != nil {
		t.Errorf("server.Wait() = %v, want nil (the peer closed)", err)
	}
}

func TestMessagesAreDecodedStrictly(t *testing.T) {
	c, s := connect(t, &Options{Limits: jsonrpc.Limits{MaxMessageSize: 200}})
	defer c.Close()
	ctx := context.Background()
	// Raw params go out as they are; the receiving decoder rejects the
	// duplicate key, as a stdio peer would.
	dup := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "m", Params: json.RawMessage(`{"a":1,"a":2}`)}
	big := &jsonrpc.Request{Method: "m", Params: json.RawMessage(`{"a":"` + string(make([]byte, 300)) + `"}`)}
	for _, m := range []jsonrpc.Message{dup, big} {
		if err := c.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Read(ctx)
	var de *jsonrpc.DecodeError
	if !errors.As(err, &de) || de.Err.Code != jsonrpc.CodeInvalidRequest || de.ID != jsonrpc.Int64ID(1) {
		t.Errorf("duplicate key: Read = %v, want an Invalid Request for id 1", err)
	}
	if _, err := s.Read(ctx); !errors.As(err, &de) {
		t.Errorf("oversized message: Read = %v, want a DecodeError", err)
	}
}

func TestErrorResponseOmitsNullID(t *testing.T) {
	c, s := connect(t, nil)
	defer c.Close()
	ctx := context.Background()
	if err := c.Write(ctx, &jsonrpc.Response{Error: jsonrpc.NewError(jsonrpc.CodeParseError, "")}); err != nil {
		t.Fatal(err)
	}
	frame := <-s.(*end).in
	if want := `{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`; string(frame) != want {
		t.Errorf("frame = %s, want %s", frame, want)
	}
}

func TestCloseEndsBothSides(t *testing.T) {
	c, s := connect(t, nil)
	ctx := context.Background()
	for i := range 3 {
		if err := s.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(int64(i + 1)), Method: "ping"}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	// Messages sent before the close still arrive, then io.EOF.
	for i := range 3 {
		if _, err := c.Read(ctx); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Errorf("Read after the peer closed = %v, want io.EOF", err)
	}
	if err := c.Write(ctx, &jsonrpc.Request{Method: "x"}); err != jsonrpc.ErrClosed {
		t.Errorf("Write after the peer closed = %v", err)
	}
	if _, err := s.Read(ctx); err != jsonrpc.ErrClosed {
		t.Errorf("Read on the closed end = %v, want jsonrpc.ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestReadUnblocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, s := connect(t, nil)
		defer s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		if _, err := c.Read(ctx); err != context.DeadlineExceeded {
			t.Errorf("Read = %v, want context.DeadlineExceeded", err)
		}

		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, conn := range []transport.Conn{c, s} {
			wg.Go(func() {
				_, errs[i] = conn.Read(context.Background())
			})
		}
		synctest.Wait() // both Reads are blocked
		c.Close()
		wg.Wait()
		if errs[0] != jsonrpc.ErrClosed || errs[1] != io.EOF {
			t.Errorf("pending Reads returned %v (closed end) and %v (peer), want jsonrpc.ErrClosed and io.EOF", errs[0], errs[1])
		}
	})
}

func TestWriteBlocksWhenTheQueueIsFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, s := connect(t, nil)
		defer s.Close()
		ctx := context.Background()
		m := &jsonrpc.Request{Method: "x"}
		for range queueLen {
			if err := c.Write(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		tctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		defer cancel()
		if err := c.Write(tctx, m); err != context.DeadlineExceeded {
			t.Errorf("Write to a full queue = %v, want context.DeadlineExceeded", err)
		}
		done := make(chan error)
		go func() { done <- c.Write(ctx, m) }()
		synctest.Wait() // the Write is blocked
		s.Close()
		if err := <-done; err != jsonrpc.ErrClosed {
			t.Errorf("blocked Write after Close = %v", err)
		}
	})
}

func TestConnectOnce(t *testing.T) {
	ct, st := NewPair(nil)
	ctx := context.Background()
	c, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := ct.Connect(ctx); err == nil {
		t.Error("second Connect succeeded")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.Connect(cctx); err != context.Canceled {
		t.Errorf("Connect with a cancelled context = %v", err)
	}
}

// knownMethods stands for mcp.KnownMethods(), which this package may not
// import.
var knownMethods = []string{"tools/call", "ping"}

func TestAllocationsPerMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count")
	}
	c, s := connect(t, &Options{Methods: knownMethods})
	defer c.Close()
	ctx := context.Background()
	m := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: json.RawMessage(`{"name":"t"}`)}
	n := testing.AllocsPerRun(1000, func() {
		c.Write(ctx, m)
		s.Read(ctx)
	})
	// The frame and the decoded *jsonrpc.Request.
	if n > 2 {
		t.Errorf("a message costs %v allocations, want 2", n)
	}
}
