package redis_test

import (
	"context"
	"encoding/json"
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
	"github.com/mcpwire/mcpwire/store/redis"
	"github.com/mcpwire/mcpwire/transport/streamable"
)

// heldWriter holds its writes while hold is set: the GET stream of a
// client too slow for its events.
type heldWriter struct {
	http.ResponseWriter
	hold    *atomic.Bool
	stuck   chan struct{}
	release chan struct{}
}

func (w *heldWriter) Write(b []byte) (int, error) {
	if w.hold.Load() {
		select {
		case w.stuck <- struct{}{}:
		default:
		}
		<-w.release
	}
	return w.ResponseWriter.Write(b)
}

func (w *heldWriter) Flush()                      { w.ResponseWriter.(http.Flusher).Flush() }
func (w *heldWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// warnings keeps the warnings a slog.Logger is given.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (r *warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (r *warnings) WithAttrs([]slog.Attr) slog.Handler           { return r }
func (r *warnings) WithGroup(string) slog.Handler                { return r }
func (r *warnings) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, rec.Message)
	r.mu.Unlock()
	return nil
}

func (r *warnings) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.msgs, "; ")
}

// TestStandaloneGETFallenBehindEnds is the scenario of transport/streamable's
// test of that name, on Redis: a session's GET stream whose reader fell
// more than MaxEventsPerSession events behind went on from the first event
// still kept, and the client missed messages without a sign of it. Now
// the stream ends after the last event sent, the client's Last-Event-ID
// is refused, and the client warns that messages were lost, then carries
// on with a new stream.
func TestStandaloneGETFallenBehindEnds(t *testing.T) {
	const bound = 16
	st := open(t, &redis.Options{MaxEventsPerSession: bound})
	srv := server.New(mcp.Implementation{Name: "gap", Version: "1"}, &server.Options{Store: st})
	h := streamable.NewHandler(srv, &streamable.HandlerOptions{Retry: 10 * time.Millisecond})
	var hold atomic.Bool
	stuck, release := make(chan struct{}, 1), make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w = &heldWriter{ResponseWriter: w, hold: &hold, stuck: stuck, release: release}
		}
		h.ServeHTTP(w, r)
	}))
	tr := &http.Transport{}
	defer func() {
		srv.Close()
		h.Close()
		ts.CloseClientConnections()
		ts.Close()
		tr.CloseIdleConnections()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	logs := &warnings{}
	got := make(chan int, 1000)
	cs, err := client.New(mcp.Implementation{Name: "gap", Version: "1"}, &client.Options{
		Version: mcp.Version20251125,
		OnLog: func(ctx context.Context, p *mcp.LoggingMessageParams) {
			n, _ := strconv.Atoi(string(p.Data))
			got <- n
		},
	}).Connect(ctx, streamable.NewTransport(ts.URL, &streamable.ClientOptions{HTTPClient: &http.Client{Transport: tr}, Logger: slog.New(logs)}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	logN := func(n int) {
		t.Helper()
		for sess := range srv.Sessions() {
			if err := sess.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LevelInfo, Data: json.RawMessage(strconv.Itoa(n))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var seen []int
	wait := func(want int) {
		t.Helper()
		for {
			select {
			case n := <-got:
				seen = append(seen, n)
				if n == want {
					return
				}
			case <-ctx.Done():
				t.Fatalf("message %d never came; came %v; the client warned: %s", want, seen, logs.all())
			}
		}
	}
	logN(1)
	wait(1)
	hold.Store(true)
	logN(2)
	<-stuck
	total := 2 + 2*bound
	for n := 3; n <= total; n++ {
		logN(n)
	}
	hold.Store(false)
	close(release)
	wait(total)
	logN(total + 1)
	wait(total + 1)
	if !strings.Contains(logs.all(), "may be lost") {
		t.Errorf("came %v, and the client never warned that messages were lost (its warnings: %q)", seen, logs.all())
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Errorf("messages out of order: %v", seen)
			break
		}
	}
}
