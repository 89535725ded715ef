package store

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// memEvents is the Events of a Memory store: one log per session, each
// event numbered in the session and tagged with its stream; the oldest
// go first beyond the bound.
type memEvents struct {
	max int

	mu   sync.Mutex
	logs map[string]*memLog
}

type memLog struct {
	seq    uint64
	events []memEvent // in order of seq
	ended  map[string]bool
	wake   chan struct{} // closed and replaced at each change
}

type memEvent struct {
	stream string
	seq    uint64
	data   []byte
	meta   []byte // a priming event's (Prime)
}

func newMemEvents(max int) *memEvents {
	return &memEvents{max: max, logs: make(map[string]*memLog)}
}

func (e *memEvents) logLocked(session string) *memLog {
	l := e.logs[session]
	if l == nil {
		l = &memLog{wake: make(chan struct{})}
		e.logs[session] = l
	}
	return l
}

func (l *memLog) changed() {
	close(l.wake)
	l.wake = make(chan struct{})
}

func (e *memEvents) Append(_ context.Context, session, stream string, data []byte) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.appendLocked(session, stream, data), nil
}

func (e *memEvents) Prime(_ context.Context, session, stream string, meta []byte) (string, error) {
	if len(meta) > MaxMeta {
		return "", errMetaSize
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	id := e.appendLocked(session, stream, nil)
	l := e.logs[session]
	l.events[len(l.events)-1].meta = append([]byte{}, meta...)
	return id, nil
}

func (e *memEvents) Meta(_ context.Context, session, stream string) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if l := e.logs[session]; l != nil {
		for _, ev := range l.events {
			if ev.stream == stream && ev.meta != nil {
				return append([]byte(nil), ev.meta...), nil
			}
		}
	}
	return nil, ErrEventNotFound
}

func (e *memEvents) AppendEnd(_ context.Context, session, stream string, data []byte) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := e.appendLocked(session, stream, data)
	e.endLocked(session, stream)
	return id, nil
}

func (e *memEvents) appendLocked(session, stream string, data []byte) string {
	l := e.logLocked(session)
	l.seq++
	ev := memEvent{stream: stream, seq: l.seq}
	if len(data) > 0 {
		ev.data = append([]byte(nil), data...)
	}
	l.events = append(l.events, ev)
	if over := len(l.events) - e.max; over > 0 {
		l.events = append(l.events[:0:0], l.events[over:]...)
	}
	l.changed()
	return stream + "_" + strconv.FormatUint(ev.seq, 10)
}

func (e *memEvents) End(_ context.Context, session, stream string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.endLocked(session, stream)
	return nil
}

func (e *memEvents) endLocked(session, stream string) {
	l := e.logLocked(session)
	if l.ended == nil {
		l.ended = make(map[string]bool)
	}
	l.ended[stream] = true
	l.changed()
}

// parseEventID splits an event id into its stream and sequence number.
func parseEventID(id string) (string, uint64, bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(id[i+1:], 10, 64)
	return id[:i], seq, err == nil
}

// after returns the events of stream that follow seq (0: all of them);
// ok is false when seq is not a kept event of stream.
func (l *memLog) after(stream string, seq uint64) (out []memEvent, ok bool) {
	k := 0
	if seq > 0 {
		k = sort.Search(len(l.events), func(j int) bool { return l.events[j].seq >= seq })
		if k == len(l.events) || l.events[k].seq != seq || l.events[k].stream != stream {
			return nil, false
		}
		k++
	}
	for _, ev := range l.events[k:] {
		if ev.stream == stream {
			out = append(out, ev)
		}
	}
	return out, true
}

func (e *memEvents) Replay(_ context.Context, session, lastID string, send func(string, []byte) error) error {
	stream, seq, ok := parseEventID(lastID)
	if !ok {
		return ErrEventNotFound
	}
	e.mu.Lock()
	l := e.logs[session]
	var todo []memEvent
	if l != nil {
		todo, ok = l.after(stream, seq)
	}
	e.mu.Unlock()
	if l == nil || !ok {
		return ErrEventNotFound
	}
	for _, ev := range todo {
		if err := send(stream+"_"+strconv.FormatUint(ev.seq, 10), ev.data); err != nil {
			return err
		}
	}
	return nil
}

func (e *memEvents) Follow(ctx context.Context, session, stream, after string, send func(string, []byte) error) error {
	var seq uint64
	if after != "" {
		s, n, ok := parseEventID(after)
		if !ok || s != stream {
			return ErrEventNotFound
		}
		seq = n
	}
	for {
		e.mu.Lock()
		l := e.logLocked(session)
		todo, ok := l.after(stream, seq)
		ended, wake := l.ended[stream], l.wake
		e.mu.Unlock()
		if !ok {
			return ErrEventNotFound
		}
		for _, ev := range todo {
			if err := send(stream+"_"+strconv.FormatUint(ev.seq, 10), ev.data); err != nil {
				return err
			}
			seq = ev.seq
		}
		if ended && len(todo) == 0 {
			return nil
		}
		if len(todo) > 0 {
			continue // look again before sleeping: more may have come
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (e *memEvents) DeleteSession(_ context.Context, session string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if l := e.logs[session]; l != nil {
		l.changed()
		delete(e.logs, session)
	}
	return nil
}
