package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/store"
)

// Events. The events of a session are one Redis stream,
// "<prefix>e:{<id>}", bounded to MaxEventsPerSession entries and kept
// EventTTL after the last; each entry has a field s (its stream), and d
// (the message; absent for a priming event), m (a priming event's meta,
// Prime) or e (the end of the stream).
// An event id is "<stream>_<entry id>". Each append publishes a wake-up
// on the channel "<prefix>w:<id>" for the follows of the session.

type events struct {
	s *Store

	mu      sync.Mutex
	waiters map[string]map[chan struct{}]struct{} // by session
	cancels map[string]func()                     // bus subscriptions of the sessions followed
}

func (e *events) key(session string) string  { return e.s.prefix + "e:{" + session + "}" }
func (e *events) wake(session string) string { return "w:" + session }

// add appends entries to the session's events, renews their TTL and,
// if wake, wakes the follows of the session up, in one round trip. It
// returns the id of the first entry.
func (e *events) add(ctx context.Context, session string, wake bool, entries ...[]any) (string, error) {
	key := e.key(session)
	var id *goredis.StringCmd
	_, err := e.s.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, values := range entries {
			c := p.XAdd(ctx, &goredis.XAddArgs{Stream: key, MaxLen: int64(e.s.opts.MaxEventsPerSession), Values: values})
			if i == 0 {
				id = c
			}
		}
		p.PExpire(ctx, key, e.s.opts.EventTTL)
		if wake {
			p.Publish(ctx, e.s.bus.channel(e.wake(session)), "")
		}
		return nil
	})
	if err != nil {
		return "", wrap(err)
	}
	return id.Val(), nil
}

// Append wakes no follow up for a priming event: it starts its stream,
// which no follow can be waiting for yet (a follow starts after an event
// of its stream), and the follows of other streams would skip it.
func (e *events) Append(ctx context.Context, session, stream string, data []byte) (string, error) {
	values := []any{"s", stream}
	if len(data) > 0 {
		values = append(values, "d", data)
	}
	id, err := e.add(ctx, session, len(data) > 0, values)
	if err != nil {
		return "", err
	}
	return stream + "_" + id, nil
}

// Prime keeps meta in the field m of the priming entry.
func (e *events) Prime(ctx context.Context, session, stream string, meta []byte) (string, error) {
	if len(meta) > store.MaxMeta {
		return "", fmt.Errorf("store/redis: a stream's meta of %d bytes is over store.MaxMeta", len(meta))
	}
	id, err := e.add(ctx, session, false, []any{"s", stream, "m", meta})
	if err != nil {
		return "", err
	}
	return stream + "_" + id, nil
}

// Meta looks for the stream's priming entry from the oldest entry kept:
// it is read when a stream's writer died, not on the way of a call.
func (e *events) Meta(ctx context.Context, session, stream string) ([]byte, error) {
	start := "-"
	for {
		msgs, err := e.s.rdb.XRangeN(ctx, e.key(session), start, "+", readPage).Result()
		if err != nil {
			return nil, wrap(err)
		}
		for _, m := range msgs {
			if m.Values["s"] != stream {
				continue
			}
			if meta, ok := m.Values["m"].(string); ok {
				return []byte(meta), nil
			}
			return nil, store.ErrEventNotFound // the stream's first entry kept is not its priming event
		}
		if len(msgs) < readPage {
			return nil, store.ErrEventNotFound
		}
		start = "(" + msgs[len(msgs)-1].ID
	}
}

func (e *events) End(ctx context.Context, session, stream string) error {
	_, err := e.add(ctx, session, true, []any{"s", stream, "e", "1"})
	return err
}

func (e *events) AppendEnd(ctx context.Context, session, stream string, data []byte) (string, error) {
	id, err := e.add(ctx, session, true, []any{"s", stream, "d", data}, []any{"s", stream, "e", "1"})
	if err != nil {
		return "", err
	}
	return stream + "_" + id, nil
}

