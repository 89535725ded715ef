package streamable

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"
)

// This file runs the calls of a ClientConn: the goroutines that POST
// them (runners), and what each call needs to be sent without objects of
// its own besides the call (the body's reader, the outcome, the timer).

// clientRunnerIdle is how long a runner waits for the next call before
// it ends.
const clientRunnerIdle = time.Second

// A clientJob is a call for a runner: runCall's arguments.
type clientJob struct {
	ctx  context.Context
	call *clientCall
	body []byte
	hdr  http.Header
}

// A clientRunner is one goroutine that sends calls, one at a time, with
// a timer of its own that bounds the current one's quick steps (sending
// the request, draining an answered stream): one timer per runner rather
// than one per call.
type clientRunner struct {
	timer *time.Timer // runs fire

	mu       sync.Mutex
	timed    *clientCall // the call the timer bounds; nil when disarmed
	deadline time.Time   // when it times out
}

// arm bounds call by d from now, replacing any bound before.
func (r *clientRunner) arm(call *clientCall, d time.Duration) {
	r.mu.Lock()
	r.timed, r.deadline = call, time.Now().Add(d)
	r.mu.Unlock()
	r.timer.Reset(d)
}

// disarm lifts the bound of call, if the timer still bounds it: the trace
// of a call may report its request written after the runner has moved on
// to the next call, whose bound stays.
func (r *clientRunner) disarm(call *clientCall) {
	r.mu.Lock()
	if r.timed == call {
		r.timed = nil
		r.timer.Stop()
	}
	r.mu.Unlock()
}

// fire aborts the call whose bound has passed. A run of the timer that
// was started for a bound since replaced (it fired as the runner moved
// on) finds the new bound ahead, and does nothing.
func (r *clientRunner) fire() {
	r.mu.Lock()
	call := r.timed
	if call == nil || time.Now().Before(r.deadline) {
		r.mu.Unlock()
		return
	}
	r.timed = nil
	r.mu.Unlock()
	call.abort(errClientConnectTimeout)
}

// runner runs calls: job, then the next ones handed to it while it waits
// (for up to clientRunnerIdle, or until the conn closes). A call sent
// through net/http needs a stack of several kilobytes, which a new
// goroutine grows by copying for each call (7 % of the CPU of a
// sequential tools/call over loopback, client and server in one
// process): a busy conn reuses grown stacks, and an idle one keeps no
// goroutine for long. The server's workers do the same (jsonrpc
// dispatch.go).
func (c *ClientConn) runner(job clientJob) {
	defer c.wg.Done()
	r := newClientRunner()
	defer r.timer.Stop()
	var idle *time.Timer
	for {
		job.call.runner = r
		c.runCall(job.ctx, job.call, job.body, job.hdr)
		job = clientJob{}
		if idle == nil {
			idle = time.NewTimer(clientRunnerIdle)
		} else {
			idle.Reset(clientRunnerIdle)
		}
		select {
		case job = <-c.jobs:
		case <-idle.C:
			return
		case <-c.closed:
			idle.Stop()
			return
		}
	}
}

// newClientRunner returns a runner whose timer is stopped.
func newClientRunner() *clientRunner {
	r := &clientRunner{}
	r.timer = time.AfterFunc(time.Hour, r.fire)
	r.timer.Stop()
	return r
}

// clientSpareRunners bounds the runners a conn keeps for waited calls:
// as many as run at once, up to this.
const clientSpareRunners = 16

// runWaited runs a call whose caller waits for its response
// (jsonrpc.Request.CallerWaits) on the caller's own goroutine: it sends
// the request and reads a JSON answer (or an HTTP error) into Read, so
// that no goroutine is handed the call nor hands back its sending. An
// answer that is an event stream is followed by a goroutine of its own
// (followWaited), as a runner would: the answer may come late, or on
// another stream, and the stream may stay open after it, so the caller
// waits for the answer (in the engine) rather than for the stream. If
// ctx ends before then, the exchange is abandoned: ctx.Err() when the
// request was not sent yet, nil when it was (the engine then abandons
// the call as it does any other). r is the conn's spare runner for the
// call, and wg counts it.
func (c *ClientConn) runWaited(ctx context.Context, r *clientRunner, job clientJob) error {
	defer c.wg.Done()
	call := job.call
	var stop func() bool
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { call.abort(errClientAborted) })
	}
	call.runner, call.waited = r, true
	handedOff := c.runCall(job.ctx, call, job.body, job.hdr)
	if stop != nil {
		stop()
	}
	if !handedOff { // else the stream's goroutine has the runner
		c.mu.Lock()
		if len(c.spare) < clientSpareRunners {
			c.spare = append(c.spare, r)
		}
		c.mu.Unlock()
	}
	if call.sendState.Load() == clientWritten {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return call.sendErr
}

// followWaited follows the event stream that answers a waited call
// (runWaited), then ends the call's requests and stops its runner's
// timer: the runner is the stream's alone, kept by no one after.
func (c *ClientConn) followWaited(ctx context.Context, call *clientCall, body io.ReadCloser) {
	defer c.wg.Done()
	defer call.runner.timer.Stop()
	defer call.abort(nil)
	defer body.Close()
	c.followStream(ctx, call, body)
}

// spareRunnerLocked returns a spare runner, or a new one. c.mu is held.
func (c *ClientConn) spareRunnerLocked() *clientRunner {
	if n := len(c.spare); n > 0 {
		r := c.spare[n-1]
		c.spare[n-1] = nil
		c.spare = c.spare[:n-1]
		return r
	}
	return newClientRunner()
}

// The outcomes of sending a call (clientCall.sendState).
const (
	clientSending int32 = iota // not known yet
	clientWritten              // the request is on the wire
	clientNotSent              // sending failed
)

// signal reports the outcome of sending the call to Write, once: nil
// when the request is on the wire, else the error that kept it off.
func (call *clientCall) signal(err error) {
	st := clientWritten
	if err != nil {
		st = clientNotSent
	}
	if call.sendState.CompareAndSwap(clientSending, st) {
		call.sendErr = err
		call.sent <- struct{}{}
	}
}

// wroteRequest is the call's httptrace hook: the request is on the wire.
func (call *clientCall) wroteRequest(info httptrace.WroteRequestInfo) {
	if info.Err == nil {
		call.runner.disarm(call)
		call.signal(nil)
	}
}

// getBody is the GetBody of the call's request: a new reader of its body
// (a redirect, a retry of HTTP/2).
func (call *clientCall) getBody() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(call.body)), nil
}

var errClientConnectTimeout error = &clientTimeoutError{"streamable: timed out sending the request"}
