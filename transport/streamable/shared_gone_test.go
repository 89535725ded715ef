package streamable_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// goneTTL is the InstanceTTL of the writer-gone tests.
const goneTTL = 100 * time.Millisecond

// openShared starts one instance on st with InstanceTTL goneTTL and opens
// a legacy session on it; it returns the endpoint and the session id.
func openShared(t *testing.T, st store.Store) (string, string) {
	srv := server.New(mcp.Implementation{Name: "gone", Version: "1"}, &server.Options{Store: st})
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{InstanceTTL: goneTTL})
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		h.Close()
		ts.CloseClientConnections()
		ts.Close()
	})
	resp := post(t, ts.URL, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("initialize: %d, no session id", resp.StatusCode)
	}
	resp = post(t, ts.URL, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	return ts.URL, id
}

func post(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// resume GETs the stream after last and returns the data of its events,
// until the server ends the response or ctx does.
func resume(t *testing.T, ctx context.Context, url, session, last string) []string {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Last-Event-ID", last)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET with Last-Event-ID: %d %s", resp.StatusCode, b)
	}
	var data []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok && len(bytes.TrimSpace(d)) > 0 {
			data = append(data, string(bytes.TrimSpace(d)))
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("the stream did not end: got %q", data)
	}
	return data
}

// TestSharedWriterGone: a client resuming, on this instance, a call
// whose stream was written by an instance that is gone (it beat no
// more) gets an error answering the call, after the events written
// before, and the end of the stream, within a bounded time, instead of
// waiting with no end; resuming again replays the same, once.
func TestSharedWriterGone(t *testing.T) {
	st := store.NewMemory(nil)
	url, sid := openShared(t, st)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// What an instance that died mid-call left in the store: the priming
	// event of the call's stream (request id 7), one progress event.
	ev := st.Events()
	prime, err := ev.Prime(ctx, sid, "DEADWRITER-1", []byte(`[7]`))
	if err != nil {
		t.Fatal(err)
	}
	progress := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
	if _, err := ev.Append(ctx, sid, "DEADWRITER-1", []byte(progress)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := resume(t, ctx, url, sid, prime)
	took := time.Since(start)
	if len(got) != 2 || got[0] != progress || !strings.Contains(got[1], `"id":7`) || !strings.Contains(got[1], `"code":-32603`) || !strings.Contains(got[1], "stopped before answering") {
		t.Fatalf("resumed %q, want the progress then an error answering id 7", got)
	}
	if took > 20*goneTTL {
		t.Errorf("the error came %v after the resumption, InstanceTTL %v", took, goneTTL)
	}
	if again := resume(t, ctx, url, sid, prime); len(again) != 2 || again[1] != got[1] {
		t.Errorf("resumed again %q, want %q", again, got)
	}
}

// TestSharedWriterAlive: the stream of a writer that beats is not ended
// for it, however long its call takes: the follow delivers the answer it
// writes.
func TestSharedWriterAlive(t *testing.T) {
	st := store.NewMemory(nil)
	url, sid := openShared(t, st)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ev := st.Events()
	const writer = "LIVEWRITER-"
	prime, err := ev.Prime(ctx, sid, writer+"1", []byte(`[8]`))
	if err != nil {
		t.Fatal(err)
	}
	answer := `{"jsonrpc":"2.0","id":8,"result":{"content":[]}}`
	go func() { // the writer beats for 10 TTLs, then answers
		// Each beat holds for 10 TTLs, so that a test goroutine the
		// scheduler leaves waiting a while is not taken for dead.
		for range 50 {
			st.Instances().Beat(ctx, writer, 10*goneTTL)
			time.Sleep(goneTTL / 5)
		}
		ev.AppendEnd(ctx, sid, writer+"1", []byte(answer))
	}()
	if got := resume(t, ctx, url, sid, prime); len(got) != 1 || got[0] != answer {
		t.Fatalf("resumed %q, want the writer's answer only", got)
	}
}
