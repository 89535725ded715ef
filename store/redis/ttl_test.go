package redis_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store"
	"github.com/mcpwire/mcpwire/store/redis"
	"github.com/mcpwire/mcpwire/store/redis/redistest"
)

// TestEveryKeyExpires: every key the store writes carries a TTL (or is
// removed with what owns it), so that what expires leaves nothing
// behind: the subscribers of a URI (u:URI) and the tasks of an owner
// (to:OWNER) had none, nor the indexes, and were pruned only by a later
// walk, which may never come: 50 sessions that expired left 50 keys that
// never would. The one key kept for good is the instance counter
// (Store.NewInstance), one integer per prefix, which must outlive every
// instance.
func TestEveryKeyExpires(t *testing.T) {
	srv := redistest.Shared(t)
	prefix := fmt.Sprintf("ttl%d:", prefixes.Add(1))
	st, err := redis.New(&redis.Options{URL: srv.URL(0), Prefix: prefix, EventTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const n, ttl = 50, 300 * time.Millisecond
	now := time.Now()
	for i := range n {
		id := fmt.Sprint("s", i)
		if err := st.Sessions().Create(ctx, &store.Session{ID: id, Owner: "o"}, ttl); err != nil {
			t.Fatal(err)
		}
		if err := st.Sessions().Update(ctx, id, &store.SessionUpdate{Initialize: true, Version: mcp.Version20251125, Subscribe: fmt.Sprint("test://r", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Sessions().Load(ctx, id, ttl); err != nil { // renewed once
			t.Fatal(err)
		}
		if _, err := st.Events().Append(ctx, id, "1", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		task := &store.TaskRecord{ID: fmt.Sprint("t", i), Owner: fmt.Sprint("owner", i), Status: mcp.TaskWorking, CreatedAt: now, LastUpdatedAt: now, TTL: ttl}
		if err := st.Tasks().Create(ctx, task); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Keys().Keys(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.NewInstance(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.Instances().Beat(ctx, "a", ttl); err != nil {
		t.Fatal(err)
	}
	if err := st.Instances().Beat(ctx, "b", 0); err == nil {
		t.Error("Beat with no ttl: no error (the key would never expire)")
	}
	for i := range n { // wait for the sessions and tasks to expire
		for {
			_, err := st.Sessions().Load(ctx, fmt.Sprint("s", i), 0)
			_, terr := st.Tasks().Get(ctx, fmt.Sprint("t", i))
			if errors.Is(err, store.ErrNotFound) && errors.Is(terr, store.ErrTaskNotFound) {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("session s%d did not expire: %v, %v", i, err, terr)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	o, err := goredis.ParseURL(srv.URL(0))
	if err != nil {
		t.Fatal(err)
	}
	admin := goredis.NewClient(o)
	defer admin.Close()
	var forever []string
	keys := 0
	it := admin.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for it.Next(ctx) {
		key := it.Val()
		keys++
		d, err := admin.PTTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if d == -1 && key != prefix+"instance" {
			forever = append(forever, key)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if len(forever) > 0 {
		kinds := map[string]int{} // u:URI, to:OWNER counted together
		for _, key := range forever {
			kind := strings.TrimPrefix(key, prefix)
			for _, many := range []string{"u:", "to:", "s:", "e:", "t:", "live:"} {
				if strings.HasPrefix(kind, many) {
					kind = many + "*"
				}
			}
			kinds[kind]++
		}
		var list []string
		for k, c := range kinds {
			list = append(list, fmt.Sprintf("%d %s", c, k))
		}
		slices.Sort(list)
		t.Errorf("%d of %d keys left with no TTL after their sessions and tasks expired: %s", len(forever), keys, strings.Join(list, ", "))
	}
}
