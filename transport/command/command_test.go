package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// logStore records what the stderr logger receives.
type logStore struct {
	mu      sync.Mutex
	recs    []map[string]string
	changed chan struct{} // closed (and replaced) when a record comes
}

type logHandler struct {
	store *logStore
	attrs []slog.Attr
}

func newLogger() (*slog.Logger, *logStore) {
	s := &logStore{changed: make(chan struct{})}
	return slog.New(&logHandler{store: s}), s
}

func (h *logHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *logHandler) Handle(_ context.Context, r slog.Record) error {
	m := map[string]string{"msg": r.Message, "level": r.Level.String()}
	for _, a := range h.attrs {
		m[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	h.store.mu.Lock()
	h.store.recs = append(h.store.recs, m)
	close(h.store.changed)
	h.store.changed = make(chan struct{})
	h.store.mu.Unlock()
	return nil
}

func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &logHandler{store: h.store, attrs: append(slices.Clip(h.attrs), as...)}
}

func (h *logHandler) WithGroup(string) slog.Handler { return h }

// find returns the record of the stderr line that starts with prefix,
// and a channel closed when the next record comes.
func (s *logStore) find(prefix string) (map[string]string, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.recs {
		if strings.HasPrefix(r["line"], prefix) {
			return r, nil
		}
	}
	return nil, s.changed
}

// wait waits for the stderr line that starts with prefix, woken by each
// record, within a generous deadline.
func (s *logStore) wait(t *testing.T, prefix string) map[string]string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r, changed := s.find(prefix)
		if r != nil {
			return r
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no stderr line %q was logged", prefix)
		}
	}
}

func start(t testing.TB, mode string, opts *Options) *Conn {
	t.Helper()
	c, err := New(child(mode), opts).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func readCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestCallAndGracefulShutdown(t *testing.T) {
	log, logs := newLogger()
	c := start(t, "echo", &Options{Logger: log})
	ctx := readCtx(t)
	if err := c.Write(ctx, &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "echo", Params: json.RawMessage(`{"x":1}`)}); err != nil {
		t.Fatal(err)
	}
	m, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.(*jsonrpc.Response); !ok || string(r.Result) != `{"x":1}` {
		t.Fatalf("response = %#v", m)
	}

	rec := logs.wait(t, "echo: ready")
	if rec["msg"] != "stderr" || rec["level"] != "INFO" || rec["pid"] != strconv.Itoa(c.Pid()) || !strings.HasPrefix(rec["command"], "command.test") {
		t.Errorf("stderr record = %v", rec)
	}

	begin := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if d := time.Since(begin); d >= DefaultTerminateTimeout {
		t.Errorf("Close took %v: the server exits when its stdin closes", d)
	}
	select {
	case <-c.Exited():
	default:
		t.Error("Close returned before the process was reaped")
	}
	if r, _ := logs.find("echo: bye"); r == nil {
		t.Error("the server's last stderr line was lost")
	}
	if err := c.ExitError(); err != nil {
		t.Errorf("ExitError = %v", err)
	}
	if _, err := c.Read(ctx); err != jsonrpc.ErrClosed {
		t.Errorf("Read after Close = %v", err)
	}
}

func TestUnderJSONRPCConn(t *testing.T) {
	c := start(t, "echo", nil)
	rc := jsonrpc.NewConn(c, nil)
	var got []string
	if err := rc.Call(readCtx(t), "echo", []string{"hi"}, &got); err != nil || len(got) != 1 || got[0] != "hi" {
		t.Fatalf("Call = %v, %v", got, err)
	}
	rc.Close()
	<-c.Exited()
}

func TestServerFailureIsReported(t *testing.T) {
	c := start(t, "fail", nil)
	if _, err := c.Read(readCtx(t)); err != io.EOF {
		t.Fatalf("Read = %v, want io.EOF", err)
	}
	err := c.ExitError()
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("ExitError = %v, want an *ExitError", err)
	}
	if ee.ExitCode() != 1 || !slices.Equal(ee.Stderr, []string{"starting", "fatal: no configuration"}) {
		t.Errorf("ExitError = %+v", ee)
	}
	want := "exited with status 1; the end of its stderr:\n\tstarting\n\tfatal: no configuration"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("message %q does not contain %q", err, want)
	}
	if err := c.Close(); !errors.As(err, &ee) {
		t.Errorf("Close = %v, want the *ExitError", err)
	}
}

