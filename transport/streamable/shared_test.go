package streamable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// The tests of this file run three instances of one server, sharing a
// store.Memory, behind a front that sends each HTTP request to one of
// them: what package store/redis does across processes, here in one
// process (store/redis's tests run the same scenarios on real Redis,
// with real processes).

// A cluster is the instances and their front.
type cluster struct {
	t     *testing.T
	st    *store.Memory
	srvs  []*server.Server
	hs    []*streamable.Handler
	url   string
	route func(r *http.Request) int // which instance serves r; default round robin

	mu   sync.Mutex
	next int
	log  []served
}

// served records which instance served a request.
type served struct {
	inst   int
	method string // HTTP method
	rpc    string // the JSON-RPC method of a POST, or "response"
	last   string // Last-Event-ID
}

// clusterTools registers the tools of the scenarios on srv; mark names
// the instance in results.
func clusterTools(t *testing.T, srv *server.Server, mark string) {
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(server.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		return mark, nil
	}))
	must(server.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		res, err := r.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("hello %v from %s", res.Content["name"], mark), nil
	}))
	must(server.AddTool(srv, &mcp.Tool{Name: "log"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		r.Log(ctx, mcp.LevelInfo, mark, "info")
		r.Log(ctx, mcp.LevelWarning, mark, "warning")
		return mark, nil
	}))
	must(server.AddTool(srv, &mcp.Tool{Name: "change"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		srv.RemoveTools("nothing") // no change: nothing is announced
		must(server.AddTool(srv, &mcp.Tool{Name: "added-on-" + mark}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) { return "", nil }))
		return mark, nil
	}))
	must(server.AddTool(srv, &mcp.Tool{Name: "touch"}, func(ctx context.Context, r *server.Request, _ struct{}) (string, error) {
		srv.ResourceUpdated("test://watched")
		return mark, nil
	}))
	must(server.AddTool(srv, &mcp.Tool{Name: "progress"}, func(ctx context.Context, r *server.Request, in struct {
		Steps int `json:"steps"`
	}) (string, error) {
		streamable.CloseStream(ctx) // the client comes back with GET and Last-Event-ID
		for i := 1; i <= in.Steps; i++ {
			r.Progress(ctx, float64(i), float64(in.Steps), "step")
			time.Sleep(2 * time.Millisecond)
		}
		return "done on " + mark, nil
	}))
	must(srv.AddResource(&mcp.Resource{URI: "test://watched", Name: "watched"}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{URI: p.URI, Text: "x"}}}, nil
	}))
}

// newCluster starts n instances sharing a store.Memory.
func newCluster(t *testing.T, n int) *cluster {
	c := &cluster{t: t, st: store.NewMemory(nil)}
	for i := range n {
		mark := string(rune('A' + i))
		srv := server.New(mcp.Implementation{Name: "cluster", Version: "1"}, &server.Options{Store: c.st})
		clusterTools(t, srv, mark)
		h := streamable.NewHandler(srv, &streamable.HandlerOptions{Retry: 10 * time.Millisecond})
		c.srvs = append(c.srvs, srv)
		c.hs = append(c.hs, h)
	}
	ts := httptest.NewServer(http.HandlerFunc(c.serve))
	c.url = ts.URL
	t.Cleanup(func() {
		for i := range c.hs {
			c.srvs[i].Close()
			c.hs[i].Close()
		}
		ts.CloseClientConnections()
		ts.Close()
	})
	return c
}

