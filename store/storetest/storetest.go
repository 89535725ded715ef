// Package storetest holds the tests that every store.Store must pass:
// run them from the tests of an implementation with Run.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store"
)

// Run runs the tests on stores made by open; each test gets a store of
// its own (or one emptied for it). maxEvents is the bound on events per
// session that open's stores keep.
func Run(t *testing.T, open func(t *testing.T) store.Store, maxEvents int) {
	for _, tc := range []struct {
		name string
		f    func(t *testing.T, st store.Store)
	}{
		{"Sessions", testSessions},
		{"SessionsExpire", testSessionsExpire},
		{"EachWhileRenewed", testEachWhileRenewed},
		{"RenewedStaysListed", testRenewedStaysListed},
		{"Events", testEvents},
		{"EventsBound", func(t *testing.T, st store.Store) { testEventsBound(t, st, maxEvents) }},
		{"Follow", testFollow},
		{"FollowFallsBehind", func(t *testing.T, st store.Store) { testFollowFallsBehind(t, st, maxEvents) }},
		{"Bus", testBus},
		{"Keys", testKeys},
		{"Tasks", testTasks},
		{"Instances", testInstances},
		{"Liveness", testLiveness},
		{"Meta", testMeta},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.f(t, open(t)) })
	}
}

func ctxOf(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// collect follows or replays into a list of "id=data".
type collect struct {
	mu  sync.Mutex
	got []string
}

func (c *collect) send(id string, data []byte) error {
	c.mu.Lock()
	c.got = append(c.got, id+"="+string(data))
	c.mu.Unlock()
	return nil
}

func (c *collect) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

func data(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		_, out[i], _ = strings.Cut(s, "=")
	}
	return out
}

func testEvents(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	ev := st.Events()
	if err := ev.Replay(ctx, "s", "1_1", (&collect{}).send); !errors.Is(err, store.ErrEventNotFound) {
		t.Fatalf("Replay in an unknown session: %v", err)
	}
	prime, err := ev.Append(ctx, "s", "p1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(prime, "p1_") {
		t.Fatalf("event id %q does not start with its stream", prime)
	}
	var ids []string
	for i, d := range []string{"a", "b", "c"} {
		for _, stream := range []string{"p1", "p2"} {
			id, err := ev.Append(ctx, "s", stream, []byte(fmt.Sprintf(`{"%s":%d}`, d, i)))
			if err != nil {
				t.Fatal(err)
			}
			if stream == "p1" {
				ids = append(ids, id)
			}
		}
	}
	var c collect
	if err := ev.Replay(ctx, "s", prime, c.send); err != nil {
		t.Fatal(err)
	}
	want := []string{ids[0] + `={"a":0}`, ids[1] + `={"b":1}`, ids[2] + `={"c":2}`}
	if got := c.list(); !slices.Equal(got, want) {
		t.Errorf("Replay after the priming event: %v, want %v", got, want)
	}
	c = collect{}
	if err := ev.Replay(ctx, "s", ids[1], c.send); err != nil {
		t.Fatal(err)
	}
	if got := c.list(); !slices.Equal(got, want[2:]) {
		t.Errorf("Replay after %s: %v", ids[1], got)
	}
	for _, bad := range []string{"p1_zzz", "nostream", ids[0] + "0", "p3_" + strings.TrimPrefix(ids[0], "p1_")} {
		if err := ev.Replay(ctx, "s", bad, (&collect{}).send); !errors.Is(err, store.ErrEventNotFound) {
			t.Errorf("Replay after %q: %v", bad, err)
		}
	}
	stop := errors.New("stop")
	n := 0
	if err := ev.Replay(ctx, "s", prime, func(string, []byte) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Replay stops at send's error: %v after %d", err, n)
	}
	if err := ev.DeleteSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if err := ev.Replay(ctx, "s", prime, (&collect{}).send); !errors.Is(err, store.ErrEventNotFound) {
		t.Errorf("Replay after DeleteSession: %v", err)
	}
}