// Regression (issue 18): a write to a server whose stdin was closed
// (it exited, or is exiting) failed with "write |1: broken pipe" before
// the process was reaped, so that nothing could tell how it ended, where
// the end of its output waits for the exit. Write waits the same way,
// and its error holds the *ExitError.
func TestWriteToAServerGoneTellsHowItEnded(t *testing.T) {
	log, logs := newLogger()
	c := start(t, "close-stdin-fail", &Options{Logger: log})
	logs.wait(t, "stdin closed")
	err := c.Write(readCtx(t), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"})
	if err == nil {
		t.Fatal("Write to a closed stdin succeeded")
	}
	select {
	case <-c.Exited():
	default:
		t.Fatalf("Write returned %q before the process was reaped", err)
	}
	var ee *ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(err.Error(), "fatal: gone") {
		t.Errorf("Write = %v, want the write's error with the *ExitError (status 1, its stderr)", err)
	}
}

func TestOutputWrittenBeforeExitIsRead(t *testing.T) {
	c := start(t, "notify-exit", nil)
	<-c.Exited() // read only after the process is gone
	ctx := readCtx(t)
	m, err := c.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); err != nil || !ok || r.Method != "notifications/message" {
		t.Fatalf("Read = %v, %v", m, err)
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Fatalf("Read = %v, want io.EOF", err)
	}
	if err := c.ExitError(); err != nil {
		t.Errorf("ExitError = %v", err)
	}
}

func TestSIGTERMWhenStdinIsIgnored(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	log, logs := newLogger()
	const term = 200 * time.Millisecond
	c := start(t, "ignore-eof", &Options{Logger: log, TerminateTimeout: term, KillTimeout: 10 * time.Second})
	logs.wait(t, "ready")
	begin := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v, want nil: the server exited because we asked", err)
	}
	d := time.Since(begin)
	if d < term || d > 5*time.Second {
		t.Errorf("Close took %v, want a little more than %v", d, term)
	}
	if r, _ := logs.find("got SIGTERM"); r == nil {
		t.Error("the server did not get SIGTERM")
	}
	if code := c.cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("exit code = %d, want 3 (the child's answer to SIGTERM)", code)
	}
	if err := c.ExitError(); err != nil {
		t.Errorf("ExitError = %v", err)
	}
}

func TestSIGKILLWhenSIGTERMIsIgnored(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	log, logs := newLogger()
	c := start(t, "ignore-term", &Options{Logger: log, TerminateTimeout: 100 * time.Millisecond, KillTimeout: 200 * time.Millisecond})
	logs.wait(t, "ready")
	begin := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if d := time.Since(begin); d < 300*time.Millisecond {
		t.Errorf("Close took %v, want the two timeouts at least", d)
	}
	if st := c.cmd.ProcessState.String(); st != "signal: killed" {
		t.Errorf("process state = %s, want killed", st)
	}
}

// Shutdown bounds the shutdown sequence by its context (issue 18: a
// command line's --timeout must bound the server's shutdown too): once
// the context is done, the process is not waited for any longer.
func TestShutdownIsBoundedByItsContext(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	for _, mode := range []string{"ignore-eof", "ignore-term"} {
		log, logs := newLogger()
		c := start(t, mode, &Options{Logger: log, TerminateTimeout: 10 * time.Second, KillTimeout: 10 * time.Second})
		logs.wait(t, "ready")
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		begin := time.Now()
		err := c.Shutdown(ctx)
		d := time.Since(begin)
		cancel()
		if err != nil {
			t.Errorf("%s: Shutdown = %v, want nil: the server ended because we asked", mode, err)
		}
		if d < 200*time.Millisecond || d > 2*time.Second {
			t.Errorf("%s: Shutdown took %v, want a little more than its context's 200ms", mode, d)
		}
		select {
		case <-c.Exited():
		default:
			t.Errorf("%s: Shutdown returned before the process was reaped", mode)
		}
		if err := c.Close(); err != nil {
			t.Errorf("%s: Close after Shutdown = %v", mode, err)
		}
	}
}

