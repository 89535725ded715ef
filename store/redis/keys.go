package redis

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// Keys. The ring is the list "<prefix>keys", newest first, of
// "<unix ms made>:<base64 key>"; it holds two keys: the one that signs
// and the one before it, which still verifies. A new key is made when
// the newest is KeyRotation old, by the first instance that sees it, in
// a script that makes it only if no other instance did meanwhile. The
// ring expires twice KeyRotation after the newest key was made, when
// neither of its keys verifies any longer.

type keyRing struct{ s *Store }

var rotateScript = goredis.NewScript(`
local head = redis.call('LINDEX', KEYS[1], 0)
if head and tonumber(string.match(head, '^(%d+):')) > tonumber(ARGV[2]) then
  return redis.call('LRANGE', KEYS[1], 0, -1)
end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('LRANGE', KEYS[1], 0, -1)`)

func (k *keyRing) Keys(ctx context.Context) ([][]byte, error) {
	key := k.s.prefix + "keys"
	list, err := k.s.rdb.LRange(ctx, key, 0, -1).Result()
	if err != nil {
		return nil, wrap(err)
	}
	now := time.Now()
	if len(list) == 0 || madeAt(list[0]).Before(now.Add(-k.s.opts.KeyRotation)) {
		fresh := make([]byte, 32)
		rand.Read(fresh)
		entry := strconv.FormatInt(now.UnixMilli(), 10) + ":" + base64.StdEncoding.EncodeToString(fresh)
		oldest := strconv.FormatInt(now.Add(-k.s.opts.KeyRotation).UnixMilli(), 10)
		if list, err = rotateScript.Run(ctx, k.s.rdb, []string{key}, entry, oldest, 2*k.s.opts.KeyRotation.Milliseconds()).StringSlice(); err != nil {
			return nil, wrap(err)
		}
	}
	keys := make([][]byte, 0, len(list))
	for _, e := range list {
		_, b64, _ := strings.Cut(e, ":")
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(b) < 32 {
			return nil, errors.New("store/redis: a request-state key cannot be read")
		}
		keys = append(keys, b)
	}
	return keys, nil
}

// madeAt reads when a key of the ring was made.
func madeAt(entry string) time.Time {
	ms, _, _ := strings.Cut(entry, ":")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return time.UnixMilli(n)
}
