package streamable_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/client"
	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// A slowReader holds the writes to the GET streams it wraps while hold is
// set, as a client too slow for the events would: the handler's write
// blocks while the store goes on keeping events, and trims the oldest.
type slowReader struct {
	hold    atomic.Bool
	stuck   chan struct{} // gets a value when a write is held
	release chan struct{} // closed to let the writes go
}

func newSlowReader() *slowReader {
	return &slowReader{stuck: make(chan struct{}, 1), release: make(chan struct{})}
}

func (s *slowReader) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w = &slowWriter{ResponseWriter: w, s: s}
		}
		h.ServeHTTP(w, r)
	})
}

type slowWriter struct {
	http.ResponseWriter
	s *slowReader
}

func (w *slowWriter) Write(b []byte) (int, error) {
	if w.s.hold.Load() {
		select {
		case w.s.stuck <- struct{}{}:
		default:
		}
		<-w.s.release
	}
	return w.ResponseWriter.Write(b)
}

func (w *slowWriter) Flush()                      { w.ResponseWriter.(http.Flusher).Flush() }
func (w *slowWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// serveSlow serves a server with store st through a slowReader.
func serveSlow(t *testing.T, st store.Store) (*env, *slowReader) {
	srv := server.New(mcp.Implementation{Name: "gap", Version: "1"}, &server.Options{Store: st})
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Retry: 10 * time.Millisecond})
	slow := newSlowReader()
	ts := httptest.NewServer(slow.wrap(h))
	tr := &http.Transport{}
	t.Cleanup(func() {
		h.Close()
		ts.CloseClientConnections()
		ts.Close()
		tr.CloseIdleConnections()
		srv.Close()
	})
	return &env{t: t, srv: srv, h: h, ts: ts, url: ts.URL, client: &http.Client{Transport: tr}}, slow
}

// logTo sends log message n to every session of srv: a message of the
// session's own stream, which relates to no request.
func logTo(t *testing.T, srv *server.Server, n int) {
	t.Helper()
	for sess := range srv.Sessions() {
		if err := sess.Log(context.Background(), &mcp.LoggingMessageParams{Level: mcp.LevelInfo, Data: json.RawMessage(strconv.Itoa(n))}); err != nil {
			t.Fatal(err)
		}
	}
}

// sseEvent is an event of a GET stream: its id and the number its log
// message carries.
type sseEvent struct {
	id string
	n  int
}

// readLogEvents reads the log messages of an SSE stream into a channel,
// closed at the stream's end.
func readLogEvents(t *testing.T, body io.ReadCloser) <-chan sseEvent {
	out := make(chan sseEvent, 1000)
	go func() {
		defer close(out)
		r := sse.NewReader(body, 1<<20)
		for {
			ev, err := r.Next()
			if err != nil {
				return
			}
			if len(ev.Data) == 0 {
				continue
			}
			var m struct {
				Method string `json:"method"`
				Params struct {
					Data int `json:"data"`
				} `json:"params"`
			}
			if err := json.Unmarshal(ev.Data, &m); err != nil || m.Method != "notifications/message" {
				t.Errorf("unexpected event %s (%v)", ev.Data, err)
				continue
			}
			out <- sseEvent{ev.ID, m.Params.Data}
		}
	}()
	return out
}

