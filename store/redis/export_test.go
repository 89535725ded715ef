package redis

import (
	"context"
	"sync/atomic"

	goredis "github.com/redis/go-redis/v9"
)

// CountRoundTrips adds to n each round trip the store makes to Redis: a
// command, or a pipeline of them (the benchmarks report round trips per
// call).
func (s *Store) CountRoundTrips(n *atomic.Int64) { s.rdb.AddHook(tripCounter{n}) }

type tripCounter struct{ n *atomic.Int64 }

func (tripCounter) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (c tripCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmd)
	}
}

func (c tripCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// BusSubscribers returns how many subscriptions of this store the Bus
// holds for topic.
func (s *Store) BusSubscribers(topic string) int {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	return len(s.bus.subs[s.bus.channel(topic)])
}
