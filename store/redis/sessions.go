package redis

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/store"
)

// Sessions. A session is a hash, "<prefix>s:{<id>}", whose fields are
// x (always 1), o (owner), i (initialized), v (version), n (client info,
// JSON), c (client capabilities, JSON), l (log level) and d (the last
// message of its own stream delivered); its subscriptions are a set,
// "<prefix>s:{<id>}:u". Both expire together, ttl after the last Create
// or Load. The initialized sessions are indexed twice: in the sorted set
// "<prefix>sessions" by when they expire (score: Unix milliseconds, by
// Redis's clock), which tells the live from the expired, and in the
// sorted set "<prefix>sessions:ids" by id (every score 0), which Each
// walks in an order that renewing a session does not change. The
// subscribers of a URI are the set "<prefix>u:<uri>".

type sessions struct{ s *Store }

func (ss *sessions) key(id string) string     { return ss.s.prefix + "s:{" + id + "}" }
func (ss *sessions) subsKey(id string) string { return ss.s.prefix + "s:{" + id + "}:u" }
func (ss *sessions) index() string            { return ss.s.prefix + "sessions" }
func (ss *sessions) ids() string              { return ss.s.prefix + "sessions:ids" }
func (ss *sessions) uriKey(uri string) string { return ss.s.prefix + "u:" + uri }

var createScript = goredis.NewScript(`
if redis.call('HSETNX', KEYS[1], 'x', '1') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'o', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`)

func (ss *sessions) Create(ctx context.Context, rec *store.Session, ttl time.Duration) error {
	n, err := createScript.Run(ctx, ss.s.rdb, []string{ss.key(rec.ID)}, ttl.Milliseconds(), rec.Owner).Int()
	if err != nil {
		return wrap(err)
	}
	if n == 0 {
		return store.ErrExists
	}
	return nil
}

// keepLua is the Lua function keep(key, ms): it makes key expire in ms
// unless it expires later already. The keys that index sessions expire
// with the last session they index: renewing a session keeps them.
const keepLua = `
local function keep(key, ms)
  local t = redis.call('PTTL', key)
  if t == -1 or (t >= 0 and t < ms) then redis.call('PEXPIRE', key, ms) end
end
`

// loadScript renews a session and returns its fields and subscriptions.
// KEYS: the hash, the subscriptions, the two indexes. ARGV: the ttl
// (ms), the id, the prefix of the subscribers' sets ("<prefix>u:"). An
// initialized session is indexed again (which also indexes by id a
// session that an older version indexed by expiry only); the indexes
// and the subscribers' sets of its subscriptions are kept as long as
// the session.
var loadScript = goredis.NewScript(keepLua + `
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 0 then return false end
redis.call('PEXPIRE', KEYS[2], ARGV[1])
local ttl = tonumber(ARGV[1])
local h = redis.call('HGETALL', KEYS[1])
local subs = redis.call('SMEMBERS', KEYS[2])
for i = 1, #h, 2 do
  if h[i] == 'i' then
    local t = redis.call('TIME')
    redis.call('ZADD', KEYS[3], t[1] * 1000 + math.floor(t[2] / 1000) + ttl, ARGV[2])
    redis.call('ZADD', KEYS[4], 0, ARGV[2])
    keep(KEYS[3], ttl)
    keep(KEYS[4], ttl)
  end
end
for _, uri in ipairs(subs) do keep(ARGV[3] .. uri, ttl) end
return {h, subs}`)

func (ss *sessions) Load(ctx context.Context, id string, ttl time.Duration) (*store.Session, error) {
	if ttl <= 0 {
		return ss.read(ctx, id)
	}
	v, err := loadScript.Run(ctx, ss.s.rdb, []string{ss.key(id), ss.subsKey(id), ss.index(), ss.ids()}, ttl.Milliseconds(), id, ss.uriKey("")).Slice()
	if errors.Is(err, goredis.Nil) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, wrap(err)
	}
	if len(v) != 2 {
		return nil, errors.New("store/redis: unexpected answer to load")
	}
	fields, _ := v[0].([]any)
	subs, _ := v[1].([]any)
	return record(id, len(fields)/2, func(i int) (string, string) {
		k, _ := fields[2*i].(string)
		val, _ := fields[2*i+1].(string)
		return k, val
	}, len(subs), func(i int) string {
		u, _ := subs[i].(string)
		return u
	})
}

