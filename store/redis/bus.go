package redis

import (
	"context"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpwire/mcpwire/store"
)

// The Bus: a topic is the Redis channel "<prefix>b:<topic>". One pub/sub
// connection carries every subscription of the store; go-redis makes it
// again, and subscribes again, after a failure. Each subscription has a
// store.Delivery: a queue and a goroutine that exists while the queue
// holds messages, so that a slow subscriber delays no other.

type bus struct {
	s *Store

	mu     sync.Mutex
	ps     *goredis.PubSub
	subs   map[string][]*store.Delivery // by channel
	done   chan struct{}                // closed by close
	reader sync.WaitGroup

	// cmdMu orders the SUBSCRIBE and UNSUBSCRIBE commands: each is
	// decided, and sent, under it, from the subscribers the channel has
	// then, so that the last command sent for a channel is the one its
	// subscribers call for, however Subscribe and cancel interleave.
	cmdMu sync.Mutex
	on    map[string]bool // the channels the last command subscribed; under cmdMu
}

func newBus(s *Store) *bus {
	return &bus{s: s, subs: make(map[string][]*store.Delivery), done: make(chan struct{}), on: make(map[string]bool)}
}

func (b *bus) channel(topic string) string { return b.s.prefix + "b:" + topic }

func (b *bus) Publish(ctx context.Context, topic string, msg []byte) error {
	return wrap(b.s.rdb.Publish(ctx, b.channel(topic), msg).Err())
}

func (b *bus) Subscribe(topic string, f func([]byte)) func() {
	ch := b.channel(topic)
	s := store.NewDelivery(f)
	b.mu.Lock()
	select {
	case <-b.done:
		b.mu.Unlock()
		return func() {}
	default:
	}
	first := len(b.subs[ch]) == 0
	b.subs[ch] = append(b.subs[ch], s)
	if b.ps == nil {
		b.ps = b.s.rdb.Subscribe(context.Background())
		msgs := b.ps.Channel(goredis.WithChannelSize(1000), goredis.WithChannelSendTimeout(time.Second))
		b.reader.Add(1)
		go b.read(msgs)
	}
	ps := b.ps
	b.mu.Unlock()
	if first {
		b.sync(ps, ch)
	}
	return func() {
		b.mu.Lock()
		list := b.subs[ch]
		for i, x := range list {
			if x == s {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		last := len(list) == 0
		if last {
			delete(b.subs, ch)
		} else {
			b.subs[ch] = list
		}
		b.mu.Unlock()
		s.Cancel()
		if last {
			b.sync(ps, ch)
		}
	}
}

// sync subscribes the pub/sub connection to ch, or unsubscribes it, when
// whether ch has subscribers now differs from what the last command for
// ch did. Subscribe and cancel call it after a change of whether ch has
// subscribers (the first one, the last one gone): a sync follows every
// such change, so the last sync to run, whichever it is, sees the last
// change and leaves the connection as the subscribers call for.
//
// If Redis cannot be reached now, the command fails but go-redis keeps
// the channel's state: it subscribes again, on its next connection, to
// the channels subscribed last (an unsubscribed channel goes with the
// connection).
func (b *bus) sync(ps *goredis.PubSub, ch string) {
	b.cmdMu.Lock()
	defer b.cmdMu.Unlock()
	b.mu.Lock()
	want := len(b.subs[ch]) > 0
	closed := false
	select {
	case <-b.done:
		closed = true
	default:
	}
	b.mu.Unlock()
	if closed || want == b.on[ch] {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.s.opts.CommandTimeout)
	defer cancel()
	if !want {
		delete(b.on, ch)
		ps.Unsubscribe(ctx, ch)
		return
	}
	b.on[ch] = true
	if err := ps.Subscribe(ctx, ch); err != nil {
		b.s.log.Warn("store/redis: subscribing now failed; retried on reconnection", "channel", ch, "error", err)
	}
}

// read hands the messages of the pub/sub connection to the subscribers.
func (b *bus) read(msgs <-chan *goredis.Message) {
	defer b.reader.Done()
	for m := range msgs {
		b.mu.Lock()
		list := b.subs[m.Channel]
		b.mu.Unlock()
		for _, s := range list {
			s.Put([]byte(m.Payload))
		}
	}
}

func (b *bus) close() {
	b.mu.Lock()
	select {
	case <-b.done:
		b.mu.Unlock()
		return
	default:
	}
	close(b.done)
	ps := b.ps
	var all []*store.Delivery
	for _, list := range b.subs {
		all = append(all, list...)
	}
	b.subs = map[string][]*store.Delivery{}
	b.mu.Unlock()
	for _, s := range all {
		s.Cancel()
	}
	if ps != nil {
		ps.Close() // ends the channel, and read
	}
	b.reader.Wait()
}
