package streamable

import (
	"context"
	"errors"
	"io"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/transport"
	"github.com/mcpwire/mcpwire/transport/internal/sse"
)

// This file is the fallback to the legacy HTTP+SSE transport (2024-11-05):
// a server that refuses initialize with 400, 404 or 405, and no error of
// the modern era, may be an old one. The client then GETs the URL as an
// event stream, waits for its endpoint event, and sends initialize again,
// to that endpoint; from then on the connection speaks HTTP+SSE (see
// package transport/sse, which offers the same transport on its own).

// fallback switches the connection to HTTP+SSE and sends initialize
// (body, the call) again. If the server offers no event stream either,
// the call gets refused, the error of the first attempt.
func (c *ClientConn) fallback(ctx context.Context, call *clientCall, body []byte, refused *jsonrpc.Error) {
	lim := c.maxMessage()
	if lim < int(^uint(0)>>2) {
		lim += 4 << 10
	}
	lc, err := sse.DialLegacy(ctx, c.url, sse.LegacyOptions{
		Client:       c.t.client,
		Header:       c.t.opts.Header,
		MaxEventSize: lim,
		Timeout:      c.t.opts.ConnectTimeout,
		Queue:        c.t.opts.MaxQueued,
	})
	if err != nil {
		e := refused.WithCause(errors.Join(refused.Unwrap(), err))
		e.Message += "; the HTTP+SSE transport (2024-11-05) is not offered either: " + err.Error()
		c.fail(call, e)
		return
	}
	c.mu.Lock()
	if c.done || c.legacy != nil { // closed, or another initialize fell back first
		prev := c.legacy
		c.mu.Unlock()
		lc.Close()
		if prev != nil {
			if err := prev.Post(ctx, body); err != nil {
				c.fail(call, clientToRPCError(clientLegacyPostError(err)))
			}
		}
		return
	}
	c.t.log.Info("streamable: the server refused initialize; using the HTTP+SSE transport (2024-11-05)", "endpoint", lc.Endpoint())
	c.resetSessionLocked()
	c.legacy = lc
	c.wg.Add(1)
	c.mu.Unlock()
	go c.pump(lc)
	if err := lc.Post(ctx, body); err != nil {
		c.fail(call, clientToRPCError(clientLegacyPostError(err)))
	}
}

// pump delivers the messages of the HTTP+SSE stream, then closes c.eof.
func (c *ClientConn) pump(lc *sse.LegacyClient) {
	defer c.wg.Done()
	defer close(c.eof)
	for {
		frame, err := lc.Next(c.ctx)
		if err != nil {
			if err != io.EOF && c.ctx.Err() == nil {
				c.put(c.ctx, clientItem{err: err})
			}
			return
		}
		msg, err := c.t.dec.Decode(frame)
		if c.tr != nil {
			c.tr.Observe(transport.Received, frame, msg, err, 0)
		}
		if err != nil {
			c.put(c.ctx, clientItem{err: err}) // a *jsonrpc.DecodeError: Read reports it and goes on
			continue
		}
		c.deliver(c.ctx, msg, jsonrpc.ID{})
	}
}