// FallBehindScenario is the scenario of TestStandaloneGETFallenBehindEnds,
// run on st, a store that keeps at most bound events per session (store/redis's
// tests run it on Redis, by a copy of their own).
func fallBehindScenario(t *testing.T, st store.Store, bound int) {
	e, slow := serveSlow(t, st)
	sid := e.initialize("2025-11-25")
	logN := func(n int) { t.Helper(); logTo(t, e.srv, n) }
	get := func(last string) *http.Response {
		hdr := legacy(sid)
		hdr["Accept"] = []string{"text/event-stream"}
		if last != "" {
			hdr["Last-Event-Id"] = []string{last}
		}
		return e.do(http.MethodGet, hdr, "")
	}
	next := func(events <-chan sseEvent) (sseEvent, bool) {
		t.Helper()
		select {
		case ev, ok := <-events:
			return ev, ok
		case <-time.After(10 * time.Second):
			t.Fatal("no event and no end of the stream within 10s")
			return sseEvent{}, false
		}
	}

	resp := get("")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: %s", resp.Status)
	}
	events := readLogEvents(t, resp.Body)
	logN(1)
	if ev, _ := next(events); ev.n != 1 {
		t.Fatalf("first event %+v, want message 1", ev)
	}
	// The reader stops reading: the handler's write of message 2 blocks,
	// and twice the store's bound of messages come meanwhile.
	slow.hold.Store(true)
	logN(2)
	select {
	case <-slow.stuck:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler never wrote message 2")
	}
	total := 2 + 2*bound
	for n := 3; n <= total; n++ {
		logN(n)
	}
	slow.hold.Store(false)
	close(slow.release)

	// The stream carries message 2, then ends: what followed it was
	// trimmed before it could be sent, and the stream must not go on past
	// the gap as if nothing were missing.
	last := ""
	for want := 2; ; want++ {
		ev, ok := next(events)
		if !ok {
			break
		}
		if ev.n != want {
			t.Fatalf("after message %d the stream went on with message %d: messages %d to %d are missing and the client cannot tell", want-1, ev.n, want, ev.n-1)
		}
		last = ev.id
	}
	resp.Body.Close()
	if last == "" {
		t.Fatal("the stream ended before message 2")
	}

	// The client resumes from the last event it read: the store has lost
	// what followed, and says so.
	resp = get(last)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("GET with Last-Event-ID %s, trimmed: %s, want 400", last, resp.Status)
	}
	// A new stream carries what the store still keeps, in order, and the
	// messages raised later.
	resp = get("")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("new GET: %s", resp.Status)
	}
	defer resp.Body.Close()
	events = readLogEvents(t, resp.Body)
	logN(total + 1)
	ev, _ := next(events)
	if ev.n <= 2 || ev.n > total+1-bound+1 {
		t.Fatalf("the new stream began with message %d, want one of the last %d kept", ev.n, bound)
	}
	for want := ev.n + 1; want <= total+1; want++ {
		if ev, _ := next(events); ev.n != want {
			t.Fatalf("the new stream: message %d, want %d", ev.n, want)
		}
	}
}

// TestStandaloneGETFallenBehindEnds: a session's GET stream whose reader
// fell more than the store's bound of events behind (store.Events.Follow
// returning ErrEventNotFound, the events it had yet to send trimmed)
// went on from the first event still kept, so that the client missed
// messages without any sign of it. It now ends, after the last event
// sent; the client's Last-Event-ID is then refused (400), and a new GET
// carries on with what is kept.
func TestStandaloneGETFallenBehindEnds(t *testing.T) {
	const bound = 16
	fallBehindScenario(t, store.NewMemory(&store.MemoryOptions{MaxEventsPerSession: bound}), bound)
}

// A logRecorder keeps the messages a slog.Logger is given.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecorder) WithGroup(string) slog.Handler            { return r }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, rec.Level.String()+" "+rec.Message)
	r.mu.Unlock()
	return nil
}

func (r *logRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

func (r *logRecorder) find(part string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.msgs {
		if strings.Contains(m, part) {
			return m
		}
	}
	return ""
}

// TestClientStandaloneStreamAfterAGap: when the server can no longer
// resume the session's GET stream (its events after the client's
// Last-Event-ID trimmed, 400), the client says that messages were lost
// and opens a new stream, which carries on. The server went on past the
// gap without a sign; and the client, refused, gave the stream up.
func TestClientStandaloneStreamAfterAGap(t *testing.T) {
	const bound = 16
	e, slow := serveSlow(t, store.NewMemory(&store.MemoryOptions{MaxEventsPerSession: bound}))
	logs := &logRecorder{}
	got := make(chan int, 1000)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.New(mcp.Implementation{Name: "gap", Version: "1"}, &client.Options{
		Version: mcp.Version20251125,
		OnLog: func(ctx context.Context, p *mcp.LoggingMessageParams) {
			n, _ := strconv.Atoi(string(p.Data))
			got <- n
		},
	}).Connect(ctx, streamable.NewTransport(e.url, &streamable.ClientOptions{HTTPClient: e.client, Logger: slog.New(logs)}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	wait := func(want int) {
		t.Helper()
		for {
			select {
			case n := <-got:
				if n == want {
					return
				}
				if n > want {
					t.Fatalf("message %d came, not %d", n, want)
				}
			case <-ctx.Done():
				t.Fatalf("message %d never came (client's log: %q)", want, logs.all())
			}
		}
	}
	logTo(t, e.srv, 1)
	wait(1)
	slow.hold.Store(true)
	logTo(t, e.srv, 2)
	<-slow.stuck
	total := 2 + 2*bound
	for n := 3; n <= total; n++ {
		logTo(t, e.srv, n)
	}
	slow.hold.Store(false)
	close(slow.release)
	wait(2)
	// The messages still kept come on the new stream, then later ones.
	wait(total)
	logTo(t, e.srv, total+1)
	wait(total + 1)
	if m := logs.find("may be lost"); !strings.HasPrefix(m, "WARN") {
		t.Errorf("the client did not warn that messages were lost; its log: %q", logs.all())
	}
}
