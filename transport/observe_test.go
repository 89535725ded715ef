package transport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// frameLog records frames as one line each: direction, method, id,
// whether it has a latency, and the raw frame or the decode error.
type frameLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *frameLog) ObserveFrame(f *Frame) {
	id := "-"
	if x, ok := f.ID(); ok {
		id = x.String()
	}
	s := fmt.Sprintf("%s %s method=%q id=%s latency=%v raw=%s", f.Transport, f.Direction, f.Method, id, f.Latency > 0, f.Raw)
	if de, ok := f.Err.(*jsonrpc.DecodeError); ok {
		s += " err=" + de.Err.Message
	}
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}

func (l *frameLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

func TestFrameTrackerCorrelates(t *testing.T) {
	var log frameLog
	tr := NewFrameTracker(&log, "test", "s1")
	call := &jsonrpc.Request{ID: jsonrpc.Int64ID(7), Method: "tools/call"}
	note := &jsonrpc.Request{Method: "notifications/progress"}
	peerCall := &jsonrpc.Request{ID: jsonrpc.Int64ID(7), Method: "roots/list"} // same id, other direction
	tr.Observe(Sent, []byte("a"), call, nil, 0)
	tr.Observe(Received, []byte("b"), peerCall, nil, 0)
	tr.Observe(Received, []byte("c"), note, nil, 0)
	tr.Observe(Sent, []byte("d"), &jsonrpc.Response{ID: jsonrpc.Int64ID(7)}, nil, 0)     // answers roots/list
	tr.Observe(Received, []byte("e"), &jsonrpc.Response{ID: jsonrpc.Int64ID(7)}, nil, 0) // answers tools/call
	tr.Observe(Received, []byte("f"), &jsonrpc.Response{ID: jsonrpc.Int64ID(7)}, nil, 0) // a duplicate
	tr.Observe(Received, []byte("g"), nil, &jsonrpc.DecodeError{Err: jsonrpc.NewError(jsonrpc.CodeParseError, "Parse error")}, 0)
	want := []string{
		`test sent method="tools/call" id=7 latency=false raw=a`,
		`test received method="roots/list" id=7 latency=false raw=b`,
		`test received method="notifications/progress" id=- latency=false raw=c`,
		`test sent method="roots/list" id=7 latency=true raw=d`,
		`test received method="tools/call" id=7 latency=true raw=e`,
		`test received method="" id=7 latency=false raw=f`,
		`test received method="" id=- latency=false raw=g err=Parse error`,
	}
	got := log.get()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFrameTrackerBounded(t *testing.T) {
	tr := NewFrameTracker(ObserverFunc(func(*Frame) {}), "test", "")
	for i := range 10 * maxTracked {
		tr.Observe(Sent, nil, &jsonrpc.Request{ID: jsonrpc.Int64ID(int64(i)), Method: "m"}, nil, 0)
		if i%2 == 0 {
			tr.Observe(Received, nil, &jsonrpc.Response{ID: jsonrpc.Int64ID(int64(i))}, nil, 0)
		}
	}
	if n := len(tr.pending); n > maxTracked {
		t.Errorf("%d requests remembered, bound %d", n, maxTracked)
	}
	if n := len(tr.order); n > 2*maxTracked+1 {
		t.Errorf("order holds %d keys, bound %d", n, 2*maxTracked)
	}
}

func TestNilFrameTracker(t *testing.T) {
	if NewFrameTracker(nil, "x", "") != nil {
		t.Fatal("a tracker without observer should be nil")
	}
	var tr *FrameTracker
	tr.Observe(Sent, nil, nil, nil, 0) // no panic
	tr.SetSession("s")
}

// TestLineConnObserves checks that a line connection shows every line it
// reads, valid or not (an oversized line with its first bytes), and every
// line it writes, with responses tied to their requests.
func TestLineConnObserves(t *testing.T) {
	for _, push := range []bool{false, true} {
		t.Run(fmt.Sprintf("push=%v", push), func(t *testing.T) {
			var log frameLog
			in := strings.Join([]string{
				linePing,
				`not json`,
				`{"jsonrpc":"2.0","id":2,"method":"` + strings.Repeat("x", 100) + `"}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			}, "\n") + "\n"
			var out bytes.Buffer
			c := NewLineConn(strings.NewReader(in), &out, nil, &LineOptions{
				Limits:    jsonrpc.Limits{MaxMessageSize: 64},
				Observer:  &log,
				Transport: TransportStdio,
			})
			defer c.Close()
			msgs := make(chan jsonrpc.Message, 8)
			if push {
				done := make(chan struct{})
				c.(jsonrpc.PushStream).Push(func(m jsonrpc.Message, err error) {
					if err == io.EOF {
						close(done)
						return
					}
					if m != nil {
						msgs <- m
					}
				})
				<-done
			} else {
				for {
					m, err := c.Read(context.Background())
					if err == io.EOF {
						break
					}
					if m != nil {
						msgs <- m
					}
				}
			}
			if err := c.Write(context.Background(), &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			got := log.get()
			want := []string{
				`stdio received method="ping" id=1 latency=false raw=` + linePing,
				`stdio received method="" id=- latency=false raw=not json err=Parse error: invalid literal at offset 0`,
				`stdio received method="" id=- latency=false raw={"jsonrpc":"2.0","id":2,"method":"` + strings.Repeat("x", 30) + ` err=Invalid Request: message exceeds 64 bytes`,
				`stdio received method="notifications/initialized" id=- latency=false raw={"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`stdio sent method="ping" id=1 latency=true raw=` + linePong,
			}
			if len(got) != len(want) {
				t.Fatalf("got %d frames, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
			}
			for i := range want {
				if !strings.HasPrefix(got[i], want[i]) {
					t.Errorf("frame %d:\ngot  %s\nwant %s", i, got[i], want[i])
				}
			}
		})
	}
}

func TestLogFrames(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tr := NewFrameTracker(LogFrames(l, slog.LevelDebug, 16), TransportStdio, "abc")
	tr.Observe(Sent, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "ping"}, nil, 0)
	time.Sleep(time.Millisecond) // a measurable latency
	tr.Observe(Received, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), &jsonrpc.Response{ID: jsonrpc.Int64ID(1), Result: []byte(`{}`)}, nil, 200)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d records:\n%s", len(lines), buf.String())
	}
	for _, want := range []string{"msg=frame", "direction=sent", "transport=stdio", "session=abc", "method=ping", "id=1", "size=40", `frame="{\"jsonrpc\":\"2.0\"…"`} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("record %q lacks %s", lines[0], want)
		}
	}
	for _, want := range []string{"direction=received", "method=ping", "latency=", "status=200"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("record %q lacks %s", lines[1], want)
		}
	}
	// A logger that is off costs nothing but the check.
	off := LogFrames(slog.New(slog.DiscardHandler), slog.LevelDebug, 0)
	f := &Frame{}
	if n := testing.AllocsPerRun(100, func() { off.ObserveFrame(f) }); n != 0 {
		t.Errorf("a disabled logger allocates %v times per frame", n)
	}
}

// BenchmarkFrameTracker is the cost of observing one call and its response
// (two frames) with an observer that looks at each and keeps nothing.
func BenchmarkFrameTracker(b *testing.B) {
	var n int
	tr := NewFrameTracker(ObserverFunc(func(f *Frame) { n += len(f.Method) }), TransportStdio, "")
	req := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "tools/call"}
	resp := &jsonrpc.Response{ID: jsonrpc.Int64ID(1)}
	raw := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)
	b.ReportAllocs()
	for b.Loop() {
		tr.Observe(Sent, raw, req, nil, 0)
		tr.Observe(Received, raw, resp, nil, 0)
	}
}
