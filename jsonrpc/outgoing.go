package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
)

// Middleware works both ways. Options.Middleware-style wrapping of the
// Handler sees what the peer asks; Options.Outgoing wraps what this side
// asks the peer, with the same Middleware type: the handler it wraps sends
// the request and, for a call, returns the raw result of the response (a
// json.RawMessage) or its *Error; for a notification, nil and nil once it
// is written. A middleware can change the request before passing it on
// (add to its params, for instance trace context in _meta), measure it,
// or answer it without sending it.
//
// The request's ID is chosen before the middleware runs and must be left
// as it is.

// outgoing is the innermost handler of Options.Outgoing: it sends req to
// the peer and, for a call, waits for the response.
func (c *Conn) outgoing(ctx context.Context, req *Request) (any, error) {
	if !req.IsCall() {
		if c.Finished() {
			return nil, ErrClosed
		}
		return nil, c.write(ctx, req)
	}
	p, err := c.start(ctx, req)
	if ch, ok := ctx.Value(startedKey{}).(chan startOutcome); ok {
		ch <- startOutcome{p, err} // Start waits for the request to be on its way
	}
	if err != nil {
		return nil, err
	}
	raw, err := p.Wait(ctx)
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// startedKey marks the context of a call made by Start through the
// outgoing middleware: the innermost handler reports the sending on the
// channel it carries.
type startedKey struct{}

type startOutcome struct {
	p   *Pending
	err error
}

// callOut sends a call through the outgoing middleware and returns its raw
// result.
func (c *Conn) callOut(ctx context.Context, req *Request) (json.RawMessage, error) {
	res, err := c.out.Handle(ctx, req)
	if err != nil {
		return nil, err
	}
	return rawResult(req.Method, res)
}

// rawResult turns what the outgoing middleware returned into a raw
// result: as it is when the innermost handler produced it, marshaled when
// a middleware answered with a value of its own.
func rawResult(method string, res any) (json.RawMessage, error) {
	switch r := res.(type) {
	case json.RawMessage:
		return r, nil
	case nil:
		return json.RawMessage("null"), nil
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: the outgoing middleware's result for %s cannot be encoded: %w", method, err)
	}
	return raw, nil
}

// startOut is Start through the outgoing middleware: the chain runs in a
// goroutine of the connection, whose outcome is what the Pending's Wait
// returns, so that the middleware sees the response. Start returns once
// the request is written, or once the chain ended without writing it.
func (c *Conn) startOut(ctx context.Context, req *Request) (*Pending, error) {
	ch := make(chan startOutcome, 1)
	done := make(chan delivery, 1)
	gctx, stop := context.WithCancel(context.WithValue(ctx, startedKey{}, ch))
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer stop()
		raw, err := c.callOut(gctx, req)
		done <- delivery{resp: &Response{ID: req.ID, Result: raw}, err: err}
	}()
	select {
	case o := <-ch:
		if o.err != nil {
			<-done
			return nil, o.err
		}
		return &Pending{c: c, id: req.ID, ch: done, stop: stop}, nil
	case d := <-done:
		// The middleware answered without sending: the Pending has its
		// answer already.
		ready := make(chan delivery, 1)
		ready <- d
		return &Pending{c: c, id: req.ID, ch: ready, stop: stop}, nil
	}
}