func (c *cluster) serve(w http.ResponseWriter, r *http.Request) {
	rec := served{method: r.Method, last: r.Header.Get("Last-Event-ID")}
	if r.Method == http.MethodPost {
		var body struct {
			Method string `json:"method"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		if rec.rpc = body.Method; rec.rpc == "" {
			rec.rpc = "response"
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	c.mu.Lock()
	if c.route != nil {
		rec.inst = c.route(r)
	} else {
		rec.inst = c.next % len(c.hs)
		c.next++
	}
	c.log = append(c.log, rec)
	c.mu.Unlock()
	c.hs[rec.inst].ServeHTTP(w, r)
}

// servedBy returns the instances that served the requests matching.
func (c *cluster) servedBy(match func(served) bool) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []int
	for _, s := range c.log {
		if match(s) {
			out = append(out, s.inst)
		}
	}
	return out
}

func (c *cluster) connect(ctx context.Context, opts *client.Options) *client.Session {
	c.t.Helper()
	cl := client.New(mcp.Implementation{Name: "cluster-test", Version: "1"}, opts)
	sess, err := cl.Connect(ctx, streamable.NewTransport(c.url, &streamable.ClientOptions{ReconnectDelay: 10 * time.Millisecond}))
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { sess.Close() })
	return sess
}

func callText(t *testing.T, ctx context.Context, sess *client.Session, name, args string) string {
	t.Helper()
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %v", name, res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestSharedLegacySession: a 2025-era session opened on one instance is
// served by all: its calls, the client's answer to a question of another
// instance, its log level, and its GET stream, which gets the list
// changes and resource updates raised on every instance.
func TestSharedLegacySession(t *testing.T) {
	c := newCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	logs := make(chan string, 10)
	changed := make(chan string, 10)
	updated := make(chan string, 10)
	sess := c.connect(ctx, &client.Options{
		Version: mcp.Version20251125,
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		OnLog:             func(ctx context.Context, p *mcp.LoggingMessageParams) { logs <- p.Logger + ":" + string(p.Data) },
		OnListChanged:     func(ctx context.Context, method string) { changed <- method },
		OnResourceUpdated: func(ctx context.Context, uri string) { updated <- uri },
	})
	marks := map[string]bool{}
	for range 3 {
		marks[callText(t, ctx, sess, "whoami", `{}`)] = true
	}
	if len(marks) != 3 {
		t.Errorf("the session's calls were served by %v, not by all three instances", marks)
	}
	// A question of one instance, answered through another.
	if got := callText(t, ctx, sess, "ask", `{}`); !strings.HasPrefix(got, "hello Ada from ") {
		t.Errorf("ask: %q", got)
	}
	calls := c.servedBy(func(s served) bool { return s.rpc == "tools/call" })
	answers := c.servedBy(func(s served) bool { return s.rpc == "response" })
	if len(answers) != 1 || answers[0] == calls[len(calls)-1] {
		t.Errorf("the answer went to %v, the call to %d: not across instances", answers, calls[len(calls)-1])
	}
	// The log level set on one instance holds on the others.
	if err := sess.SetLogLevel(ctx, mcp.LevelWarning); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		mark := callText(t, ctx, sess, "log", `{}`)
		select {
		case l := <-logs:
			if l != mark+`:"warning"` {
				t.Errorf("log from %s: %q", mark, l)
			}
		case <-ctx.Done():
			t.Fatal("no log message")
		}
	}
	select {
	case l := <-logs:
		t.Errorf("a log message below the level: %q", l)
	default:
	}
	// The GET stream, open on one instance, gets what the others raise.
	gets := c.servedBy(func(s served) bool { return s.method == "GET" })
	if len(gets) == 0 {
		t.Fatal("the client opened no GET stream")
	}
	mark := callText(t, ctx, sess, "change", `{}`)
	select {
	case m := <-changed:
		if m != mcp.NotificationToolListChanged {
			t.Errorf("list change %q", m)
		}
	case <-ctx.Done():
		t.Fatalf("the list change raised on %s did not reach the GET stream on %v", mark, gets)
	}
	if err := sess.Subscribe(ctx, "test://watched"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		mark = callText(t, ctx, sess, "touch", `{}`)
		select {
		case u := <-updated:
			if u != "test://watched" {
				t.Errorf("update of %q", u)
			}
		case <-ctx.Done():
			t.Fatalf("the update raised on %s did not reach the GET stream", mark)
		}
	}
}

// TestSharedResume: a call's stream is closed by its instance and the
// client resumes it with Last-Event-ID on another, which follows it to
// its end: every event once, in order.
func TestSharedResume(t *testing.T) {
	c := newCluster(t, 3)
	c.route = func(r *http.Request) int {
		switch {
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "":
			return 1
		case r.Method == http.MethodGet:
			return 2
		}
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess := c.connect(ctx, &client.Options{Version: mcp.Version20251125})
	var mu sync.Mutex
	var got []float64
	res, err := sess.CallTool(client.WithProgress(ctx, func(p mcp.ProgressParams) {
		mu.Lock()
		got = append(got, p.Progress)
		mu.Unlock()
	}), &mcp.CallToolParams{Name: "progress", Arguments: json.RawMessage(`{"steps":50}`)})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "done on A" {
		t.Errorf("result %q", text)
	}
	mu.Lock()
	defer mu.Unlock()
	want := make([]float64, 50)
	for i := range want {
		want[i] = float64(i + 1)
	}
	if !slices.Equal(got, want) {
		t.Errorf("progress %v, want 1..50 once each, in order", got)
	}
	if resumed := c.servedBy(func(s served) bool { return s.last != "" }); len(resumed) == 0 {
		t.Error("the stream was not resumed with Last-Event-ID")
	}
}

// TestSharedModern: a 2026-era listen on one instance gets the list
// change raised on another, and a multi round-trip request begun on one
// instance completes on another.
func TestSharedModern(t *testing.T) {
	c := newCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	changed := make(chan string, 10)
	sess := c.connect(ctx, &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		OnListChanged: func(ctx context.Context, method string) { changed <- method },
	})
	if !sess.IsModern() {
		t.Fatal("not a modern session")
	}
	sub, err := sess.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	listens := c.servedBy(func(s served) bool { return s.rpc == "subscriptions/listen" })
	var mark string
	for mark == "" || mark == string(rune('A'+listens[0])) {
		mark = callText(t, ctx, sess, "change", `{}`)
	}
	select {
	case m := <-changed:
		if m != mcp.NotificationToolListChanged {
			t.Errorf("list change %q", m)
		}
	case <-ctx.Done():
		t.Fatalf("the change on %s did not reach the listen on %d", mark, listens[0])
	}
	if got := callText(t, ctx, sess, "ask", `{}`); !strings.HasPrefix(got, "hello Ada from ") {
		t.Errorf("ask: %q", got)
	}
	rounds := c.servedBy(func(s served) bool { return s.rpc == "tools/call" })
	if n := len(rounds); n < 2 || rounds[n-1] == rounds[n-2] {
		t.Errorf("the two rounds ran on %v: not across instances", rounds)
	}
}
