package store

import (
	"bytes"
	"runtime"
	"strconv"
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
	g        uint64        // the goroutine's id while running (0: unknown)
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
	g := goid()
	d.mu.Lock()
	d.g = g
	d.mu.Unlock()
	for {
		d.mu.Lock()
		if len(d.queue) == 0 || d.canceled {
			d.queue = nil
			d.running = false
			d.g = 0
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

// Cancel stops the deliveries: f is called no more once Cancel has
// returned, but for the call in progress, if any. Cancel waits for that
// call to return (a second at most, should f block), so that the caller
// may release what f uses; called from f itself (a subscriber whose
// message ends its interest), it returns at once, and f is not called
// again after it returns.
func (d *Delivery) Cancel() {
	d.mu.Lock()
	d.canceled = true
	var idle chan struct{}
	if d.running && (d.g == 0 || d.g != goid()) {
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

// goid returns the id of the calling goroutine, as the first line of its
// stack trace ("goroutine 18 [running]:") gives it, or 0. It tells
// Cancel whether it is called from f: only the delivery's goroutine has
// the id the delivery recorded.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b, ok := bytes.CutPrefix(b, []byte("goroutine "))
	if !ok {
		return 0
	}
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		return 0
	}
	return id
}
