package redis_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/store/redis"
	"github.com/mcpwire/mcpwire/store/redis/redistest"
	"github.com/mcpwire/mcpwire/store/storetest"
)

func TestMain(m *testing.M) {
	code := redistest.Main(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			os.Stderr.WriteString("goleak: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}

var prefixes atomic.Int64

// open returns a store of its own on the shared server (a prefix of its
// own), closed when the test ends.
func open(t *testing.T, o *redis.Options) *redis.Store {
	srv := redistest.Shared(t)
	var opts redis.Options
	if o != nil {
		opts = *o
	}
	opts.URL = srv.URL(0)
	opts.Prefix = "t" + strconv.FormatInt(prefixes.Add(1), 10) + ":"
	st, err := redis.New(&opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, &redis.Options{MaxEventsPerSession: 50})
	}, 50)
}

// TestUnavailable: a store whose Redis cannot be reached fails quickly
// with an error wrapping store.ErrUnavailable.
func TestUnavailable(t *testing.T) {
	st, err := redis.New(&redis.Options{URL: "redis://127.0.0.1:1/0", DialTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err = st.Sessions().Load(ctx, "x", time.Minute)
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Load: %v, want store.ErrUnavailable", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("failing took %v", d)
	}
}

// TestRestart: Redis killed and started again (empty): commands fail
// with store.ErrUnavailable while it is away, and succeed after, on new
// connections; the bus subscribes again.
func TestRestart(t *testing.T) {
	dir := t.TempDir()
	srv, err := redistest.Start(dir)
	if err != nil {
		if os.Getenv("MCPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer srv.Stop()
	st, err := redis.New(&redis.Options{URL: srv.URL(0), DialTimeout: 200 * time.Millisecond, CommandTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := make(chan string, 100)
	unsub := st.Bus().Subscribe("t", func(m []byte) { got <- string(m) })
	defer unsub()
	waitMsg := func(want string) {
		t.Helper()
		for {
			if err := st.Bus().Publish(ctx, "t", []byte(want)); err != nil && !errors.Is(err, store.ErrUnavailable) {
				t.Fatal(err)
			}
			select {
			case m := <-got:
				if m == want {
					return
				}
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				t.Fatalf("no %q on the bus", want)
			}
		}
	}
	waitMsg("before")
	if err := st.Sessions().Create(ctx, &store.Session{ID: "s"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	if _, err := st.Sessions().Load(ctx, "s", time.Minute); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Load while Redis is away: %v", err)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	for {
		_, err := st.Sessions().Load(ctx, "s", time.Minute)
		if errors.Is(err, store.ErrNotFound) {
			break // back, and empty
		}
		if !errors.Is(err, store.ErrUnavailable) {
			t.Fatalf("Load after the restart: %v", err)
		}
		select {
		case <-ctx.Done():
			t.Fatal("the store did not reconnect")
		case <-time.After(50 * time.Millisecond):
		}
	}
	waitMsg("after")
}
