package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store"
)

// The tests of Sessions.

func testSessions(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	ss := st.Sessions()
	if _, err := ss.Load(ctx, "nope", time.Minute); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Load of a missing session: %v", err)
	}
	if err := ss.Update(ctx, "nope", &store.SessionUpdate{LogLevel: mcp.LevelInfo}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Update of a missing session: %v", err)
	}
	if err := ss.Create(ctx, &store.Session{ID: "s1", Owner: "ada"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := ss.Create(ctx, &store.Session{ID: "s1"}, time.Minute); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second Create: %v", err)
	}
	caps := mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}
	info := mcp.Implementation{Name: "client", Version: "1"}
	for _, u := range []*store.SessionUpdate{
		{Initialize: true, Version: mcp.Version20251125, ClientInfo: info, ClientCapabilities: caps},
		{LogLevel: mcp.LevelWarning},
		{Subscribe: "test://a", MaxSubscriptions: 2},
		{Subscribe: "test://b", MaxSubscriptions: 2},
		{Subscribe: "test://a", MaxSubscriptions: 2}, // again: no change
		{Delivered: "0_7"},
	} {
		if err := ss.Update(ctx, "s1", u); err != nil {
			t.Fatalf("Update %+v: %v", u, err)
		}
	}
	if err := ss.Update(ctx, "s1", &store.SessionUpdate{Subscribe: "test://c", MaxSubscriptions: 2}); !errors.Is(err, store.ErrLimit) {
		t.Fatalf("a third subscription of at most 2: %v", err)
	}
	rec, err := ss.Load(ctx, "s1", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(rec.Subscriptions)
	if rec.ID != "s1" || rec.Owner != "ada" || !rec.Initialized || rec.Version != mcp.Version20251125 ||
		rec.ClientInfo.Name != info.Name || rec.ClientInfo.Version != info.Version || rec.ClientCapabilities.Elicitation == nil || rec.LogLevel != mcp.LevelWarning ||
		!slices.Equal(rec.Subscriptions, []string{"test://a", "test://b"}) || rec.Delivered != "0_7" {
		t.Fatalf("record %+v", rec)
	}
	if err := ss.Create(ctx, &store.Session{ID: "s2"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	each := func(uri string) []string {
		var ids []string
		if err := ss.Each(ctx, uri, func(id string) error { ids = append(ids, id); return nil }); err != nil {
			t.Fatal(err)
		}
		slices.Sort(ids)
		return ids
	}
	if got := each(""); !slices.Equal(got, []string{"s1"}) {
		t.Errorf("Each: %v (s2 is not initialized)", got)
	}
	if err := ss.Update(ctx, "s2", &store.SessionUpdate{Initialize: true, Version: mcp.Version20250618}); err != nil {
		t.Fatal(err)
	}
	if got := each(""); !slices.Equal(got, []string{"s1", "s2"}) {
		t.Errorf("Each: %v", got)
	}
	if got := each("test://b"); !slices.Equal(got, []string{"s1"}) {
		t.Errorf("Each test://b: %v", got)
	}
	if err := ss.Update(ctx, "s1", &store.SessionUpdate{Unsubscribe: "test://b"}); err != nil {
		t.Fatal(err)
	}
	if got := each("test://b"); len(got) != 0 {
		t.Errorf("Each test://b after unsubscribing: %v", got)
	}
	stop := errors.New("stop")
	if err := ss.Each(ctx, "", func(string) error { return stop }); err != stop {
		t.Errorf("Each returns f's error: %v", err)
	}
	if err := ss.Delete(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.Load(ctx, "s1", time.Minute); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Load after Delete: %v", err)
	}
	if got := each("test://a"); len(got) != 0 {
		t.Errorf("Each test://a after Delete: %v", got)
	}
	if err := ss.Delete(ctx, "s1"); err != nil {
		t.Errorf("Delete of a missing session: %v", err)
	}
}

func testSessionsExpire(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	ss := st.Sessions()
	const ttl = 300 * time.Millisecond
	if err := ss.Create(ctx, &store.Session{ID: "short"}, ttl); err != nil {
		t.Fatal(err)
	}
	if err := ss.Update(ctx, "short", &store.SessionUpdate{Initialize: true, Subscribe: "test://x"}); err != nil {
		t.Fatal(err)
	}
	// Load without a ttl reads the session and does not keep it longer.
	if rec, err := ss.Load(ctx, "short", 0); err != nil || !rec.Initialized || !slices.Equal(rec.Subscriptions, []string{"test://x"}) {
		t.Fatalf("Load without renewing: %+v, %v", rec, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := ss.Load(ctx, "short", 0)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the session did not expire while read without renewing")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := ss.Load(ctx, "missing", 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Load of a missing session without renewing: %v", err)
	}
	if err := ss.Create(ctx, &store.Session{ID: "short"}, ttl); err != nil {
		t.Fatal(err)
	}
	if err := ss.Update(ctx, "short", &store.SessionUpdate{Initialize: true, Subscribe: "test://x"}); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		_, err := ss.Load(ctx, "short", time.Millisecond) // Load keeps it 1 ms more
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("the session did not expire")
		}
		time.Sleep(20 * time.Millisecond)
	}
	n := 0
	ss.Each(ctx, "test://x", func(string) error { n++; return nil })
	if n != 0 {
		t.Errorf("Each lists an expired session")
	}
}

