package redis

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/store"
)

// Tasks. A task is the JSON of its store.TaskRecord at "<prefix>t:<id>",
// expiring with the task. The tasks of an owner are the sorted set
// "<prefix>to:<owner>" (score: a sequence number, from
// "<prefix>tseq"), every task the sorted set "<prefix>tasks" (score: when
// it expires, in Unix milliseconds), which bounds them; each expires with
// the last task it holds.

type tasks struct{ s *Store }

func (t *tasks) key(id string) string         { return t.s.prefix + "t:" + id }
func (t *tasks) ownerKey(owner string) string { return t.s.prefix + "to:" + owner }
func (t *tasks) all() string                  { return t.s.prefix + "tasks" }

// createTaskScript stores a task within the bounds. KEYS: the task, its
// owner's set, all tasks, the sequence. ARGV: the JSON, when it expires
// (ms), now (ms), max tasks, max per owner, id, the task key prefix. It
// returns 1, or 0 for a duplicate id, -1 at a bound. The owner's set,
// the set of all tasks and the sequence expire with the last task they
// hold (keepUntil): the sequence outlives every owner's set it numbers.
var createTaskScript = goredis.NewScript(`
local function keepUntil(key, at, now)
  local t = redis.call('PTTL', key)
  if t == -1 or (t >= 0 and now + t < at) then redis.call('PEXPIREAT', key, at) end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return -1 end
local ids = redis.call('ZRANGE', KEYS[2], 0, -1)
for _, id in ipairs(ids) do
  if redis.call('EXISTS', ARGV[7] .. id) == 0 then redis.call('ZREM', KEYS[2], id) end
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -1 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[6])
local at, now = tonumber(ARGV[2]), tonumber(ARGV[3])
if at > now then
  for i = 2, 4 do keepUntil(KEYS[i], at, now) end
end
return 1`)

func (t *tasks) Create(ctx context.Context, rec *store.TaskRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	exp := rec.ExpiresAt().UnixMilli()
	keys := []string{t.key(rec.ID), t.ownerKey(rec.Owner), t.all(), t.s.prefix + "tseq"}
	n, err := createTaskScript.Run(ctx, t.s.rdb, keys, b, exp, time.Now().UnixMilli(), t.s.opts.MaxTasks, t.s.opts.MaxTasksPerOwner, rec.ID, t.s.prefix+"t:").Int()
	switch {
	case err != nil:
		return wrap(err)
	case n == 0:
		return errors.New("store/redis: duplicate task id")
	case n < 0:
		return store.ErrTaskLimit
	}
	return nil
}

func (t *tasks) get(ctx context.Context, rdb goredis.Cmdable, id string) (*store.TaskRecord, error) {
	b, err := rdb.Get(ctx, t.key(id)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, store.ErrTaskNotFound
	}
	if err != nil {
		return nil, wrap(err)
	}
	var rec store.TaskRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, errors.New("store/redis: a task cannot be read")
	}
	if !time.Now().Before(rec.ExpiresAt()) {
		return nil, store.ErrTaskNotFound
	}
	return &rec, nil
}

func (t *tasks) Get(ctx context.Context, id string) (*store.TaskRecord, error) {
	return t.get(ctx, t.s.rdb, id)
}

// maxTxRetries bounds the attempts of an update that others race.
const maxTxRetries = 20

func (t *tasks) Update(ctx context.Context, id string, u *store.TaskUpdate) (*store.TaskRecord, error) {
	key := t.key(id)
	var out *store.TaskRecord
	for range maxTxRetries {
		err := t.s.rdb.Watch(ctx, func(tx *goredis.Tx) error {
			rec, err := t.get(ctx, tx, id)
			if err != nil {
				return err
			}
			if err := u.Apply(rec, time.Now()); err != nil {
				return err
			}
			b, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p goredis.Pipeliner) error {
				p.SetArgs(ctx, key, b, goredis.SetArgs{KeepTTL: true})
				return nil
			})
			out = rec
			return err
		}, key)
		if errors.Is(err, goredis.TxFailedErr) {
			continue
		}
		if err != nil {
			if errors.Is(err, store.ErrTaskNotFound) || errors.Is(err, store.ErrTaskTerminal) || errors.Is(err, store.ErrTaskTransition) {
				return nil, err
			}
			return nil, wrap(err)
		}
		return out, nil
	}
	return nil, errors.New("store/redis: a task changed too often to be updated")
}

func (t *tasks) List(ctx context.Context, owner, cursor string, limit int) ([]*store.TaskRecord, string, error) {
	min := "-inf"
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(b) < 2 || b[0] != 't' {
			return nil, "", store.ErrTaskCursor
		}
		if _, err := strconv.ParseUint(string(b[1:]), 10, 64); err != nil {
			return nil, "", store.ErrTaskCursor
		}
		min = "(" + string(b[1:])
	}
	if limit <= 0 {
		limit = t.s.opts.MaxTasksPerOwner
	}
	var out []*store.TaskRecord
	for {
		zs, err := t.s.rdb.ZRangeArgsWithScores(ctx, goredis.ZRangeArgs{Key: t.ownerKey(owner), ByScore: true, Start: min, Stop: "+inf", Count: int64(limit - len(out) + 1)}).Result()
		if err != nil {
			return nil, "", wrap(err)
		}
		if len(zs) == 0 {
			return out, "", nil
		}
		for i, z := range zs {
			if len(out) == limit {
				last := strconv.FormatFloat(zs[i-1].Score, 'f', -1, 64)
				return out, base64.RawURLEncoding.EncodeToString([]byte("t" + last)), nil
			}
			rec, err := t.Get(ctx, z.Member.(string))
			min = "(" + strconv.FormatFloat(z.Score, 'f', -1, 64)
			if errors.Is(err, store.ErrTaskNotFound) {
				continue // expired
			}
			if err != nil {
				return nil, "", err
			}
			out = append(out, rec)
		}
	}
}

func (t *tasks) Delete(ctx context.Context, id string) error {
	rec, err := t.get(ctx, t.s.rdb, id)
	if errors.Is(err, store.ErrTaskNotFound) {
		return wrap(t.s.rdb.ZRem(ctx, t.all(), id).Err())
	}
	if err != nil {
		return err
	}
	_, err = t.s.rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.Del(ctx, t.key(id))
		p.ZRem(ctx, t.ownerKey(rec.Owner), id)
		p.ZRem(ctx, t.all(), id)
		return nil
	})
	return wrap(err)
}

func (t *tasks) DeleteExpired(ctx context.Context, now time.Time) (int, error) {
	n, err := t.s.rdb.ZRemRangeByScore(ctx, t.all(), "-inf", strconv.FormatInt(now.UnixMilli(), 10)).Result()
	return int(n), wrap(err)
}