func TestStderrLinesAreBounded(t *testing.T) {
	log, logs := newLogger()
	c := start(t, "long-stderr", &Options{Logger: log, MaxStderrLine: 101})
	short := logs.wait(t, "short")
	long := logs.wait(t, "é")
	if len(long["line"]) != 100 || long["truncated"] != "true" {
		t.Errorf("long line logged as %d bytes %q, truncated=%s; want 100 bytes (50 runes) and truncated", len(long["line"]), long["line"], long["truncated"])
	}
	if short["line"] != "short" || short["truncated"] != "" {
		t.Errorf("short line = %v", short)
	}
	c.Close()
}

func TestLeftoverGrandchildDoesNotHang(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the grace period")
	}
	log, logs := newLogger()
	c := start(t, "grandchild", &Options{Logger: log})
	begin := time.Now()
	_, err := c.Read(readCtx(t))
	if pid, _ := strconv.Atoi(strings.TrimPrefix(logs.wait(t, "grandchild ")["line"], "grandchild ")); pid > 0 {
		if p, err := os.FindProcess(pid); err == nil {
			defer p.Kill()
		}
	}
	if err != io.EOF {
		t.Fatalf("Read = %v, want io.EOF although a grandchild holds stdout", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	// The grandchild lives 30s; the grace periods are 1s each.
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("EOF and Close took %v", d)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	c := start(t, "echo", nil)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		errc <- err
	}()
	// Close may come before Read starts waiting; either way Read returns
	// ErrClosed. That Close unblocks a Read already waiting is proven by
	// transport's TestLineConnReadUnblocksOnClose, in a synctest bubble:
	// a process's conn is a line connection.
	c.Close()
	if err := <-errc; err != jsonrpc.ErrClosed {
		t.Errorf("Read = %v, want jsonrpc.ErrClosed", err)
	}
}

func TestConnectAgain(t *testing.T) {
	ctx := context.Background()
	once := New(child("echo"), nil)
	c, err := once.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := once.Connect(ctx); err == nil || !strings.Contains(err.Error(), "NewFunc") {
		t.Errorf("second Connect of New = %v, want an error pointing to NewFunc", err)
	}

	many := NewFunc(func() *exec.Cmd { return child("echo") }, nil)
	for range 2 {
		c, err := many.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestStartErrors(t *testing.T) {
	ctx := context.Background()
	cmd := child("echo")
	cmd.Stdout = io.Discard
	if _, err := New(cmd, nil).Start(ctx); err == nil || !strings.Contains(err.Error(), "must be nil") {
		t.Errorf("Start with Stdout set = %v", err)
	}
	if _, err := New(exec.Command("/nonexistent/mcp-server"), nil).Start(ctx); err == nil || !strings.Contains(err.Error(), "starting mcp-server") {
		t.Errorf("Start of a missing program = %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := New(child("echo"), nil).Start(cctx); err != context.Canceled {
		t.Errorf("Start with a cancelled context = %v", err)
	}
}

func TestStderrAlsoGoesToCmdStderr(t *testing.T) {
	var buf strings.Builder
	var mu sync.Mutex
	cmd := child("fail")
	cmd.Stderr = writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	})
	c, err := New(cmd, nil).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	<-c.Exited()
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	if buf.String() != "starting\nfatal: no configuration" {
		t.Errorf("cmd.Stderr got %q", buf.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// BenchmarkCall measures one call to a server process and its answer,
// through the engine: with the connection pushing its messages (as
// jsonrpc.NewConn uses it) and, for comparison, read with Read.
func BenchmarkCall(b *testing.B) {
	for _, pushed := range []bool{true, false} {
		b.Run(fmt.Sprintf("pushed=%v", pushed), func(b *testing.B) {
			c := start(b, "echo", nil)
			var s jsonrpc.Stream = c
			if !pushed {
				s = readOnly{c}
			}
			rc := jsonrpc.NewConn(s, nil)
			defer func() { rc.Close(); <-c.Exited() }()
			var got []string
			for b.Loop() {
				if err := rc.Call(context.Background(), "echo", []string{"hi"}, &got); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// readOnly hides a stream's Push.
type readOnly struct{ jsonrpc.Stream }