// read is Load without renewing: the hash and the subscriptions in one
// round trip, two commands (the renewing script runs six).
func (ss *sessions) read(ctx context.Context, id string) (*store.Session, error) {
	var fields *goredis.MapStringStringCmd
	var subs *goredis.StringSliceCmd
	_, err := ss.s.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		fields = p.HGetAll(ctx, ss.key(id))
		subs = p.SMembers(ctx, ss.subsKey(id))
		return nil
	})
	if err != nil {
		return nil, wrap(err)
	}
	m, list := fields.Val(), subs.Val()
	if m["x"] == "" {
		return nil, store.ErrNotFound
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return record(id, len(keys), func(i int) (string, string) { return keys[i], m[keys[i]] },
		len(list), func(i int) string { return list[i] })
}

// record makes a session's record of the n fields of its hash that field
// returns and of its m subscriptions.
func record(id string, n int, field func(i int) (k, v string), m int, sub func(i int) string) (*store.Session, error) {
	rec := &store.Session{ID: id}
	for i := range n {
		k, val := field(i)
		switch k {
		case "o":
			rec.Owner = val
		case "i":
			rec.Initialized = true
		case "v":
			rec.Version = mcp.Version(val)
		case "n":
			if err := json.Unmarshal([]byte(val), &rec.ClientInfo); err != nil {
				return nil, errors.New("store/redis: a session's client info cannot be read")
			}
		case "c":
			if err := json.Unmarshal([]byte(val), &rec.ClientCapabilities); err != nil {
				return nil, errors.New("store/redis: a session's client capabilities cannot be read")
			}
		case "l":
			rec.LogLevel = mcp.LoggingLevel(val)
		case "d":
			rec.Delivered = val
		}
	}
	for i := range m {
		if u := sub(i); u != "" {
			rec.Subscriptions = append(rec.Subscriptions, u)
		}
	}
	return rec, nil
}

// updateScript changes a session. KEYS: the hash, the subscriptions,
// the index by expiry, the subscribers of ARGV[2] (subscribe) or ARGV[3]
// (unsubscribe), the index by id. ARGV: id, subscribe, unsubscribe, max
// subscriptions, then field/value pairs for the hash. It returns 0 for a
// missing session, -1 at the bound of subscriptions, 1 when done. The
// sets it adds to are kept as long as the session at least; initializing
// a session also forgets a few of the sessions that expired (Each
// forgets the others).
var updateScript = goredis.NewScript(keepLua + `
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then return 0 end
if ARGV[2] ~= '' and redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 then
  local max = tonumber(ARGV[4])
  if max > 0 and redis.call('SCARD', KEYS[2]) >= max then return -1 end
  redis.call('SADD', KEYS[2], ARGV[2])
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('SADD', KEYS[4], ARGV[1])
  keep(KEYS[4], ttl)
end
if ARGV[3] ~= '' then
  redis.call('SREM', KEYS[2], ARGV[3])
  redis.call('SREM', KEYS[4], ARGV[1])
end
if #ARGV > 4 then
  local kv = {}
  local init = false
  for i = 5, #ARGV, 2 do
    table.insert(kv, ARGV[i]); table.insert(kv, ARGV[i+1])
    if ARGV[i] == 'i' then init = true end
  end
  redis.call('HSET', KEYS[1], unpack(kv))
  if init then
    local t = redis.call('TIME')
    local now = t[1] * 1000 + math.floor(t[2] / 1000)
    redis.call('ZADD', KEYS[3], now + ttl, ARGV[1])
    redis.call('ZADD', KEYS[5], 0, ARGV[1])
    keep(KEYS[3], ttl)
    keep(KEYS[5], ttl)
    local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. now, 'LIMIT', 0, 8)
    if #gone > 0 then
      redis.call('ZREM', KEYS[3], unpack(gone))
      redis.call('ZREM', KEYS[5], unpack(gone))
    end
  end
end
return 1`)