// splitID splits an event id into its stream and entry id.
func splitID(id string) (stream, entry string, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 || i == len(id)-1 {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}

// readPage is how many entries a replay or follow reads at a time.
const readPage = 200

// after sends the events of stream that follow entry ("": from the
// first kept); it returns the last entry read (of any stream) and
// whether the stream ended.
//
// Each read starts at the last entry read, included, which must still be
// kept: if it is not (evicted by newer events, the reader having fallen
// more than MaxEventsPerSession behind, or deleted with the session's
// events), what followed it may be lost, and after returns
// store.ErrEventNotFound rather than go on past a gap. The first entry
// must also be one of stream's when of is set (a client's Last-Event-ID).
// The check costs no round trip: it is one more entry in the read.
func (e *events) after(ctx context.Context, session, stream, entry string, of bool, send func(string, []byte) error) (string, bool, error) {
	start, count := "-", int64(readPage)
	if entry != "" {
		start, count = entry, readPage+1
	}
	for {
		msgs, err := e.s.rdb.XRangeN(ctx, e.key(session), start, "+", count).Result()
		if err != nil {
			if strings.Contains(err.Error(), "Invalid stream ID") {
				return entry, false, store.ErrEventNotFound
			}
			return entry, false, wrap(err)
		}
		n := len(msgs)
		if entry != "" {
			if n == 0 || msgs[0].ID != entry || (of && msgs[0].Values["s"] != stream) {
				return entry, false, store.ErrEventNotFound
			}
			msgs = msgs[1:]
		}
		of = false
		for _, m := range msgs {
			entry = m.ID
			if m.Values["s"] != stream {
				continue
			}
			if _, end := m.Values["e"]; end {
				return entry, true, nil
			}
			var data []byte
			if d, ok := m.Values["d"].(string); ok {
				data = []byte(d)
			}
			if err := send(stream+"_"+m.ID, data); err != nil {
				return entry, false, err
			}
		}
		if n < int(count) {
			return entry, false, nil
		}
		start, count = entry, readPage+1
	}
}

func (e *events) Replay(ctx context.Context, session, lastID string, send func(string, []byte) error) error {
	stream, entry, ok := splitID(lastID)
	if !ok {
		return store.ErrEventNotFound
	}
	_, _, err := e.after(ctx, session, stream, entry, true, send)
	return err
}

func (e *events) Follow(ctx context.Context, session, stream, after string, send func(string, []byte) error) error {
	var entry string
	if after != "" {
		s, en, ok := splitID(after)
		if !ok || s != stream {
			return store.ErrEventNotFound
		}
		entry = en
	}
	of := entry != ""
	wake := e.wait(session)
	defer e.unwait(session, wake)
	poll := 50 * time.Millisecond
	for {
		last, ended, err := e.after(ctx, session, stream, entry, of, send)
		switch {
		case ended:
			return nil
		case err != nil && !errors.Is(err, store.ErrUnavailable):
			return err
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		}
		if err == nil {
			of = false // after is checked
		}
		if last != entry {
			entry, poll = last, 50*time.Millisecond
			continue
		}
		t := time.NewTimer(poll)
		select {
		case <-wake:
		case <-t.C:
			poll = min(poll*2, e.s.opts.FollowPoll)
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
		t.Stop()
	}
}

// wait registers a wake-up channel for the appends to session.
func (e *events) wait(session string) chan struct{} {
	ch := make(chan struct{}, 1)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.waiters == nil {
		e.waiters = make(map[string]map[chan struct{}]struct{})
		e.cancels = make(map[string]func())
	}
	w := e.waiters[session]
	if w == nil {
		w = make(map[chan struct{}]struct{})
		e.waiters[session] = w
		e.cancels[session] = e.s.bus.Subscribe(e.wake(session), func([]byte) { e.wakeUp(session) })
	}
	w[ch] = struct{}{}
	return ch
}

func (e *events) unwait(session string, ch chan struct{}) {
	e.mu.Lock()
	w := e.waiters[session]
	delete(w, ch)
	var cancel func()
	if len(w) == 0 {
		delete(e.waiters, session)
		cancel = e.cancels[session]
		delete(e.cancels, session)
	}
	e.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (e *events) wakeUp(session string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for ch := range e.waiters[session] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (e *events) DeleteSession(ctx context.Context, session string) error {
	_, err := e.s.rdb.Pipelined(ctx, func(p goredis.Pipeliner) error {
		p.Del(ctx, e.key(session))
		p.Publish(ctx, e.s.bus.channel(e.wake(session)), "")
		return nil
	})
	return wrap(err)
}
