package streamable_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/transport/streamable"
)

// replay returns the event ids and data replayed after last.
func replay(t *testing.T, s streamable.EventStore, session, last string) ([]string, error) {
	t.Helper()
	var got []string
	err := s.Replay(context.Background(), session, last, func(id string, data []byte) error {
		got = append(got, id+"="+string(data))
		return nil
	})
	return got, err
}

func TestMemoryEventStore(t *testing.T) {
	ctx := context.Background()
	s := streamable.NewMemoryEventStore(nil)
	append1 := func(session, stream, data string) string {
		id, err := s.Append(ctx, session, stream, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(id, stream+"_") {
			t.Fatalf("event id %q does not name stream %q", id, stream)
		}
		return id
	}
	p := append1("s1", "1", "")
	append1("s1", "2", "other stream")
	a := append1("s1", "1", "a")
	append1("s2", "1", "other session")
	append1("s1", "1", "b")
	got, err := replay(t, s, "s1", p)
	if err != nil || len(got) != 2 || !strings.HasSuffix(got[0], "=a") || !strings.HasSuffix(got[1], "=b") {
		t.Fatalf("replay after priming: %v %v", got, err)
	}
	if got, _ := replay(t, s, "s1", a); len(got) != 1 {
		t.Errorf("replay after a: %v", got)
	}
	for _, bad := range []string{"1_99", "x", "2_1", "1_", "3_" + strings.TrimPrefix(a, "1_")} {
		if _, err := replay(t, s, "s1", bad); !errors.Is(err, streamable.ErrEventNotFound) {
			t.Errorf("replay %q: %v", bad, err)
		}
	}
	if _, err := replay(t, s, "s2", a); !errors.Is(err, streamable.ErrEventNotFound) {
		t.Errorf("another session's event: %v", err)
	}
	s.DeleteSession(ctx, "s1")
	if _, err := replay(t, s, "s1", a); !errors.Is(err, streamable.ErrEventNotFound) {
		t.Errorf("after DeleteSession: %v", err)
	}
	if n, _ := s.Len(); n != 1 {
		t.Errorf("%d events left, want 1", n)
	}
	stop := errors.New("stop")
	if err := s.Replay(ctx, "s2", "1_0", func(string, []byte) error { return stop }); !errors.Is(err, streamable.ErrEventNotFound) {
		t.Errorf("event 0: %v", err)
	}
}

// TestMemoryEventStoreBounds: the oldest events go when a session or the
// store is over its limits, and resuming after them fails.
func TestMemoryEventStoreBounds(t *testing.T) {
	ctx := context.Background()
	s := streamable.NewMemoryEventStore(&streamable.MemoryEventStoreOptions{MaxEventsPerSession: 10, MaxBytesPerSession: 2000, MaxBytes: 5000})
	var first string
	for i := range 100 {
		id, _ := s.Append(ctx, "a", "1", []byte(fmt.Sprint(i)))
		if i == 0 {
			first = id
		}
	}
	if n, _ := s.Len(); n != 10 {
		t.Errorf("%d events kept, want 10", n)
	}
	if _, err := replay(t, s, "a", first); !errors.Is(err, streamable.ErrEventNotFound) {
		t.Errorf("evicted event: %v", err)
	}
	big := make([]byte, 900)
	for i := range 20 {
		s.Append(ctx, fmt.Sprint("s", i), "1", big)
	}
	if _, b := s.Len(); b > 5000 {
		t.Errorf("%d bytes kept, limit 5000", b)
	}
	id, _ := s.Append(ctx, "huge", "1", make([]byte, 10000))
	if got, err := replay(t, s, "huge", id); err != nil || len(got) != 0 {
		t.Errorf("the newest event, even oversized, is kept: %v %v", got, err)
	}
}
