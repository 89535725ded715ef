package client

import (
	"context"
	"errors"
	"sync"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// A Subscription is an open subscriptions/listen request (modern era):
// while it lasts, the notifications its filter selects reach the client's
// OnListChanged and OnResourceUpdated handlers.
type Subscription struct {
	// Filter is the part of the requested filter the server honours, as
	// it acknowledged it.
	Filter mcp.SubscriptionFilter

	cancel context.CancelFunc
	done   chan struct{}
	err    error
}

// Close ends the subscription: the request is cancelled (on HTTP its
// stream is closed), and Close waits for it to end.
func (s *Subscription) Close() error {
	s.cancel()
	<-s.done
	return nil
}

// Done returns a channel closed when the subscription has ended, because
// of Close, the server, or the connection.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns why the subscription ended: nil after Close or a graceful
// end by the server.
func (s *Subscription) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}

// Listen opens a subscription (modern era) and returns once the server has
// acknowledged it, so that no notification sent after Listen returns is
// missed. ctx bounds the wait for the acknowledgement; the subscription
// lasts until Close.
func (s *Session) Listen(ctx context.Context, filter mcp.SubscriptionFilter) (*Subscription, error) {
	if !s.modern {
		return nil, errors.New("mcp client: subscriptions/listen is part of the modern era; in a legacy session use Subscribe and the client's notification handlers")
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &mcp.SubscriptionsListenParams{Notifications: filter}
	done := s.stamp(lctx, &p.Meta)
	pending, err := s.conn.Start(lctx, mcp.MethodSubscriptionsListen, p)
	if err != nil {
		done()
		cancel()
		return nil, err
	}
	ack := s.acks.wait(pending.ID())
	sub := &Subscription{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(sub.done)
		defer done()
		_, err := pending.Wait(lctx)
		if lctx.Err() == nil {
			sub.err = err
		}
		s.acks.forget(pending.ID())
	}()
	select {
	case f := <-ack:
		sub.Filter = f
		return sub, nil
	case <-sub.done:
		if sub.err == nil {
			sub.err = errors.New("mcp client: the listen ended before it was acknowledged")
		}
		return nil, sub.err
	case <-ctx.Done():
		sub.Close()
		return nil, ctx.Err()
	}
}

// acks routes notifications/subscriptions/acknowledged to the Listen
// waiting for it.
type acks struct {
	mu      sync.Mutex
	waiters map[jsonrpc.ID]chan mcp.SubscriptionFilter
	early   map[jsonrpc.ID]mcp.SubscriptionFilter // acks that came before their waiter
}

// maxEarlyAcks bounds the acknowledgements kept for a Listen that has not
// started waiting yet.
const maxEarlyAcks = 64

func (a *acks) wait(id jsonrpc.ID) <-chan mcp.SubscriptionFilter {
	ch := make(chan mcp.SubscriptionFilter, 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if f, ok := a.early[id]; ok {
		delete(a.early, id)
		ch <- f
		return ch
	}
	if a.waiters == nil {
		a.waiters = make(map[jsonrpc.ID]chan mcp.SubscriptionFilter)
	}
	a.waiters[id] = ch
	return ch
}

func (a *acks) deliver(id jsonrpc.ID, f mcp.SubscriptionFilter) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch, ok := a.waiters[id]; ok {
		delete(a.waiters, id)
		ch <- f
		return
	}
	if a.early == nil {
		a.early = make(map[jsonrpc.ID]mcp.SubscriptionFilter)
	}
	if len(a.early) < maxEarlyAcks {
		a.early[id] = f
	}
}

func (a *acks) forget(id jsonrpc.ID) {
	a.mu.Lock()
	delete(a.waiters, id)
	delete(a.early, id)
	a.mu.Unlock()
}
