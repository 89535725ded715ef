// The tests of package cluster run three everything-server processes sharing one
// real redis-server behind a round-robin proxy on loopback, and checks
// that they behave as one server in both protocol eras: a 2025-era
// session served by all three (its calls, a question of one answered
// through another, its log level and GET stream following it), a stream
// resumed on another instance after the one serving it was killed, a
// 2026-era listen and multi round-trip request across instances, and
// Redis restarting under them. raw_test.go and cross_test.go check the
// wire with raw HTTP: unknown Last-Event-IDs, and clients using the same
// request ids at once never getting each other's answers.
package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store/redis/redistest"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

func TestMain(m *testing.M) {
	code := redistest.Main(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

// binary builds the everything-server once for the package.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the everything-server")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "cluster-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "everything-server")
		out, err := exec.Command("go", "build", "-o", binPath, "../everything-server").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// An instance is one everything-server process.
type instance struct {
	url    string // its endpoint
	cmd    *exec.Cmd
	exited chan struct{}
	log    *bytes.Buffer
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startInstance starts an everything-server on redisURL (none: "", an
// instance on its own) and waits until it accepts connections.
func startInstance(t *testing.T, redisURL string) *instance {
	t.Helper()
	bin := binary(t)
	for attempt := 0; ; attempt++ {
		addr := freeAddr(t)
		in := &instance{url: "http://" + addr + "/mcp", exited: make(chan struct{}), log: new(bytes.Buffer)}
		args := []string{"-http", addr}
		if redisURL != "" {
			args = append(args, "-redis", redisURL)
		}
		in.cmd = exec.Command(bin, args...)
		in.cmd.Stdout, in.cmd.Stderr = in.log, in.log
		if err := in.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { in.cmd.Wait(); close(in.exited) }()
		deadline := time.Now().Add(20 * time.Second)
		for {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
				t.Cleanup(func() { in.stop(t) })
				return in
			}
			select {
			case <-in.exited:
			default:
				if time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				in.cmd.Process.Kill()
				<-in.exited
			}
			break
		}
		if attempt == 3 {
			t.Fatalf("the everything-server did not start:\n%s", in.log)
		}
	}
}

// stop ends the instance with SIGTERM, or finds it dead; an instance
// that died by itself fails the test.
func (in *instance) stop(t *testing.T) {
	select {
	case <-in.exited:
		if st := in.cmd.ProcessState; st != nil && !st.Success() && !killed(st) {
			t.Errorf("an instance exited with %v:\n%s", st, in.log)
		}
		return
	default:
	}
	in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.exited:
	case <-time.After(10 * time.Second):
		in.cmd.Process.Kill()
		<-in.exited
	}
}

func killed(st *os.ProcessState) bool {
	ws, ok := st.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func (in *instance) alive() bool {
	select {
	case <-in.exited:
		return false
	default:
		return true
	}
}

// kill kills the instance at once, as a crash would.
func (in *instance) kill() {
	in.cmd.Process.Signal(syscall.SIGKILL)
	<-in.exited
}

// A front is the load balancer: it sends each request to an instance,
// round robin unless route says otherwise, and records what went where.
type front struct {
	url   string
	insts []*instance
	route func(r *http.Request, rpc string) int // -1: round robin

	mu   sync.Mutex
	next int
	log  []hit
}

// hit is one request the front forwarded.
type hit struct {
	inst   int
	method string
	rpc    string // a POST's JSON-RPC method, or "response"
	last   string // Last-Event-ID
}

func newFront(t *testing.T, insts []*instance) *front {
	f := &front{insts: insts}
	proxies := make([]*httputil.ReverseProxy, len(insts))
	for i, in := range insts {
		u, _ := url.Parse(in.url)
		proxies[i] = &httputil.ReverseProxy{
			Rewrite: func(r *httputil.ProxyRequest) {
				r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
				r.Out.Host = r.In.Host
			},
			FlushInterval: -1,
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				w.WriteHeader(http.StatusBadGateway)
			},
		}
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := hit{method: r.Method, last: r.Header.Get("Last-Event-ID")}
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			var m struct {
				Method string `json:"method"`
			}
			json.Unmarshal(b, &m)
			if h.rpc = m.Method; h.rpc == "" {
				h.rpc = "response"
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		f.mu.Lock()
		h.inst = -1
		if f.route != nil {
			h.inst = f.route(r, h.rpc)
		}
		if h.inst < 0 {
			h.inst = f.next % len(f.insts)
			f.next++
		}
		f.log = append(f.log, h)
		f.mu.Unlock()
		proxies[h.inst].ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	f.url = ts.URL + "/mcp"
	return f
}

// hits returns the requests that match.
func (f *front) hits(match func(hit) bool) []hit {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []hit
	for _, h := range f.log {
		if match(h) {
			out = append(out, h)
		}
	}
	return out
}

// startCluster starts n instances on one database of the shared Redis
// and a front.
func startCluster(t *testing.T, n int) *front {
	db := redistest.Shared(t).NewDB()
	var insts []*instance
	for range n {
		insts = append(insts, startInstance(t, db))
	}
	return newFront(t, insts)
}

func connect(t *testing.T, ctx context.Context, url string, opts *client.Options) *client.Session {
	t.Helper()
	c := client.New(mcp.Implementation{Name: "cluster-test", Version: "1"}, opts)
	sess, err := c.Connect(ctx, streamable.NewTransport(url, &streamable.ClientOptions{ReconnectDelay: 20 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
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
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil {
		t.Fatalf("%s: no text", name)
	}
	return text.Text
}

func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestLegacySession: a 2025-era client initializes on A, calls on B, is
// asked for elicitation from C and answers through A; its log level and
// its GET stream follow it.
func TestLegacySession(t *testing.T) {
	f := startCluster(t, 3)
	ctx := within(t, 60*time.Second)
	logs := make(chan string, 100)
	changed := make(chan string, 100)
	// POSTs go round robin; GETs to the instance after the initialize's.
	f.route = func(r *http.Request, rpc string) int {
		if r.Method == http.MethodGet {
			return 2
		}
		return -1
	}
	sess := connect(t, ctx, f.url, &client.Options{
		Version: mcp.Version20251125,
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
		},
		OnLog:         func(ctx context.Context, p *mcp.LoggingMessageParams) { logs <- string(p.Level) },
		OnListChanged: func(ctx context.Context, method string) { changed <- method },
	})
	init := f.hits(func(h hit) bool { return h.rpc == "initialize" })
	if len(init) != 1 {
		t.Fatalf("initialize hits %v", init)
	}
	for range 3 {
		callText(t, ctx, sess, "test_simple_text", `{}`)
	}
	calls := f.hits(func(h hit) bool { return h.rpc == "tools/call" })
	seen := map[int]bool{}
	for _, h := range calls {
		seen[h.inst] = true
	}
	if len(seen) != 3 {
		t.Errorf("the calls went to %v, not to three instances", calls)
	}

	// Elicitation from one instance, answered through another.
	got := callText(t, ctx, sess, "test_elicitation", `{"message":"Who are you?"}`)
	if got != `User response: action=accept, content={"email":"ada@example.com","username":"ada"}` {
		t.Errorf("test_elicitation: %q", got)
	}
	asked := f.hits(func(h hit) bool { return h.rpc == "tools/call" })
	answered := f.hits(func(h hit) bool { return h.rpc == "response" })
	if len(answered) != 1 || answered[0].inst == asked[len(asked)-1].inst {
		t.Errorf("asked on %d, answered through %v: not across instances", asked[len(asked)-1].inst, answered)
	}

	// The log level set through one instance holds on the others: the
	// logging tool logs at info, which emergency filters out and debug
	// lets through. Its messages precede its answer on its stream.
	if err := sess.SetLogLevel(ctx, mcp.LevelEmergency); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		callText(t, ctx, sess, "test_tool_with_logging", `{}`)
	}
	select {
	case l := <-logs:
		t.Fatalf("a %s message with the level at emergency", l)
	default:
	}
	if err := sess.SetLogLevel(ctx, mcp.LevelDebug); err != nil {
		t.Fatal(err)
	}
	callText(t, ctx, sess, "test_tool_with_logging", `{}`)
	select {
	case <-logs:
	default:
		t.Error("no log message with the level at debug")
	}

	// The GET stream, on instance 2, gets the list change raised on
	// another instance.
	if gets := f.hits(func(h hit) bool { return h.method == http.MethodGet }); len(gets) == 0 {
		t.Fatal("the client opened no GET stream")
	}
	for {
		f.mu.Lock()
		onGET := f.next%3 == 2
		f.mu.Unlock()
		if !onGET {
			break
		}
		callText(t, ctx, sess, "test_simple_text", `{}`) // the trigger runs elsewhere
	}
	callText(t, ctx, sess, "test_trigger_tool_change", `{}`)
	select {
	case m := <-changed:
		if m != mcp.NotificationToolListChanged {
			t.Errorf("list change %q", m)
		}
	case <-ctx.Done():
		t.Fatal("the list change did not reach the GET stream on another instance")
	}
	for i, in := range f.insts {
		if !in.alive() {
			t.Errorf("instance %d died:\n%s", i, in.log)
		}
	}
}

// TestKillMidStream: a client follows a long call with progress on an
// instance that is killed (kill -9) mid-stream; it resumes on another
// with Last-Event-ID and gets every event exactly once, in order, and
// the result.
func TestKillMidStream(t *testing.T) {
	f := startCluster(t, 3)
	ctx := within(t, 60*time.Second)
	var mu sync.Mutex
	resumes := 0
	// The call runs on instance 0, which closes its POST stream at once;
	// the first resumption goes to 1, which is killed, the next to 2.
	f.route = func(r *http.Request, rpc string) int {
		switch {
		case r.Method == http.MethodPost || r.Method == http.MethodDelete:
			return 0
		case r.Header.Get("Last-Event-ID") == "":
			return 0 // the standalone GET
		}
		mu.Lock()
		defer mu.Unlock()
		resumes++
		if resumes == 1 {
			return 1
		}
		return 2
	}
	sess := connect(t, ctx, f.url, &client.Options{Version: mcp.Version20251125})
	const steps = 60
	var got []float64
	progressed := make(chan struct{}, steps)
	done := make(chan error, 1)
	var res *mcp.CallToolResult
	go func() {
		var err error
		res, err = sess.CallTool(client.WithProgress(ctx, func(p mcp.ProgressParams) {
			mu.Lock()
			got = append(got, p.Progress)
			mu.Unlock()
			progressed <- struct{}{}
		}), &mcp.CallToolParams{Name: "test_streamed_progress", Arguments: json.RawMessage(fmt.Sprintf(`{"steps":%d,"delayMs":20,"poll":true}`, steps))})
		done <- err
	}()
	for range 10 { // the client follows the call on instance 1 now
		select {
		case <-progressed:
		case err := <-done:
			t.Fatalf("the call ended early: %v", err)
		case <-ctx.Done():
			t.Fatal("no progress")
		}
	}
	if on1 := f.hits(func(h hit) bool { return h.last != "" && h.inst == 1 }); len(on1) == 0 {
		t.Fatal("the client did not resume on instance 1")
	}
	f.insts[1].kill()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the call did not complete after instance 1 was killed")
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != strconv.Itoa(steps)+" steps done" {
		t.Errorf("result %q", text)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, p := range got {
		if p != float64(i+1) {
			t.Fatalf("progress %v: not 1..%d exactly once, in order", got, steps)
		}
	}
	if len(got) != steps {
		t.Fatalf("%d progress notifications, want %d", len(got), steps)
	}
	if on2 := f.hits(func(h hit) bool { return h.last != "" && h.inst == 2 }); len(on2) == 0 {
		t.Error("the client did not resume on instance 2")
	}
}

// TestOwnerKilled: a client follows on instance 1 a long call running
// on instance 0, which is killed (-9) mid-call: instance 1, seeing that
// instance 0 beats no more, ends the call's stream with an error
// answering the call, and the client's call fails with it within a
// bounded time (twice streamable.DefaultInstanceTTL, and slack for a
// loaded machine) rather than waiting with no end; the progress it got
// before came once each, in order.
func TestOwnerKilled(t *testing.T) {
	f := startCluster(t, 3)
	ctx := within(t, 90*time.Second)
	f.route = func(r *http.Request, rpc string) int {
		switch {
		case r.Method == http.MethodPost || r.Method == http.MethodDelete:
			return 0
		case r.Header.Get("Last-Event-ID") == "":
			return 2 // the standalone GET
		}
		return 1
	}
	sess := connect(t, ctx, f.url, &client.Options{Version: mcp.Version20251125})
	var mu sync.Mutex
	var got []float64
	progressed := make(chan struct{}, 1000)
	done := make(chan error, 1)
	go func() {
		_, err := sess.CallTool(client.WithProgress(ctx, func(p mcp.ProgressParams) {
			mu.Lock()
			got = append(got, p.Progress)
			mu.Unlock()
			progressed <- struct{}{}
		}), &mcp.CallToolParams{Name: "test_streamed_progress", Arguments: json.RawMessage(`{"steps":1000,"delayMs":50,"poll":true}`)})
		done <- err
	}()
	for range 5 { // the client follows the call on instance 1 now
		select {
		case <-progressed:
		case err := <-done:
			t.Fatalf("the call ended early: %v", err)
		case <-ctx.Done():
			t.Fatal("no progress")
		}
	}
	if on1 := f.hits(func(h hit) bool { return h.last != "" && h.inst == 1 }); len(on1) == 0 {
		t.Fatal("the client does not follow the call on instance 1")
	}
	f.insts[0].kill()
	killed := time.Now()
	const bound = 2*streamable.DefaultInstanceTTL + 10*time.Second
	select {
	case err := <-done:
		took := time.Since(killed)
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError || !strings.Contains(rpcErr.Message, "stopped before answering") {
			t.Fatalf("the call ended with %v, want the error of a lost call", err)
		}
		t.Logf("the call failed %v after its instance was killed: %v", took.Round(time.Millisecond), err)
		if took > bound {
			t.Errorf("the error came %v after the kill, want within %v", took, bound)
		}
	case <-time.After(bound):
		t.Fatalf("no answer %v after the call's instance was killed", bound)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, p := range got {
		if p != float64(i+1) {
			t.Fatalf("progress %v: not 1..%d exactly once, in order", got, len(got))
		}
	}
	for i, in := range f.insts[1:] {
		if !in.alive() {
			t.Errorf("instance %d died:\n%s", i+1, in.log)
		}
	}
}

// TestModern: a 2026-era subscriptions/listen on A receives a list
// change raised on C, and a multi round-trip request begun on A
// completes on B.
func TestModern(t *testing.T) {
	f := startCluster(t, 3)
	ctx := within(t, 60*time.Second)
	changed := make(chan string, 100)
	f.route = func(r *http.Request, rpc string) int {
		switch rpc {
		case "subscriptions/listen":
			return 0
		case "tools/call":
			return -1
		}
		return 1
	}
	sess := connect(t, ctx, f.url, &client.Options{
		Elicit: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"username": "ada", "email": "ada@example.com"}}, nil
		},
		OnListChanged: func(ctx context.Context, method string) { changed <- method },
	})
	if !sess.IsModern() {
		t.Fatal("not a 2026-era session")
	}
	sub, err := sess.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	f.mu.Lock()
	f.next = 2 // the trigger runs on instance 2
	f.mu.Unlock()
	callText(t, ctx, sess, "test_trigger_tool_change", `{}`)
	select {
	case m := <-changed:
		if m != mcp.NotificationToolListChanged {
			t.Errorf("list change %q", m)
		}
	case <-ctx.Done():
		t.Fatal("the list change raised on instance 2 did not reach the listen on instance 0")
	}
	f.mu.Lock()
	f.next = 0 // the first round on 0, the second on 1
	f.mu.Unlock()
	got := callText(t, ctx, sess, "test_input_required_result_elicitation", `{}`)
	rounds := f.hits(func(h hit) bool { return h.rpc == "tools/call" })
	n := len(rounds)
	if n < 3 || rounds[n-2].inst != 0 || rounds[n-1].inst != 1 {
		t.Errorf("the rounds ran on %v", rounds)
	}
	if got == "" {
		t.Error("no result")
	}
}

// TestRedisRestart: Redis goes away under three instances and comes
// back empty: legacy requests fail with a clear error meanwhile (HTTP
// 503), no instance crashes, and a new session works after.
func TestRedisRestart(t *testing.T) {
	rs, err := redistest.Start(t.TempDir())
	if err != nil {
		redistest.Shared(t) // skips, or fails in CI, as for the shared server
		t.Fatal(err)
	}
	defer rs.Stop()
	var insts []*instance
	for range 3 {
		insts = append(insts, startInstance(t, rs.URL(0)))
	}
	f := newFront(t, insts)
	ctx := within(t, 90*time.Second)
	sess := connect(t, ctx, f.url, &client.Options{Version: mcp.Version20251125})
	callText(t, ctx, sess, "test_simple_text", `{}`)

	rs.Kill()
	for range 3 {
		_, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
		if err == nil {
			t.Fatal("a call succeeded with Redis away")
		}
		var hs *streamable.HTTPStatusError
		if !errors.As(err, &hs) || hs.StatusCode != http.StatusServiceUnavailable || !bytes.Contains([]byte(err.Error()+string(hs.Body)), []byte("session store cannot be reached")) {
			t.Errorf("with Redis away: %v, want 503 saying the session store cannot be reached", err)
		}
	}
	// A new session cannot be opened either, and says why.
	resp, err := http.Post(f.url, "application/json", bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("initialize with Redis away: %d %s", resp.StatusCode, body)
	}

	if err := rs.Restart(); err != nil {
		t.Fatal(err)
	}
	// Redis came back empty: the old session is gone (404 tells the
	// client to initialize again); a new one works on every instance.
	var fresh *client.Session
	for fresh == nil {
		c := client.New(mcp.Implementation{Name: "cluster-test", Version: "1"}, &client.Options{Version: mcp.Version20251125})
		s, err := c.Connect(ctx, streamable.NewTransport(f.url, nil))
		if err == nil {
			fresh = s
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no new session after Redis came back: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	defer fresh.Close()
	// An instance whose dials failed while Redis was away answers 503 a
	// little longer: go-redis, after a pool's worth of failed dials,
	// returns the last dial error and probes the server once a second.
	// Within a few seconds every instance serves again.
	recovered := time.Now().Add(10 * time.Second)
	for ok := 0; ok < 3; {
		_, err := fresh.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text"})
		if err == nil {
			ok++
			continue
		}
		if time.Now().After(recovered) {
			t.Fatalf("calls still fail 10s after Redis came back: %v", err)
		}
		ok = 0
		time.Sleep(100 * time.Millisecond)
	}
	for i, in := range insts {
		if !in.alive() {
			t.Errorf("instance %d died:\n%s", i, in.log)
		}
	}
}