// testEachWhileRenewed: Each("") visits every session live throughout
// the walk exactly once, though sessions are renewed (Load) meanwhile,
// as the requests of their clients renew them while a list change is
// fanned out. store/redis paged by offset through sessions ordered by
// expiry, which renewing reorders: it visited some twice and others
// never (those missed the list change).
func testEachWhileRenewed(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	ss := st.Sessions()
	const n = 1000
	for i := range n {
		id := fmt.Sprintf("w%04d", i)
		if err := ss.Create(ctx, &store.Session{ID: id}, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := ss.Update(ctx, id, &store.SessionUpdate{Initialize: true, Version: mcp.Version20251125}); err != nil {
			t.Fatal(err)
		}
	}
	seen := make(map[string]int)
	err := ss.Each(ctx, "", func(id string) error {
		seen[id]++
		_, err := ss.Load(ctx, id, 2*time.Minute) // its client's request renews it
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var twice []string
	for id, k := range seen {
		if k > 1 {
			twice = append(twice, id)
		}
	}
	slices.Sort(twice)
	if len(seen) != n || len(twice) > 0 {
		t.Errorf("Each visited %d distinct sessions of %d, %d of them more than once (%v...)", len(seen), n, len(twice), twice[:min(5, len(twice))])
	}
}

// testRenewedStaysListed: a session renewed past the ttl it was created
// with is still listed by Each, and by Each of the URIs it subscribed
// to: what indexes it lasts as long as it does.
func testRenewedStaysListed(t *testing.T, st store.Store) {
	ctx := ctxOf(t)
	ss := st.Sessions()
	const ttl = 200 * time.Millisecond
	if err := ss.Create(ctx, &store.Session{ID: "kept"}, ttl); err != nil {
		t.Fatal(err)
	}
	if err := ss.Update(ctx, "kept", &store.SessionUpdate{Initialize: true, Subscribe: "test://kept"}); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(3 * ttl); time.Now().Before(end); {
		if _, err := ss.Load(ctx, "kept", ttl); err != nil {
			t.Fatalf("Load of a session renewed every %v: %v", ttl/4, err)
		}
		time.Sleep(ttl / 4)
	}
	for _, uri := range []string{"", "test://kept"} {
		var ids []string
		if err := ss.Each(ctx, uri, func(id string) error { ids = append(ids, id); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids, []string{"kept"}) {
			t.Errorf("Each(%q) of a session renewed past its first ttl: %v", uri, ids)
		}
	}
}
