package redis

import (
	"context"
	"fmt"
	"time"
)

// Instances. An instance is alive while the key "<prefix>live:<name>"
// exists: each beat sets it with its ttl.

type instances struct{ s *Store }

func (in *instances) key(name string) string { return in.s.prefix + "live:" + name }

func (in *instances) Beat(ctx context.Context, name string, ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("store/redis: an instance beats with a ttl of %v; it must be positive", ttl)
	}
	return wrap(in.s.rdb.Set(ctx, in.key(name), "1", ttl).Err())
}

func (in *instances) Alive(ctx context.Context, name string) (bool, error) {
	n, err := in.s.rdb.Exists(ctx, in.key(name)).Result()
	if err != nil {
		return false, wrap(err)
	}
	return n > 0, nil
}
