package store

import (
	"sync"
	"time"
)

// MaxQueuedDeliveries bounds the messages waiting for one Bus subscriber;
// beyond it the oldest are dropped (the Bus delivers at most once anyway).
const MaxQueuedDeliveries = 10_000

// A Delivery hands one Bus subscription's messages to its function, in
// order, from a goroutine that lives only while messages wait: a slow
// subscriber delays no other, and an idle one costs no goroutine. At most
// MaxQueuedDeliveries messages wait. For Bus implementations (Memory's,
// store/redis's).
type Delivery struct {
	f func([]byte)

	mu       sync.Mutex
	queue    [][]byte
	running  bool
	canceled bool
	idle     chan struct{} // closed when the goroutine ends, if Cancel waits for it
}

// NewDelivery returns the Delivery of messages to f.
func NewDelivery(f func([]byte)) *Delivery { return &Delivery{f: f} }

// Put queues msg, which the Delivery keeps, for f.
func (d *Delivery) Put(msg []byte) {
	d.mu.Lock()
	if d.canceled {
		d.mu.Unlock()
		return
	}
	if len(d.queue) >= MaxQueuedDeliveries {
		d.queue[0] = nil
		d.queue = d.queue[1:]
	}
	d.queue = append(d.queue, msg)
	if d.running {
		d.mu.Unlock()
		return
	}
	d.running = true
	d.mu.Unlock()
	go d.run()
}

func (d *Delivery) run() {
	for {
		d.mu.Lock()
		if len(d.queue) == 0 || d.canceled {
			d.queue = nil
			d.running = false
			if d.idle != nil {
				close(d.idle)
				d.idle = nil
			}
			d.mu.Unlock()
			return
		}
		msg := d.queue[0]
		d.queue[0] = nil
		d.queue = d.queue[1:]
		d.mu.Unlock()
		d.f(msg)
	}
}

// Cancel stops the deliveries and waits (a second at most: a delivery
// may block, or be the caller) for the one in progress.
func (d *Delivery) Cancel() {
	d.mu.Lock()
	d.canceled = true
	var idle chan struct{}
	if d.running {
		if d.idle == nil {
			d.idle = make(chan struct{})
		}
		idle = d.idle
	}
	d.mu.Unlock()
	if idle != nil {
		t := time.NewTimer(time.Second)
		defer t.Stop()
		select {
		case <-idle:
		case <-t.C:
		}
	}
}