func testEventsBound(t *testing.T, st store.Store, max int) {
	ctx := ctxOf(t)
	ev := st.Events()
	first, err := ev.Append(ctx, "b", "1", []byte(`0`))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < max+max/2; i++ {
		if _, err := ev.Append(ctx, "b", "1", []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := ev.Replay(ctx, "b", first, (&collect{}).send); !errors.Is(err, store.ErrEventNotFound) {
		t.Errorf("Replay after an evicted event: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	var kept collect
	ev.Follow(short, "b", "1", "", kept.send)
	if n := len(kept.list()); n == 0 || n > max+max/10 {
		t.Errorf("%d events kept of %d appended, bound %d", n, max+max/2, max)
	}
}

func testFollow(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	ev := st.Events()
	prime, err := ev.Append(ctx, "f", "s1", nil)
	if err != nil {
		t.Fatal(err)
	}
	var c collect
	done := make(chan error, 1)
	go func() { done <- ev.Follow(ctx, "f", "s1", prime, c.send) }()
	var want []string
	for i := range 20 {
		d := fmt.Sprint(i)
		if _, err := ev.Append(ctx, "f", "s1", []byte(d)); err != nil {
			t.Fatal(err)
		}
		if _, err := ev.Append(ctx, "f", "other", []byte("x")); err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
	}
	if err := ev.End(ctx, "f", "s1"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Follow of an ended stream: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Follow did not return at the end of the stream")
	}
	if got := data(c.list()); !slices.Equal(got, want) {
		t.Errorf("followed %v, want %v", got, want)
	}
	// AppendEnd keeps the last event and ends the stream at once.
	var last collect
	done2 := make(chan error, 1)
	go func() { done2 <- ev.Follow(ctx, "f", "s2", "", last.send) }()
	if _, err := ev.Append(ctx, "f", "s2", []byte("first")); err != nil {
		t.Fatal(err)
	}
	lastID, err := ev.AppendEnd(ctx, "f", "s2", []byte("last"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(lastID, "s2_") {
		t.Fatalf("AppendEnd's event id %q does not start with its stream", lastID)
	}
	select {
	case err := <-done2:
		if err != nil {
			t.Fatalf("Follow of a stream ended by AppendEnd: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Follow did not return after AppendEnd")
	}
	if got := last.list(); len(got) != 2 || got[1] != lastID+"=last" {
		t.Errorf("followed %v, want first then %s=last", got, lastID)
	}
	// Following an ended stream from its start returns its events.
	var all collect
	if err := ev.Follow(ctx, "f", "s1", "", all.send); err != nil {
		t.Fatal(err)
	}
	if got := data(all.list()); !slices.Equal(got, append([]string{""}, want...)) {
		t.Errorf("followed from the start %v", got)
	}
	// A follow ends with its context.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if err := ev.Follow(short, "f", "open", "", (&collect{}).send); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Follow past its context: %v", err)
	}
	if err := ev.Follow(ctx, "f", "s1", "s1_nope", (&collect{}).send); !errors.Is(err, store.ErrEventNotFound) {
		t.Errorf("Follow after an unknown event: %v", err)
	}
}

// testFollowFallsBehind: a follow whose send is slower than the appends,
// falling more than the bound of events behind (the events after the
// last it sent evicted), ends with ErrEventNotFound rather than going on
// after the gap as if nothing were missing (store/redis skipped the
// evicted events and returned nil at the end of the stream).
func testFollowFallsBehind(t *testing.T, st store.Store, max int) {
	ctx := ctxOf(t)
	ev := st.Events()
	prime, err := ev.Append(ctx, "behind", "s", nil)
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var got []string
	done := make(chan error, 1)
	go func() {
		done <- ev.Follow(ctx, "behind", "s", prime, func(id string, data []byte) error {
			if len(got) == 0 {
				close(entered)
				<-release
			}
			got = append(got, string(data))
			return nil
		})
	}()
	if _, err := ev.Append(ctx, "behind", "s", []byte("0")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-entered: // the follow sends event 0 now, and waits
	case <-ctx.Done():
		t.Fatal("the follow did not send the first event")
	}
	n := max + max/2
	for i := 1; i < n; i++ {
		if _, err := ev.Append(ctx, "behind", "s", []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := ev.End(ctx, "behind", "s"); err != nil {
		t.Fatal(err)
	}
	close(release)
	select {
	case err = <-done:
	case <-ctx.Done():
		t.Fatal("the follow did not return")
	}
	if !errors.Is(err, store.ErrEventNotFound) {
		t.Errorf("a follow %d events behind (bound %d) ended with %v after sending %d events, want store.ErrEventNotFound", n-1, max, err, len(got))
	}
	for i, d := range got {
		if d != fmt.Sprint(i) {
			t.Fatalf("followed %v: a gap before %s", got, d)
		}
	}
}

func testBus(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	bus := st.Bus()
	got := make(chan string, 100)
	cancel := bus.Subscribe("t1", func(m []byte) { got <- "a:" + string(m) })
	cancel2 := bus.Subscribe("t1", func(m []byte) { got <- "b:" + string(m) })
	defer cancel2()
	other := bus.Subscribe("t2", func(m []byte) { got <- "other:" + string(m) })
	defer other()
	// A subscription may take a moment to be made: publish until seen.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := bus.Publish(ctx, "t1", []byte("ping")); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		timer := time.After(100 * time.Millisecond)
	wait:
		for len(seen) < 2 {
			select {
			case m := <-got:
				seen[m] = true
			case <-timer:
				break wait
			}
		}
		if seen["a:ping"] && seen["b:ping"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscriptions never received a message")
		}
	}
	time.Sleep(50 * time.Millisecond)
	for len(got) > 0 {
		<-got
	}
	for i := range 10 {
		if err := bus.Publish(ctx, "t1", []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	var a, b []string
	for len(a) < 10 || len(b) < 10 {
		select {
		case m := <-got:
			switch {
			case strings.HasPrefix(m, "a:"):
				a = append(a, m[2:])
			case strings.HasPrefix(m, "b:"):
				b = append(b, m[2:])
			default:
				t.Errorf("message of another topic: %q", m)
			}
		case <-ctx.Done():
			t.Fatalf("received %v and %v", a, b)
		}
	}
	want := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	if !slices.Equal(a, want) || !slices.Equal(b, want) {
		t.Errorf("order: %v, %v", a, b)
	}
	cancel()
	if err := bus.Publish(ctx, "t1", []byte("after")); err != nil {
		t.Fatal(err)
	}
	for {
		select {
		case m := <-got:
			if m == "a:after" {
				t.Fatal("a cancelled subscription received a message")
			}
			if m == "b:after" {
				return
			}
		case <-ctx.Done():
			t.Fatal("the remaining subscription lost a message")
		}
	}
}

func testKeys(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	k1, err := st.Keys().Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := st.Keys().Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(k1) == 0 || len(k1[0]) < 32 || string(k1[0]) != string(k2[0]) {
		t.Fatalf("keys %x then %x: want one key of 32 bytes or more, the same", k1, k2)
	}
}

func testTasks(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	ts := st.Tasks()
	now := time.Now()
	rec := &store.TaskRecord{ID: "t1", Owner: "o", Status: mcp.TaskWorking, CreatedAt: now, LastUpdatedAt: now, TTL: time.Minute, PollInterval: time.Second, Instance: 3}
	if err := ts.Create(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, err := ts.Get(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Owner != "o" || got.Status != mcp.TaskWorking || got.Instance != 3 || !got.CreatedAt.Equal(now) || got.TTL != time.Minute {
		t.Errorf("task %+v", got)
	}
	msg := "half way"
	got, err = ts.Update(ctx, "t1", &store.TaskUpdate{StatusMessage: &msg})
	if err != nil || got.StatusMessage != msg {
		t.Fatalf("Update: %+v, %v", got, err)
	}
	if _, err := ts.Update(ctx, "t1", &store.TaskUpdate{Status: mcp.TaskCompleted, Result: []byte(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Update(ctx, "t1", &store.TaskUpdate{Status: mcp.TaskFailed}); !errors.Is(err, store.ErrTaskTerminal) {
		t.Errorf("Update of a terminal task: %v", err)
	}
	got, _ = ts.Get(ctx, "t1")
	if string(got.Result) != `{"ok":true}` || got.Status != mcp.TaskCompleted {
		t.Errorf("completed task %+v", got)
	}
	for i := range 5 {
		r := *rec
		r.ID = fmt.Sprint("l", i)
		r.CreatedAt = now.Add(time.Duration(i) * time.Millisecond)
		if err := ts.Create(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	cursor := ""
	for range 10 {
		page, next, err := ts.List(ctx, "o", cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			ids = append(ids, r.ID)
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	if !slices.Equal(ids, []string{"t1", "l0", "l1", "l2", "l3", "l4"}) {
		t.Errorf("List: %v, want the owner's tasks oldest first", ids)
	}
	if _, _, err := ts.List(ctx, "o", "not a cursor", 2); !errors.Is(err, store.ErrTaskCursor) {
		t.Errorf("List with a bad cursor: %v", err)
	}
	if err := ts.Delete(ctx, "l0"); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Get(ctx, "l0"); !errors.Is(err, store.ErrTaskNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	short := *rec
	short.ID, short.TTL = "short", time.Millisecond
	if err := ts.Create(ctx, &short); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if _, err := ts.Get(ctx, "short"); !errors.Is(err, store.ErrTaskNotFound) {
		t.Errorf("Get of an expired task: %v", err)
	}
	if _, err := ts.DeleteExpired(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func testInstances(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	seen := map[int64]bool{}
	for range 5 {
		n, err := st.NewInstance(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n < 1 || n > store.MaxInstance || seen[n] {
			t.Fatalf("instance number %d (seen %v)", n, seen)
		}
		seen[n] = true
	}
}

func testLiveness(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	in := st.Instances()
	if alive, err := in.Alive(ctx, "never"); err != nil || alive {
		t.Fatalf("an instance that never beat: alive %v, %v", alive, err)
	}
	const ttl = 200 * time.Millisecond
	if err := in.Beat(ctx, "a", ttl); err != nil {
		t.Fatal(err)
	}
	if alive, err := in.Alive(ctx, "a"); err != nil || !alive {
		t.Fatalf("an instance that just beat: alive %v, %v", alive, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		alive, err := in.Alive(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if !alive {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("an instance that stopped beating is still alive")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testMeta(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	ev := st.Events()
	if _, err := ev.Meta(ctx, "m", "s1"); !errors.Is(err, store.ErrEventNotFound) {
		t.Fatalf("Meta of a stream never primed: %v", err)
	}
	prime, err := ev.Prime(ctx, "m", "s1", []byte(`[1,"two"]`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(prime, "s1_") {
		t.Fatalf("event id %q does not start with its stream", prime)
	}
	if _, err := ev.Append(ctx, "m", "s1", []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Prime(ctx, "m", "s2", []byte(`[3]`)); err != nil {
		t.Fatal(err)
	}
	for stream, want := range map[string]string{"s1": `[1,"two"]`, "s2": `[3]`} {
		if meta, err := ev.Meta(ctx, "m", stream); err != nil || string(meta) != want {
			t.Errorf("Meta of %s: %q, %v; want %s", stream, meta, err, want)
		}
	}
	// The priming event is a priming event: no message to replay.
	var c collect
	if err := ev.Follow(ctx, "m", "s1", "", func(id string, data []byte) error {
		if err := c.send(id, data); err != nil {
			return err
		}
		return errors.New("stop")
	}); err == nil {
		t.Fatal("Follow did not stop")
	}
	if got := c.list(); len(got) != 1 || got[0] != prime+"=" {
		t.Errorf("the priming event followed as %v", got)
	}
	if _, err := ev.Prime(ctx, "m", "big", make([]byte, store.MaxMeta+1)); err == nil {
		t.Error("Prime took a meta over MaxMeta")
	}
	if err := ev.DeleteSession(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Meta(ctx, "m", "s1"); !errors.Is(err, store.ErrEventNotFound) {
		t.Errorf("Meta after DeleteSession: %v", err)
	}
}