func (ss *sessions) Update(ctx context.Context, id string, u *store.SessionUpdate) error {
	uri := u.Subscribe
	if uri == "" {
		uri = u.Unsubscribe
	}
	args := []any{id, u.Subscribe, u.Unsubscribe, u.MaxSubscriptions}
	if u.Initialize {
		info, err := json.Marshal(u.ClientInfo)
		if err != nil {
			return err
		}
		caps, err := json.Marshal(u.ClientCapabilities)
		if err != nil {
			return err
		}
		args = append(args, "i", "1", "v", string(u.Version), "n", info, "c", caps)
	}
	if u.LogLevel != "" {
		args = append(args, "l", string(u.LogLevel))
	}
	if u.Delivered != "" {
		args = append(args, "d", u.Delivered)
	}
	keys := []string{ss.key(id), ss.subsKey(id), ss.index(), ss.uriKey(uri), ss.ids()}
	n, err := updateScript.Run(ctx, ss.s.rdb, keys, args...).Int()
	switch {
	case err != nil:
		return wrap(err)
	case n == 0:
		return store.ErrNotFound
	case n < 0:
		return store.ErrLimit
	}
	return nil
}

func (ss *sessions) Delete(ctx context.Context, id string) error {
	subs, err := ss.s.rdb.SMembers(ctx, ss.subsKey(id)).Result()
	if err != nil {
		return wrap(err)
	}
	_, err = ss.s.rdb.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		for _, uri := range subs {
			p.SRem(ctx, ss.uriKey(uri), id)
		}
		p.Del(ctx, ss.key(id), ss.subsKey(id))
		p.ZRem(ctx, ss.index(), id)
		p.ZRem(ctx, ss.ids(), id)
		return nil
	})
	return wrap(err)
}

// eachPage is how many ids Each reads at a time.
const eachPage = 500

// walkScript reads a page of the index by id: the ids after ARGV[1] (a
// ZRANGEBYLEX bound), ARGV[2] of them at most. KEYS: the index by id,
// the index by expiry. It returns the last id read ("" for none), how
// many were read, and those of live sessions; it forgets the others.
var walkScript = goredis.NewScript(`
local ids = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], '+', 'LIMIT', 0, ARGV[2])
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local live, dead = {}, {}
for _, id in ipairs(ids) do
  local exp = redis.call('ZSCORE', KEYS[2], id)
  if exp and tonumber(exp) > now then table.insert(live, id) else table.insert(dead, id) end
end
if #dead > 0 then
  redis.call('ZREM', KEYS[1], unpack(dead))
  redis.call('ZREM', KEYS[2], unpack(dead))
end
return {ids[#ids] or '', #ids, live}`)

// Each walks the index by id, a page at a time, each page starting after
// the last id of the one before: a session indexed throughout the walk is
// visited once, whatever is renewed, added or removed meanwhile.
func (ss *sessions) Each(ctx context.Context, uri string, f func(id string) error) error {
	rdb := ss.s.rdb
	if uri == "" {
		start := "-"
		for {
			v, err := walkScript.Run(ctx, rdb, []string{ss.ids(), ss.index()}, start, eachPage).Slice()
			if err != nil {
				return wrap(err)
			}
			if len(v) != 3 {
				return errors.New("store/redis: unexpected answer to a walk of the sessions")
			}
			last, _ := v[0].(string)
			n, _ := v[1].(int64)
			live, _ := v[2].([]any)
			for _, x := range live {
				if id, _ := x.(string); id != "" {
					if err := f(id); err != nil {
						return err
					}
				}
			}
			if n < eachPage || last == "" {
				return nil
			}
			start = "(" + last
		}
	}
	var cursor uint64
	for {
		ids, next, err := rdb.SScan(ctx, ss.uriKey(uri), cursor, "", eachPage).Result()
		if err != nil {
			return wrap(err)
		}
		if len(ids) > 0 {
			cmds, err := rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
				for _, id := range ids {
					p.Exists(ctx, ss.key(id))
				}
				return nil
			})
			if err != nil {
				return wrap(err)
			}
			var gone []any
			for i, c := range cmds {
				if c.(*goredis.IntCmd).Val() == 0 {
					gone = append(gone, ids[i])
					continue
				}
				if err := f(ids[i]); err != nil {
					return err
				}
			}
			if len(gone) > 0 {
				rdb.SRem(ctx, ss.uriKey(uri), gone...)
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}
