// Package peer holds what the MCP server and client share: the handling
// of cancellation and progress notifications (both directions), typed
// calls, strict params decoding, and keepalive pings.
package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/mcp"
)

// Peer is the state one side of an MCP connection keeps about the traffic
// that is not tied to one method: incoming cancellations and progress for
// its own outgoing requests. It is the connection's jsonrpc.Preempter.
type Peer struct {
	conn *jsonrpc.Conn // set by Bind

	seq      atomic.Int64
	mu       sync.Mutex
	progress map[mcp.ProgressToken]func(mcp.ProgressParams)
}

// Bind attaches the peer to its connection. It must be called before the
// connection delivers its first message (use a jsonrpc.Options.Preempter
// that refers to the Peer, then Bind right after NewConn).
func (p *Peer) Bind(c *jsonrpc.Conn) { p.conn = c }

// Conn returns the bound connection.
func (p *Peer) Conn() *jsonrpc.Conn { return p.conn }

// Preempt handles notifications/cancelled and notifications/progress on
// the read path.
func (p *Peer) Preempt(ctx context.Context, req *jsonrpc.Request) bool {
	switch req.Method {
	case mcp.NotificationCancelled:
		var params mcp.CancelledParams
		if err := json.Unmarshal(req.Params, &params); err == nil && params.RequestID.IsValid() && p.conn != nil {
			p.conn.CancelIncoming(params.RequestID)
		}
		return true
	case mcp.NotificationProgress:
		var params mcp.ProgressParams
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return true
		}
		p.mu.Lock()
		f := p.progress[params.ProgressToken]
		p.mu.Unlock()
		if f != nil {
			f(params)
		}
		return true
	}
	return false
}

// WatchProgress registers f for the progress notifications of one
// outgoing request and returns the token to put in its _meta, and a
// function to call when the request is over. f is called on the read
// path: it must be quick.
func (p *Peer) WatchProgress(f func(mcp.ProgressParams)) (mcp.ProgressToken, func()) {
	tok := mcp.ProgressToken(jsonrpc.StringID("p" + strconv.FormatInt(p.seq.Add(1), 36)))
	p.mu.Lock()
	if p.progress == nil {
		p.progress = make(map[mcp.ProgressToken]func(mcp.ProgressParams))
	}
	p.progress[tok] = f
	p.mu.Unlock()
	return tok, func() {
		p.mu.Lock()
		delete(p.progress, tok)
		p.mu.Unlock()
	}
}

// SendCancelled tells the other side that the request id was abandoned;
// use it as jsonrpc.Options.OnCallAbandoned. Requests that must not be
// cancelled (initialize) are never abandoned this way because their
// callers do not cancel them.
func (p *Peer) SendCancelled(id jsonrpc.ID, cause error) {
	if p.conn == nil {
		return
	}
	reason := "request cancelled"
	if cause != nil {
		reason = cause.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = p.conn.Notify(ctx, mcp.NotificationCancelled, &mcp.CancelledParams{RequestID: id, Reason: reason})
}

// DecodeParams decodes raw params into a new P. Absent params decode as
// the zero P; malformed ones yield CodeInvalidParams.
func DecodeParams[P any](raw json.RawMessage) (*P, error) {
	p := new(P)
	if err := DecodeParamsInto(raw, p); err != nil {
		return nil, err
	}
	return p, nil
}

// DecodeParamsInto is DecodeParams into a P the caller holds (the zero P).
func DecodeParamsInto[P any](raw json.RawMessage, p *P) error {
	if len(raw) == 0 {
		return nil
	}
	if raw[0] != '{' {
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid params: MCP params must be an object")
	}
	if u, ok := any(p).(json.Unmarshaler); ok {
		// The strict decoder validated the frame: no second pass.
		if err := u.UnmarshalJSON(raw); err != nil {
			return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err)
		}
		return nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "Invalid params: %v", err)
	}
	return nil
}

// Call sends a request on c and decodes its result into a new R.
func Call[R any](ctx context.Context, c *jsonrpc.Conn, method string, params any) (*R, error) {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return nil, err
	}
	r := new(R)
	if err := DecodeResult(raw, r); err != nil {
		return nil, fmt.Errorf("mcp: decoding the result of %s: %w", method, err)
	}
	return r, nil
}

// KeepAlive pings the peer every interval until ctx ends or a ping fails
// (no answer within the interval); then it calls onFail.
func KeepAlive(ctx context.Context, c *jsonrpc.Conn, interval time.Duration, onFail func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, interval)
		err := c.Call(pctx, mcp.MethodPing, nil, nil)
		cancel()
		if err != nil && ctx.Err() == nil {
			onFail(err)
			return
		}
	}
}

// DecodeResult decodes a result that came in a validated frame, calling
// its UnmarshalJSON directly when it has one.
func DecodeResult(raw json.RawMessage, v any) error {
	if u, ok := v.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(raw)
	}
	return json.Unmarshal(raw, v)
}
