package jsonrpc

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// The parts of a Conn that keep it small: what an idle legacy HTTP
// session keeps is mostly its Conn (issue 23).

// settings are the Options a Conn consults after it is made, with the
// defaults applied. The rest (Handler, Preempter, Logger, Context,
// Outgoing, IDBase) live in Conn's own fields or were used up by newConn,
// so that a Conn, which an idle HTTP session keeps, stays small.
type settings struct {
	MaxConcurrency         int
	MaxQueue               int
	MaxQueuedNotifications int
	DrainTimeout           time.Duration
	AcceptBatch            func() bool
	Barrier                func(*Request) bool
	OnCallAbandoned        func(id ID, cause error)
	OnClosed               func(err error)
	Client                 bool
}

// closedChan is a closed channel, for Closing and Done once they are
// closed before they were asked for.
var closedChan = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// streamSide is what only a conn over a Stream (NewConn) has: its reader
// and the workers that run its calls. A direct conn, which every legacy
// HTTP session keeps, goes without.
type streamSide struct {
	stream   Stream
	framesIn atomic.Int64   // frames received, valid or not (positions in FrameError)
	work     chan *incoming // calls handed to idle workers; made with the first of them
	closeErr error          // what closing the stream returned (set before done)

	// For a PushStream (push.go): calls may run in the reading goroutine.
	handOff       func()       // moves reading to a new goroutine; nil unless pushed
	inlineRunning atomic.Int32 // calls running in a reading goroutine
	inlineTimer   *time.Timer  // hands reading off from a long inline call (mu)
	inlineGen     uint64       // counts inline calls; the timer belongs to the last (mu)
}

// waitLocked waits for a broadcast on avail; c.mu is held.
func (c *Conn) waitLocked() {
	if c.avail == nil {
		c.avail = sync.NewCond(&c.mu)
	}
	c.avail.Wait()
}

// broadcastLocked wakes whoever waits in waitLocked; c.mu is held.
func (c *Conn) broadcastLocked() {
	if c.avail != nil {
		c.avail.Broadcast()
	}
}

// closeError is what closing the stream returned, once the conn is done.
func (c *Conn) closeError() error {
	if c.streamSide == nil {
		return nil
	}
	return c.closeErr
}

// state is the connection's bookkeeping, changed only with Conn.mu held.
type state struct {
	pending     map[ID]*Pending     // outgoing calls awaiting their response; made with the first
	invalid     map[ID]*frameRecord // for pending calls: the first invalid frame no call could take; made on demand
	one         *incoming           // an incoming call not yet answered, queued or running
	active      map[ID]*incoming    // the others (see activeAdd); made with the first
	queue       []*incoming         // messages waiting for the dispatcher, in arrival order
	queuedCalls int                 // calls in queue
	queuedNotes int                 // notifications in queue
	running     int                 // calls whose handler is running
	idleWorkers int                 // workers waiting for a call (see nextCall)
	cause       error               // why the connection ended
	noteSeq     uint64              // sequence number of the last queued notification
	doneSeq     uint64              // every queued notification up to this one has been handled
	invalidKept bool                // every pending call has its entry in invalid
	stalled     bool                // the dispatcher waits for capacity for the head of queue
	dispatching bool                // a dispatcher goroutine is live
	inline      bool                // the dispatcher is running a notification or a barrier
	closing     bool                // no new work is accepted
	aborted     bool                // the drain timeout passed: queued work is dropped
	inputDone   bool                // no response can arrive any more
	patient     bool                // Shutdown: the drain ends with its context, not DrainTimeout
}

// discardLogger is the logger of a conn given none.
var discardLogger = slog.New(slog.DiscardHandler)

// orDefault returns v, or def when v is not positive.
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// sendContext is the context of the messages the engine writes on its
// own (responses, batch replies, answers to invalid frames): the
// connection's values, never cancelled. It is one pointer, so making one
// where it is used allocates nothing.
type sendContext struct{ c *Conn }

func (sendContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (sendContext) Done() <-chan struct{}       { return nil }
func (sendContext) Err() error                  { return nil }

func (s sendContext) Value(key any) any {
	if key == connKey {
		return s.c
	}
	return s.c.base.Value(key)
}
